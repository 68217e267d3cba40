#!/usr/bin/env bash
# What an app team's test target meets (make consumer-check, CI): a package that depends only on
# MarblesTesting (Tests/Consumer) resolves to Marbles and MarbleCore's one dependency,
# swift-atomics (no swift-argument-parser, FlyingFox or OpenCombine: they sit behind the Tools
# and OpenCombine traits), builds clean, and its marble tests pass.
# Prints the clean build's time.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The committed consumer package (Tests/Consumer), pointed at this checkout, built outside it.
cp -r Tests/Consumer "$work/Consumer"
rm -rf "$work/Consumer/.build"
sed -i.bak "s|path: \"../..\"|path: \"$repo\"|" "$work/Consumer/Package.swift"
cd "$work/Consumer"
"$SWIFT" package show-dependencies --format json >"$work/dependencies.json" 2>"$work/resolve.log" || { cat "$work/resolve.log"; exit 1; }
python3 - "$work/dependencies.json" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
def walk(node):
    for dep in node.get("dependencies", []):
        yield dep
        yield from walk(dep)
fetched = sorted({d["name"].lower() for d in walk(root)})
allowed = {"marbles", "swift-atomics"}
if set(fetched) - allowed or "marbles" not in fetched:
    sys.exit(f"a MarblesTesting-only package fetches {fetched}; it should fetch only {sorted(allowed)}")
print(f"a MarblesTesting-only package fetches: {', '.join(fetched)} (nothing else)")
PY
start=$(date +%s%N)
"$SWIFT" build --build-tests >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
end=$(date +%s%N)
awk -v ns=$((end - start)) 'BEGIN { printf "clean build of the package and its test target: %.1f s\n", ns / 1e9 }'
"$SWIFT" test --skip-build >"$work/test.log" 2>&1 || { grep -E "✘|error" "$work/test.log" | head -20; exit 1; }
tail -1 "$work/test.log"
