#!/usr/bin/env python3
"""Public documentation coverage of our library modules, from `swift package dump-symbol-graph`.

Counts the public and open symbols each module declares (extensions of other modules' types
included); a symbol counts as documented when it has its own doc comment or implements a
documented protocol requirement (DocC shows the requirement's text). Lists what is missing and
exits 1 unless coverage is 100%.
"""
import glob, json, os, sys

MODULES = ["MarbleCore", "Marbles", "MarblesTesting", "MarbleSpec", "MarbleRender", "MarblesCombine"]
folder = sys.argv[1] if len(sys.argv) > 1 else ".build/x86_64-unknown-linux-gnu/symbolgraph"

total = documented = 0
missing = []
for module in MODULES:
    files = [f for f in glob.glob(os.path.join(folder, f"{module}*.symbols.json"))
             if os.path.basename(f).split("@")[0].split(".symbols")[0] == module]
    m_total = m_doc = 0
    for path in files:
        graph = json.load(open(path))
        implements = {r["source"] for r in graph.get("relationships", [])
                      if r["kind"] in ("requirementOf", "optionalRequirementOf", "defaultImplementationOf")}
        overrides = {r["source"] for r in graph.get("relationships", []) if r["kind"] == "overrides"}
        conforming = {r["source"] for r in graph.get("relationships", []) if r["kind"] == "memberOf"}
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["identifier"]["precise"].startswith("s:e:") or "location" not in symbol:
                continue  # extension blocks, and members the compiler synthesizes (hashValue)
            m_total += 1
            has_doc = bool(symbol.get("docComment", {}).get("lines"))
            # Conformance implementations (description, ==, on(_:)...) take the protocol's docs.
            inherits = symbol["identifier"]["precise"] in implements | overrides or "sourceOrigin" in symbol
            if has_doc or inherits:
                m_doc += 1
            else:
                loc = symbol.get("location", {})
                uri = loc.get("uri", "").replace("file://", "")
                line = loc.get("position", {}).get("line", 0) + 1
                missing.append(f"{os.path.relpath(uri) if uri else module}:{line}: {'.'.join(symbol['pathComponents'])}")
    total += m_total
    documented += m_doc
    print(f"{module:15} {m_doc:4}/{m_total:<4} {100.0 * m_doc / max(m_total, 1):5.1f}%")

for line in sorted(set(missing)):
    print("undocumented:", line)
print(f"public documentation coverage: {documented}/{total} ({100.0 * documented / max(total, 1):.1f}%)")
sys.exit(0 if documented == total else 1)
