#!/usr/bin/env python3
"""The ledger of unsafe constructs kept for speed (make lint).

Lists, per file under Sources, each construct that trades a safety check for speed:
`@exclusivity(unchecked)`, `unowned(unsafe)`, inline storage at a fixed place (an object's first
stored property reached through `firstStoredProperty`, `inlineAtomic` or `InlineMutex(in:)`), and
`_isConcrete` splits. Each must have a comment with `measured:` and its A/B figure within a few
lines above it. Fails on one without, and when there are more than the budget in all.
Usage: unsafe-ledger.py [--list] [ROOT]
"""
import pathlib
import re
import sys

CONSTRUCT = re.compile(
    r"@exclusivity\(unchecked\)|unowned\(unsafe\)|firstStoredProperty\(of: self|inlineAtomic\(self|InlineMutex\(in: self\)|_isConcrete\(")
WINDOW = 8
BUDGET = 40


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else "Sources")
    listing = "--list" in sys.argv
    total, missing, per_file = 0, [], {}
    for path in sorted(root.rglob("*.swift")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            code = line.split("//", 1)[0]
            if not CONSTRUCT.search(code) or code.lstrip().startswith("///"):
                continue
            total += 1
            per_file[path] = per_file.get(path, 0) + 1
            above = lines[max(0, number - 1 - WINDOW):number - 1]
            if not any("measured:" in text or "measured (" in text for text in above):
                missing.append(f"{path}:{number}: {line.strip()}")
    if listing:
        for path, count in sorted(per_file.items(), key=lambda item: -item[1]):
            print(f"{count:3} {path}")
    for entry in missing:
        print(f"{entry}\n    no 'measured:' figure within {WINDOW} lines above: measure it (A/B, release) or remove it")
    print(f"{total} unsafe construct(s) kept for speed (budget {BUDGET}), {len(missing)} without a figure")
    return 1 if missing or total > BUDGET else 0


if __name__ == "__main__":
    sys.exit(main())
