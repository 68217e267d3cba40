# The README's commands. `make test` installs what the build needs, then runs every test.
SWIFT ?= swift

.PHONY: test test-tsan deps bench diagrams clean

deps:
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH: install Swift 6 (https://swift.org/install)"; exit 2; }

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Concurrency tests under ThreadSanitizer (separate build folder, so the normal build stays warm).
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter "Concurrency"

bench: deps
	cd Benchmarks && $(SWIFT) run -c release MarblesBenchmarks

clean:
	rm -rf .build .build-tsan Benchmarks/.build
