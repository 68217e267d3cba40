#!/usr/bin/env bash
# Copies the operator gallery's specs (diagrams/*.marble) into the playground's resources
# (Sources/MarblePlayground/Resources/gallery/), which SwiftPM bundles beside marbleplay.
# `--check` writes nothing and fails when the copies differ from the specs.
set -euo pipefail
cd "$(dirname "$0")/.."
target=Sources/MarblePlayground/Resources/gallery
if [ "${1:-}" = "--check" ]; then
    if ! diff -rq diagrams "$target" -x '*.png' -x '*.svg' -x '*.pdf' >/dev/null 2>&1; then
        echo "$target is out of date: run make diagrams"
        exit 1
    fi
    exit 0
fi
rm -rf "$target"
mkdir -p "$target"
cp diagrams/*.marble "$target"/
