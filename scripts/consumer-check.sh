#!/usr/bin/env bash
# What an app team's test target meets (make consumer-check, CI): a package that depends only on
# MarblesTesting (Tests/Consumer) resolves to Marbles and MarbleCore's one dependency,
# swift-atomics (no swift-argument-parser, FlyingFox or OpenCombine: they sit behind the Tools
# and OpenCombine traits), builds clean, and its marble tests pass; the portability note and
# MARBLES_PORTABLE=1 behave as the README says; a failing test leaves its diagram (SVG and spec)
# in `swift test --attachments-path DIR`, and the test binary links no Cairo or Pango.
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
# The async test body on virtual time (.virtualTime), its 100 cases again one after another.
"$SWIFT" test --skip-build --no-parallel --filter "VirtualTimeBodyTests" >"$work/serial.log" 2>&1 || { grep -E "✘|error" "$work/serial.log" | head -20; exit 1; }
echo "an app's async test with .virtualTime: 100 cases side by side and 100 in a row pass"
# A body that waits forever and ignores its cancellation ends its test process within seconds,
# failed, its message in the output, under a 30 s budget as a CI time limit gives.
set +e
CONSUMER_HUNG_DEMO=1 timeout 30 "$SWIFT" test --skip-build --filter hungBody >"$work/hung.log" 2>&1
status=$?
set -e
if [ $status -eq 0 ] || [ $status -eq 124 ] || ! grep -q "this test process ends here, with exit code 1" "$work/hung.log" ||
    ! grep -q "the test body was still suspended" "$work/hung.log"; then
    echo "a hung test body did not end its process with its message (exit $status):"; cat "$work/hung.log"; exit 1
fi
echo "a test body that waits forever ends its test process, failed, with its message"
# The portability note and its switch: a test whose model stamps with Date() passes on Linux with
# a warning that names Date(), and fails under MARBLES_PORTABLE=1, as it would on a Mac.
CONSUMER_PORTABILITY_DEMO=1 "$SWIFT" test --skip-build --filter stampsWithDate >"$work/demo.log" 2>&1 || { cat "$work/demo.log"; exit 1; }
grep -q "portability: the test .* read Date()" "$work/demo.log" || { echo "no portability note for Date():"; cat "$work/demo.log"; exit 1; }
if CONSUMER_PORTABILITY_DEMO=1 MARBLES_PORTABLE=1 "$SWIFT" test --skip-build --filter stampsWithDate >"$work/portable.log" 2>&1; then
    echo "under MARBLES_PORTABLE=1 the virtual-Date expectation passed; it should fail as on a Mac"; cat "$work/portable.log"; exit 1
fi
grep -q "marble diagrams differ" "$work/portable.log" || { cat "$work/portable.log"; exit 1; }
grep -q "MARBLES_PORTABLE=1 is on" "$work/portable.log" || { echo "the failure does not say portable mode is on:"; cat "$work/portable.log"; exit 1; }
grep -q "The code under test read Date()" "$work/portable.log" || { echo "the failure does not say which reads made the difference:"; cat "$work/portable.log"; exit 1; }
echo "Date() in a run: a portability note on Linux; under MARBLES_PORTABLE=1 the test fails, as on a Mac"
# Each escape left names itself (Linux): a run-loop timer in a mode the run does not drive, and a
# Dispatch timer source with a wall-clock deadline.
if [ "$(uname)" = Linux ]; then
    if CONSUMER_ESCAPE_DEMO=1 "$SWIFT" test --skip-build --filter escapesNameThemselves >"$work/escape.log" 2>&1; then
        echo "the escape demo passed; it should fail naming its escapes"; cat "$work/escape.log"; exit 1
    fi
    for text in "a run-loop timer armed at frame 2 in run-loop mode 'custom' is left to its run loop, which nothing runs in a test" \
        "a Dispatch timer source armed at frame 2 on queue 'wall-clock' runs on real time"; do
        grep -qF "$text" "$work/escape.log" || { echo "the escape demo does not say: $text"; cat "$work/escape.log"; exit 1; }
    done
    echo "escapes name themselves: a run-loop timer in mode 'custom', a wall-clock Dispatch timer source"
fi
# A failing marble test attaches its diagram: `--attachments-path` gets an SVG and a spec for the
# failing expectation and for a property's smallest failing example; MARBLES_ATTACHMENTS=0 none.
attachments="$work/attachments"
mkdir -p "$attachments"
if CONSUMER_FAILURE_DEMO=1 "$SWIFT" test --skip-build --filter "failingSearch|failingProperty" --attachments-path "$attachments" \
    >"$work/failure.log" 2>&1; then
    echo "the failure demo passed; it should fail"; cat "$work/failure.log"; exit 1
fi
ls "$attachments" >"$work/attached.txt"
for pattern in 'failingSearch.*\.svg$' 'failingSearch.*\.marble$' 'failingProperty.*smallest-failing-example\.svg$'; do
    grep -qE "$pattern" "$work/attached.txt" || { echo "no attachment matching $pattern in:"; cat "$work/attached.txt"; exit 1; }
done
svg="$attachments/$(grep -E 'failingSearch.*\.svg$' "$work/attached.txt" | head -1)"
for text in '>queries<' '>first<' '>second<' '>expected<'; do
    grep -q "$text" "$svg" || { echo "the attached SVG lacks $text:"; cat "$svg"; exit 1; }
done
echo "a failing test attached: $(tr '\n' ' ' <"$work/attached.txt")"
rm -rf "$repo/.build/consumer-attachments" && mkdir -p "$repo/.build/consumer-attachments"
cp "$attachments"/* "$repo/.build/consumer-attachments/"
off="$work/attachments-off"
mkdir -p "$off"
CONSUMER_FAILURE_DEMO=1 MARBLES_ATTACHMENTS=0 "$SWIFT" test --skip-build --filter failingSearch --attachments-path "$off" >/dev/null 2>&1 || true
[ -z "$(ls -A "$off")" ] || { echo "MARBLES_ATTACHMENTS=0 still attached: $(ls "$off")"; exit 1; }
echo "MARBLES_ATTACHMENTS=0: nothing attached"
# Drawn without Cairo: the test binary links neither Cairo nor Pango (a Mac or an iOS app has neither).
binary=$(find .build/debug/ -maxdepth 1 -name "*PackageTests.xctest" | head -1)
if [ "$(uname)" = Linux ]; then
    [ -n "$binary" ] || { echo "no test binary in .build/debug: $(ls .build/debug/)"; exit 1; }
    if ldd "$binary" | grep -Ei 'cairo|pango'; then echo "the consumer's test binary links Cairo or Pango"; exit 1; fi
    echo "the consumer's test binary links no Cairo or Pango ($(ldd "$binary" | wc -l) libraries)"
fi
