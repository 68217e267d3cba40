#!/usr/bin/env bash
# Puts the operator gallery into MarbleCore's DocC catalog: every spec in diagrams/ rendered as a
# light and a dark (`~dark`, picked by DocC in dark mode) PNG at scale 1, and the Operator Gallery
# article that shows them. `--check` writes nothing and fails when the committed files differ.
set -euo pipefail
cd "$(dirname "$0")/.."
MARBLEGEN=${MARBLEGEN:-.build/debug/marblegen}
catalog=Sources/Core/MarbleCore.docc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/light" "$work/dark" "$work/out/Resources/gallery"
"$MARBLEGEN" render diagrams --format png --scale 1 --theme light -o "$work/light" >/dev/null
"$MARBLEGEN" render diagrams --format png --scale 1 --theme dark -o "$work/dark" >/dev/null
{
    echo "# Operator Gallery"
    echo
    echo "Every operator's diagram, computed by running the operator on the inputs in virtual time."
    echo
    echo "## Overview"
    echo
    echo "Each diagram comes from a spec in the repository's \`diagrams/\` folder; \`make diagrams\`"
    echo "renders them, and CI fails when a picture here is out of date."
    for spec in diagrams/*.marble; do
        name=$(basename "$spec" .marble)
        cp "$work/light/$name.png" "$work/out/Resources/gallery/$name.png"
        cp "$work/dark/$name.png" "$work/out/Resources/gallery/$name~dark.png"
        title=$(sed -n 's/^title: *//p' "$spec" | head -1)
        operator=$(sed -n 's/^operator: *//p' "$spec" | head -1)
        echo
        echo "### ${title:-$name}"
        echo
        echo "![The ${title:-$name} diagram: ${operator:-no operator} applied to its inputs.]($name.png)"
    done
} >"$work/out/OperatorGallery.md"
# Each operator's own page: a DocC extension file per symbol (each spec's `symbol:` line), its
# diagrams appended to the symbol's documentation.
mkdir -p "$work/out/Operators"
for spec in diagrams/*.marble; do
    symbol=$(sed -n 's/^symbol: *//p' "$spec" | head -1)
    [ -n "$symbol" ] || { echo "$spec has no symbol: line (the MarbleCore symbol whose page shows it)" >&2; exit 1; }
    echo "$(basename "$spec" .marble) $symbol"
done >"$work/symbols.txt"
awk '{ print $2 }' "$work/symbols.txt" | sort -u | while read -r symbol; do
    file="$work/out/Operators/$(printf '%s' "$symbol" | tr '/():<>.' '-_' | tr -s '_-' | sed 's/[-_]*$//').md"
    {
        echo "# \`\`MarbleCore/$symbol\`\`"
        echo
        echo "## Marble diagram"
        awk -v s="$symbol" '$2 == s { print $1 }' "$work/symbols.txt" | while read -r name; do
            title=$(sed -n 's/^title: *//p' "diagrams/$name.marble" | head -1)
            operator=$(sed -n 's/^operator: *//p' "diagrams/$name.marble" | head -1)
            echo
            echo "![The ${title:-$name} diagram: ${operator:-no operator} applied to its inputs.]($name.png)"
        done
    } >"$file"
done
if [ "${1:-}" = "--check" ]; then
    if ! diff -rq "$work/out/Resources/gallery" "$catalog/Resources/gallery" >/dev/null 2>&1 \
        || ! diff -rq "$work/out/Operators" "$catalog/Operators" >/dev/null 2>&1 \
        || ! cmp -s "$work/out/OperatorGallery.md" "$catalog/OperatorGallery.md"; then
        echo "the DocC operator gallery is out of date: run make diagrams"
        diff -rq "$work/out/Resources/gallery" "$catalog/Resources/gallery" || true
        exit 1
    fi
    echo "DocC operator gallery up to date ($(ls "$catalog/Resources/gallery" | wc -l) images)"
    exit 0
fi
rm -rf "$catalog/Resources/gallery"
mkdir -p "$catalog/Resources"
cp -r "$work/out/Resources/gallery" "$catalog/Resources/gallery"
cp "$work/out/OperatorGallery.md" "$catalog/OperatorGallery.md"
rm -rf "$catalog/Operators"
cp -r "$work/out/Operators" "$catalog/Operators"
echo "wrote $catalog/OperatorGallery.md, $(ls "$catalog/Operators" | wc -l) operator pages and $(ls "$catalog/Resources/gallery" | wc -l) images"
