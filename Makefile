# The README's commands. Everything else lives in CMake and scripts/.
#
#   make demo        the main job: real scanners (GuardDog, YARA) behind bwrap on the sample
#                    packages in examples/, with findings and a verdict for each
#   make test        install what the tests need, build, and run every test: the release
#                    build, the ASan/UBSan build, the fence, and a bounded fuzzing run; first,
#                    the address guard (scripts/check-addresses.py) and the docs guard
#                    (scripts/check-docs.py)
#   make bench       the benchmarks, each beside its anchor
#   make fuzz-long   fuzz each target for FUZZ_SECONDS (default 3600)
#   make images      each installed scanner's room and its sandbox image, for podman and
#                    (when a daemon answers at $DOCKER_HOST) docker: the `oci` runtime's images

FUZZ_SECONDS ?= 60
JOBS ?= 2

.PHONY: demo scanners peers test addresses docs-check deps images build-release build-asan build-fuzz test-release test-asan fence fuzz fuzz-long bench clean

demo:
	./scripts/demo.sh

test: deps scanners peers addresses docs-check test-release test-asan fence fuzz
	@echo "make test: every stage passed"

deps:
	./scripts/install-deps.sh

scanners: deps
	./scripts/install-scanners.sh

# The test peers that are no Debian package, each built once from the Go module proxy (or,
# for the SARIF validator, fetched from the npm registry and checked against its pinned
# integrity) and cached by version under /opt/batlehub/peers: versitygw, the S3 server the
# storage tests use; SARIF Multitool, the validator the SARIF test runs; kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kubectl and helm,
# the local cluster the kubernetes runtime's tests run pods on (cold: ~25 min on 2 cores).
peers: deps
	./scripts/install-peers.sh
	./scripts/install-kubernetes.sh

# No test, bench, example or script names an address outside this machine.
addresses:
	python3 scripts/check-addresses.py

# Every configuration key, probe check, metric and repository file the docs name exists in
# the code.
docs-check:
	python3 scripts/check-docs.py

build-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

build-fuzz: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

# Each ctest run then says what it skipped and why. The release build must skip no wall
# test where bwrap runs (scripts/ctest-skips.py --walls-here); the ASan build cannot run
# them (its agent is not static) and says so.
test-release: build-release
	rc=0; ctest --preset release --output-junit $(CURDIR)/build/release/ctest-junit.xml || rc=$$?; \
	walls=; bwrap --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null && walls=--walls-here; \
	python3 scripts/ctest-skips.py build/release/ctest-junit.xml $$walls || rc=1; exit $$rc

test-asan: build-asan
	rc=0; ctest --preset asan --output-junit $(CURDIR)/build/asan/ctest-junit.xml || rc=$$?; \
	python3 scripts/ctest-skips.py build/asan/ctest-junit.xml || rc=1; exit $$rc

fence: build-release
	./scripts/check-fence.sh build/release

fuzz: build-fuzz
	./scripts/fuzz.sh build/fuzz $(FUZZ_SECONDS)

fuzz-long: build-fuzz
	./scripts/fuzz.sh build/fuzz $${FUZZ_SECONDS:-3600}

bench: build-release
	./bench/run.sh build/release

# A scanner's image holds the agent and the scanner, nothing of the worker; the worker's image
# holds batlehub, bwrap and the rooms (scripts/build-worker-image.py).
images: deps scanners
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target batlehub batlehub-sandbox batlehub-signals batlehub-behavior
	./scripts/build-images.sh $(if $(REGISTRY),--registry $(REGISTRY))

clean:
	rm -rf build
