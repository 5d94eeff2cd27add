# The README's commands. Everything else lives in CMake and scripts/.
#
#   make demo        the main job: real scanners (GuardDog, YARA) behind bwrap on the sample
#                    packages in examples/, with findings and a verdict for each
#   make test        install what the tests need, build, and run every test: the release
#                    build, the ASan/UBSan build, the fence, and a bounded fuzzing run; first,
#                    the address guard (scripts/check-addresses.py)
#   make bench       the benchmarks, each beside its anchor
#   make fuzz-long   fuzz each target for FUZZ_SECONDS (default 3600)

FUZZ_SECONDS ?= 60
JOBS ?= 2

.PHONY: demo scanners test addresses deps build-release build-asan build-fuzz test-release test-asan fence fuzz fuzz-long bench clean

demo:
	./scripts/demo.sh

test: deps scanners addresses test-release test-asan fence fuzz
	@echo "make test: every stage passed"

deps:
	./scripts/install-deps.sh

scanners: deps
	./scripts/install-scanners.sh

# No test, bench, example or script names an address outside this machine.
addresses:
	python3 scripts/check-addresses.py

build-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

build-fuzz: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

test-release: build-release
	ctest --preset release

test-asan: build-asan
	ctest --preset asan

fence: build-release
	./scripts/check-fence.sh build/release

fuzz: build-fuzz
	./scripts/fuzz.sh build/fuzz $(FUZZ_SECONDS)

fuzz-long: build-fuzz
	./scripts/fuzz.sh build/fuzz $${FUZZ_SECONDS:-3600}

bench: build-release
	./bench/run.sh build/release

clean:
	rm -rf build
