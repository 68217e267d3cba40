#!/usr/bin/env bash
# Builds the DocC archive of each library module into .build/docs (make docs) and fails on any
# DocC warning or on undocumented public API (scripts/doc-coverage.py).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
DOCC=${DOCC:-$(command -v docc || echo "$(dirname "$(command -v "$SWIFT")")/docc")}
# Test modules fail to emit when the tests are not built yet; only the libraries matter here.
"$SWIFT" package ${TRAITS:---traits Tools,OpenCombine} dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
graphs=$(find .build -maxdepth 3 -type d -name symbolgraph | head -1)
for module in MarbleCore Marbles MarblesTesting MarbleSpec MarbleDrawing MarbleRender MarblesCombine; do
    [ -f "$graphs/$module.symbols.json" ] || { echo "no symbol graph for $module: run swift package dump-symbol-graph"; exit 1; }
done
python3 scripts/doc-coverage.py "$graphs" | grep -v '^undocumented' || { python3 scripts/doc-coverage.py "$graphs" | grep '^undocumented'; exit 1; }
status=0
mkdir -p .build/docs
for entry in MarbleCore:Sources/Core Marbles:Sources/Marbles MarblesTesting:Sources/MarblesTesting \
    MarbleSpec:Sources/MarbleSpec MarbleDrawing:Sources/MarbleDrawing MarbleRender:Sources/MarbleRender MarblesCombine:Sources/MarblesCombine; do
    module=${entry%%:*}
    folder=${entry#*:}
    work=$(mktemp -d)
    cp "$graphs/$module".symbols.json "$work/"
    cp "$graphs/$module"@*.symbols.json "$work/" 2>/dev/null || true
    log=$("$DOCC" convert "$folder/$module.docc" --additional-symbol-graph-dir "$work" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.marbles.$module" \
        --output-path ".build/docs/$module.doccarchive" 2>&1) || { printf '%s\n' "$log"; status=1; }
    warnings=$(printf '%s\n' "$log" | grep -cE 'warning:|error:' || true)
    echo "$module: .build/docs/$module.doccarchive ($warnings warnings)"
    if [ "$warnings" != 0 ]; then printf '%s\n' "$log" | grep -E -A3 'warning:|error:'; status=1; fi
    rm -rf "$work"
done
exit $status
