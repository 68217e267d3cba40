# The README's commands. Each installs what the build needs (Cairo, Pango, pkg-config, and the
# fonts diagrams use: DejaVu Sans, WenQuanYi Micro Hei for CJK, Noto Color Emoji) through
# apt-get when it is missing, then builds and runs.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
MARBLEGEN := .build/debug/marblegen
# The package's traits: the command-line programs (Tools) and OpenCombine for MarblesCombine off
# Apple platforms. Off by default so that dependents fetch neither; this repository builds both.
TRAITS := --traits Tools,OpenCombine

.PHONY: code-blocks stress-mixed test-release-layout bench-ab bench-allocs bench-instructions bench-peers server-check server-own-tests consumer-check diagrams test test-tsan test-asan asan-soak interposer-check examples examples-tsan check-diagrams lint docs deps plugin-check bench bench-debug fuzz stress stress-tsan clean \
	playground playground-deps playground-e2e playground-load playground-load-debug playground-screenshot attachment-screenshot font-metrics

deps:
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH: install Swift 6 (https://swift.org/install)"; exit 2; }
	@missing=""; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	pkg-config --exists cairo 2>/dev/null || missing="$$missing libcairo2-dev"; \
	pkg-config --exists pangocairo 2>/dev/null || missing="$$missing libpango1.0-dev"; \
	{ command -v fc-match >/dev/null && fc-match "DejaVu Sans" | grep -q DejaVu; } || missing="$$missing fonts-dejavu-core fontconfig"; \
	{ command -v fc-list >/dev/null && fc-list | grep -q "Noto Color Emoji"; } || missing="$$missing fonts-noto-color-emoji"; \
	{ command -v fc-list >/dev/null && fc-list | grep -q "WenQuanYi Micro Hei"; } || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# Render the operator gallery (diagrams/*.marble → PNG + SVG beside each spec).
diagrams: deps
	$(SWIFT) build $(TRAITS) --product marblegen
	$(MARBLEGEN) render diagrams
	$(MARBLEGEN) render docs --format png
	$(MARBLEGEN) render docs/hard-cases --format png
	$(MARBLEGEN) markdown README.md --images docs/readme
	MARBLEGEN=$(MARBLEGEN) bash scripts/docc-gallery.sh
	bash scripts/playground-gallery.sh

# The mixed suite (main-actor models answered from other threads, async and real-time tests side
# by side) runs first on its own under --parallel, then with everything else.
MIXED_FILTER := MixedParallelSuite|MainActorReturnsTests
test: deps
	$(SWIFT) build $(TRAITS) --build-tests
	$(SWIFT) test $(TRAITS) --skip-build --parallel --filter "$(MIXED_FILTER)"
	SWIFT=$(SWIFT) TRAITS="$(TRAITS)" bash scripts/parallel-neighbours.sh
	$(SWIFT) test $(TRAITS) --skip-build

# The examples package (Examples/): code as apps write it (a @MainActor @Observable model with
# Task.sleep, a Combine view model on AnySchedulerOf<DispatchQueue>, async-algorithms' debounce in
# a Task, an actor sleeping with Task.sleep(nanoseconds:)), each with marble tests.
examples: deps
	cd Examples && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build --parallel

examples-tsan: deps
	cd Examples && $(SWIFT) test --sanitize=thread --scratch-path .build-tsan

# The runtime, concurrency and engine tests under AddressSanitizer (CI: bounded to these suites;
# make asan-soak repeats them). A report fails the run.
ASAN_FILTER := Concurrency|Reliability|MarblesAsyncTests|MarbleCoreTests
# The sanitizer runs build only the test targets they run (MarbleCoreTests, MarblesAsyncTests;
# see the end of Package.swift) and no trait (neither needs one): 107 s for a clean TSan build
# against 159 s for every test target with both traits.
SANITIZED := MARBLES_SANITIZER_TESTS=1
test-asan: deps
	$(SANITIZED) ASAN_OPTIONS="halt_on_error=1 detect_leaks=0" $(SWIFT) test --sanitize=address --scratch-path .build-asan --filter "$(ASAN_FILTER)"

ASAN_SOAK_ROUNDS ?= 20
asan-soak: deps
	$(SANITIZED) $(SWIFT) build --sanitize=address --scratch-path .build-asan --build-tests
	for i in $$(seq $(ASAN_SOAK_ROUNDS)); do \
		$(SANITIZED) ASAN_OPTIONS="halt_on_error=1 detect_leaks=0" $(SWIFT) test --sanitize=address --scratch-path .build-asan --skip-build --parallel --filter "$(ASAN_FILTER)" || exit 1; \
	done

# State kept inline at a fixed place is where it is read from, checked in a release build (the
# inits assert it in debug builds only). MarbleCore's own check, run by the stress program: a
# release build of MarbleCore alone, not of every test target (CI: about 5 minutes less).
test-release-layout: deps
	$(SWIFT) build $(TRAITS) -c release --scratch-path .build-release --product MarblesStress
	.build-release/release/MarblesStress --check-layout

# The libc interposer (clock_gettime, dispatch_after_f) reaches test executables only: the
# command-line tools keep libc's.
interposer-check:
	$(SWIFT) build $(TRAITS) --product marblegen
	$(SWIFT) build $(TRAITS) --product marbleplay
	@for tool in marblegen marbleplay; do \
		if nm --defined-only .build/debug/$$tool | grep -wE 'clock_gettime|dispatch_after_f|nanosleep|pthread_cond_wait|dispatch_semaphore_wait'; then \
			echo "$$tool defines the test-only clock interposer"; exit 1; fi; \
	done; echo "marblegen and marbleplay keep libc's clocks, sleeps and waits, and libdispatch's"

# Concurrency and async tests under ThreadSanitizer (separate build folder, so the normal build stays warm).
test-tsan: deps
	$(SANITIZED) $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter "Concurrency|Reliability|MarblesAsyncTests"

# The parser/printer property tests and the tuned-against-reference parser check at 10^6 inputs, and the engine laws at 10^5 cases each, release
# build (CI runs 2*10^4 and 100 in debug).
fuzz: deps
	MARBLES_FUZZ_COUNT=1000000 $(SWIFT) test $(TRAITS) -c release --scratch-path .build-release --filter "ParserPrinterFuzz|ReferenceParser"
	MARBLES_PROPERTY_COUNT=100000 $(SWIFT) test $(TRAITS) -c release --scratch-path .build-release --filter EngineLawTests

# The stress program: every thread-crossing operator from 8 threads for 10 minutes, release
# build, the Rx grammar checked by atomics (exit 1 on a stall or violation).
STRESS_SECONDS ?= 600
stress: stress-mixed
	$(SWIFT) run $(TRAITS) -c release --scratch-path .build-release MarblesStress --seconds $(STRESS_SECONDS) --threads 8

# The mixed suite again and again under --parallel (issue 58: no lost result, crash or hang).
MIXED_ROUNDS ?= 20
stress-mixed: deps
	$(SWIFT) build $(TRAITS) --build-tests
	for i in $$(seq $(MIXED_ROUNDS)); do \
		timeout 300 $(SWIFT) test $(TRAITS) --skip-build --parallel --filter "$(MIXED_FILTER)" >/dev/null 2>&1 \
			|| { echo "round $$i failed"; $(SWIFT) test $(TRAITS) --skip-build --parallel --filter "$(MIXED_FILTER)" 2>&1 | tail -40; exit 1; }; \
		echo "round $$i passed"; \
	done

# A shorter stress run under ThreadSanitizer (CI); any report fails the run.
STRESS_TSAN_SECONDS ?= 20
stress-tsan:
	$(SWIFT) build $(TRAITS) --sanitize=thread --scratch-path .build-tsan --product MarblesStress
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/debug/MarblesStress --seconds $(STRESS_TSAN_SECONDS) --threads 4

# The gallery is current and its expectations hold.
check-diagrams: deps
	$(SWIFT) build $(TRAITS) --product marblegen
	$(MARBLEGEN) verify diagrams
	$(MARBLEGEN) check diagrams
	$(MARBLEGEN) check docs --format png
	$(MARBLEGEN) check docs/hard-cases --format png
	$(MARBLEGEN) markdown README.md --images docs/readme --check
	MARBLEGEN=$(MARBLEGEN) bash scripts/docc-gallery.sh --check
	bash scripts/playground-gallery.sh --check

# The SwiftPM command plugin runs the CLI for users who depend on the package.
plugin-check: deps
	$(SWIFT) package $(TRAITS) --allow-writing-to-package-directory marblegen check docs/hard-cases --format png
	# verify asks for no permission: with none given, SwiftPM would refuse a plugin that wants one.
	$(SWIFT) package $(TRAITS) marblegen-verify diagrams </dev/null

# A package that depends only on MarblesTesting: resolves to Marbles alone, builds clean (the
# time is printed) and its test passes.
consumer-check:
	SWIFT=$(SWIFT) bash scripts/consumer-check.sh

# Formatting, from the checked-in .swift-format (swift-format ships with the toolchain), and
# no function in Sources over 60 lines.
lint:
	$(SWIFT) format lint --strict --configuration .swift-format -r Sources Tests Benchmarks/Sources Plugins Package.swift Examples/Sources Examples/Tests Examples/Package.swift
	python3 scripts/long-functions.py 60
	python3 scripts/unsafe-ledger.py
	python3 scripts/module-picture.py --check
	SWIFT=$(SWIFT) python3 scripts/code-blocks.py --check

# The README's and the async DocC article's Swift blocks, written again as tests
# (Tests/MarblesAsyncTests/Readme, …/DocC): run after editing a block.
code-blocks:
	python3 scripts/code-blocks.py --write

# The DocC catalogs of the library modules (.build/docs/*.doccarchive), without a DocC
# warning, and every public declaration documented.
docs: deps
	SWIFT=$(SWIFT) TRAITS="$(TRAITS)" bash scripts/docs.sh

# The live playground on the gallery's folder: prints the address (with its token) to open.
PLAYGROUND_FOLDER ?= diagrams
playground: deps
	$(SWIFT) build $(TRAITS) --product marbleplay
	.build/debug/marbleplay $(PLAYGROUND_FOLDER)

# What the browser test needs: Debian's chromium and Playwright's Python driver (which uses
# that chromium; it downloads no browser).
playground-deps:
	@command -v chromium >/dev/null || { echo "installing: chromium"; $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }
	@python3 -c "import playwright" 2>/dev/null || { echo "installing: playwright (pip)"; \
		python3 -m pip install -q playwright 2>/dev/null || python3 -m pip install -q --break-system-packages playwright; }

# The page end to end in headless Chromium; screenshots (light, dark, error) go to the folder it prints.
PLAYGROUND_ARTIFACTS ?= .build/playground-e2e
playground-e2e: deps playground-deps
	$(SWIFT) build $(TRAITS) --product marbleplay
	python3 Tests/Playground/e2e.py .build/debug/marbleplay --artifacts $(PLAYGROUND_ARTIFACTS)

# 50 clients rendering for PLAYGROUND_SECONDS on loopback (release build), then malformed requests.
PLAYGROUND_SECONDS ?= 30
PLAYGROUND_CLIENTS ?= 50
playground-load: deps
	$(SWIFT) build $(TRAITS) -c release --scratch-path .build-release --product marbleplay
	python3 Tests/Playground/load.py .build-release/release/marbleplay --clients $(PLAYGROUND_CLIENTS) --seconds $(PLAYGROUND_SECONDS)

# CI's bounded run: the debug build the tests use, 10 s.
playground-load-debug: deps
	$(SWIFT) build $(TRAITS) --product marbleplay
	python3 Tests/Playground/load.py .build/debug/marbleplay --clients $(PLAYGROUND_CLIENTS) --seconds 10

# The README's picture of the page (dark, switchLatest), taken by the browser test.
# A failing test's attached SVG (left by make consumer-check) in headless Chromium, light and
# dark, compared pixel by pixel with marblegen's Cairo drawing of its spec.
ATTACHMENT_ARTIFACTS ?= .build/attachment-screenshots
attachment-screenshot: deps playground-deps
	@ls .build/consumer-attachments/*.svg >/dev/null 2>&1 || $(MAKE) consumer-check
	$(SWIFT) build $(TRAITS) --product marblegen
	python3 Tests/Attachments/screenshot.py .build/consumer-attachments $(MARBLEGEN) --artifacts $(ATTACHMENT_ARTIFACTS)

playground-screenshot: deps playground-deps
	$(SWIFT) build $(TRAITS) --product marbleplay
	python3 Tests/Playground/e2e.py .build/debug/marbleplay --artifacts $(PLAYGROUND_ARTIFACTS) --readme-screenshot docs/playground.png

# The default font's widths, shipped as data for drawing without Cairo (MarbleDrawing), measured
# again through Pango on this machine.
font-metrics: deps
	$(SWIFT) build $(TRAITS) --build-tests
	MARBLES_WRITE_FONT_METRICS=$(CURDIR)/Sources/MarbleDrawing/Text/DejaVuSansWidths.swift $(SWIFT) test $(TRAITS) --skip-build --filter shippedWidthsArePangos
	$(SWIFT) format format -i --configuration .swift-format Sources/MarbleDrawing/Text/DejaVuSansWidths.swift

bench: deps
	cd Benchmarks && $(SWIFT) run -c release MarblesBenchmarks

# Allocations per test and per event of the harness, the timing and the higher-order operators:
# counted with ordo-one's malloc interposer preloaded (counts, not times: they do not vary).
bench-allocs: deps
	cd Benchmarks && $(SWIFT) build -c release --product MarblesAllocations
	cd Benchmarks && LD_PRELOAD=$$PWD/.build/release/libMallocInterposerSwift.so .build/release/MarblesAllocations

# Instructions per test (valgrind's callgrind): an empty run, the 10-event test and the 1,000-event
# delay test, deterministic where wall time moves by several percent. A/B: pass two builds to
# scripts/instruction-counts.sh (the base built in a worktree, as for bench-ab).
bench-instructions: deps
	cd Benchmarks && $(SWIFT) build -c release --product MarblesBenchmarks
	bash scripts/instruction-counts.sh Benchmarks/.build/release/MarblesBenchmarks

# The same app code (a @MainActor debounced search, a retry with backoff) tested with
# withVirtualTime and nothing injected, and with swift-clocks' TestClock injected.
bench-peers: deps
	cd Benchmarks && $(SWIFT) build -c release --product MarblesPeers && .build/release/MarblesPeers

# SwiftNIO on the test's clock (issue 69): Tests/ServerConsumer, a package that depends on
# swift-nio and MarblesTesting, its scheduled tasks awaited in `.virtualTime` tests (first build
# about a minute here; not in CI's fresh-clone run).
server-check: deps
	cd Tests/ServerConsumer && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build --parallel

# Hummingbird's own tests as published and with MarblesTesting linked: the same outcomes (issue 69).
server-own-tests:
	SWIFT=$(SWIFT) bash scripts/server-own-tests.sh

# A/B against another revision in one run (release, both sides alternated): make bench-ab BASE=40fe785
# (BENCH_AB_FLAGS="--single-threaded" without the idle thread both sides get: see scripts/bench-ab.py)
BASE ?= HEAD
bench-ab: deps
	rm -rf .build-ab-base && git worktree add -f .build-ab-base $(BASE)
	cd .build-ab-base/Benchmarks && $(SWIFT) build -c release --product MarblesBenchmarks
	cd Benchmarks && $(SWIFT) build -c release --product MarblesBenchmarks
	python3 scripts/bench-ab.py .build-ab-base/Benchmarks/.build/release/MarblesBenchmarks Benchmarks/.build/release/MarblesBenchmarks $(BENCH_AB_FLAGS)
	git worktree remove --force .build-ab-base

# What `swift test` users feel in a debug build: the scheduler, a small test's fixed cost, the parser.
bench-debug: deps
	cd Benchmarks && $(SWIFT) run -c debug MarblesBenchmarks --quick --only scheduler,small-test,parser

clean:
	rm -rf .build .build-tsan .build-asan .build-release Benchmarks/.build Examples/.build Examples/.build-tsan
