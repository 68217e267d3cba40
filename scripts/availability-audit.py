#!/usr/bin/env python3
"""Lists the standard-library, Concurrency and Observation APIs the library modules use whose
Apple availability is newer than the package's floor (macOS 13 / iOS 16), with the lines that
use them: the uses to check for an @available or #available (no Apple toolchain runs here, so
this reads the toolchain's own interfaces, which carry Apple availability on Linux too).

Usage: scripts/availability-audit.py [toolchain swift lib dir]
"""
import glob, os, re, subprocess, sys

lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(subprocess.check_output(["which", "swift"]).decode().strip()))),
    "lib/swift/linux")
FLOOR = {"macOS": (13, 0), "iOS": (16, 0)}
modules = ["_Concurrency", "Swift", "Observation", "Synchronization"]
decl = re.compile(r"\b(?:func|var|let|struct|class|protocol|enum|typealias|actor)\s+`?([A-Za-z_][A-Za-z0-9_]*)")
avail = re.compile(r"@available\((macOS|iOS) (\d+)(?:\.(\d+))?")
oldest = {}
for module in modules:
    for path in glob.glob(os.path.join(lib, module + ".swiftmodule", "*.swiftinterface")):
        if ".private." in path:
            continue
        pending = []
        for line in open(path, encoding="utf-8"):
            stripped = line.strip()
            if stripped.startswith("@available"):
                pending.append(stripped)
                continue
            m = decl.search(stripped)
            if m and "public" in stripped:
                # A name's availability is its oldest declaration's: a name also declared for
                # older systems (an overload, a member of another type) is not reported.
                versions = [(int(major), int(minor or 0)) for a in pending for platform, major, minor in avail.findall(a)
                            if platform == "macOS"]
                version = max(versions) if versions else (0, 0)
                key = m.group(1)
                oldest.setdefault(key, []).append((version, module))
            if not stripped.startswith("@"):
                pending = []
newer = {}
for name, found in oldest.items():
    version, module = min(found)
    if version > FLOOR["macOS"]:
        newer[(module, name)] = version
# Names too common to mean the API (a `name` property, `init`) are listed only as qualified uses.
common = {"init", "name", "value", "load", "store", "next", "run", "sleep", "now", "id", "description", "enqueue"}
sources = []
for folder in ["Sources/Core", "Sources/Marbles", "Sources/MarblesTesting", "Sources/MarblesCombine"]:
    sources += glob.glob(os.path.join(folder, "**", "*.swift"), recursive=True)
report = {}
for path in sources:
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        code = line.split("//")[0]
        for (module, name), version in newer.items():
            if name in common or len(name) < 4:
                continue
            if re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", code):
                report.setdefault((module, name, version), []).append(f"{path}:{number}: {line.strip()[:110]}")
for (module, name, version), uses in sorted(report.items(), key=lambda kv: (kv[0][2], kv[0][1])):
    print(f"{module}.{name}: macOS {version[0]}.{version[1]}")
    for use in uses[:8]:
        print("    " + use)
    if len(uses) > 8:
        print(f"    … {len(uses) - 8} more")
