#!/usr/bin/env python3
"""Lists functions, initializers and closures-as-declarations in Sources longer than a limit
(default 60 lines, body braces included); exits 1 if any. A brace counter, not a parser:
string literals with braces are skipped, comments are stripped."""
import os, re, sys

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 60
DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonmutating|convenience|required|nonisolated|@inlinable|@discardableResult)\s+)*(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|(?:var|let)\s+\w+\s*:[^=]*\{\s*$)')

def strip(line):
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//")[0]

long = []
for root, _, files in os.walk("Sources"):
    for name in files:
        if not name.endswith(".swift"):
            continue
        path = os.path.join(root, name)
        lines = open(path, encoding="utf-8").read().split("\n")
        i = 0
        while i < len(lines):
            if DECL.match(lines[i]):
                depth, opened, j = 0, False, i
                while j < len(lines):
                    code = strip(lines[j])
                    depth += code.count("{") - code.count("}")
                    if "{" in code:
                        opened = True
                    if opened and depth <= 0:
                        break
                    if not opened and j > i and code.strip() == "":
                        break  # a protocol requirement: no body
                    j += 1
                length = j - i + 1
                if opened and length > LIMIT:
                    long.append((length, f"{path}:{i + 1}: {lines[i].strip()[:80]} ({length} lines)"))
            i += 1
for _, text in sorted(long, reverse=True):
    print(text)
print(f"{len(long)} function(s) over {LIMIT} lines")
sys.exit(1 if long else 0)
