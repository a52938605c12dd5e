# Short commands over CMake. Everything builds out of tree:
#   build/      release (the CLI is build/g16, the library build/libg16.a)
#   build-san/  AddressSanitizer + UndefinedBehaviorSanitizer, for the test suite
#
#   make          build
#   make demo     install what is missing, build, run the built-in example
#   make test     install what is missing, build both ways, run every test
#   make bench    the CPU benchmarks
#   make fuzz-smoke  fuzz the file readers for FUZZ_SECONDS (20) each (clang, build-fuzz/)
#   make gpu      on a machine with a GPU: build, GPU tests and GPU benchmarks, one table
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build build-san deps-build deps-test demo test test-release test-san bench gpu clean

all: build

build:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build -j $(JOBS)

# The sanitizer build leaves CUDA out: no GPU code runs under ASan here.
build-san:
	cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Debug -DG16_SANITIZE=ON -DG16_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build build-san -j $(JOBS)

deps-build:
	tools/install-deps.sh build

deps-test:
	tools/install-deps.sh test

# The built-in example: SHA-256 of one block (circom circuit, snarkjs key) in
# tests/fixtures/sha256, proved and verified by g16.
DEMO = tests/fixtures/sha256
demo: deps-build build
	build/g16 selftest
	build/g16 prove $(DEMO)/circuit.zkey $(DEMO)/witness.wtns build/demo-proof.json build/demo-public.json \
	  --trace build/demo.trace
	build/g16 verify $(DEMO)/verification_key.json build/demo-public.json build/demo-proof.json
	build/g16 trace report build/demo.trace

# G16_REQUIRE_NOBLE turns a missing reference implementation into a failure, not a skip;
# G16_REQUIRE_CHROMIUM does the same for the browser that renders the timeline pictures,
# G16_REQUIRE_POSTGRES for the PostgreSQL server the job store's tests start.
test: deps-test
	$(MAKE) test-release test-san
	$(MAKE) fuzz-smoke

# The daemon is part of what `make test` checks: G16_DAEMON=ON fails the build when its
# libraries are missing instead of leaving it out; G16_REQUIRE_POSTGRES makes the
# PostgreSQL tests fail, not skip, without the server.
test-release:
	$(MAKE) build CMAKE_FLAGS="$(CMAKE_FLAGS) -DG16_DAEMON=ON"
	cd build && G16_REQUIRE_NOBLE=1 G16_REQUIRE_CHROMIUM=1 G16_REQUIRE_POSTGRES=1 ctest --output-on-failure -j $(JOBS)

test-san:
	$(MAKE) build-san CMAKE_FLAGS="$(CMAKE_FLAGS) -DG16_DAEMON=ON"
	cd build-san && G16_REQUIRE_NOBLE=1 G16_REQUIRE_CHROMIUM=1 G16_REQUIRE_POSTGRES=1 ctest --output-on-failure -j $(JOBS)

# The readers of untrusted input (.zkey/.wtns/.r1cs/g16k, the proof and key files of
# `g16 verify`, traces, the daemon's job submissions and config files) under libFuzzer
# (clang, ASan + UBSan) in build-fuzz/: FUZZ_SECONDS per target, starting from valid
# inputs (g16's writers, the snarkjs fixtures, tests/fuzz/seeds). The
# corpus grows across runs in build-fuzz/corpus/; a crash leaves its input in
# build-fuzz/artifacts/ and fails the target.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS = zkey wtns r1cs native_key json trace daemon
.PHONY: fuzz-smoke
fuzz-smoke:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DG16_FUZZ=ON -DG16_CUDA=OFF -DG16_ASM=OFF $(CMAKE_FLAGS)
	cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS)) fuzz_seeds seeds_native_key seeds_text
	rm -rf build-fuzz/seeds && build-fuzz/fuzz_seeds --write-seeds build-fuzz/seeds
	build-fuzz/seeds_native_key build-fuzz/seeds/native_key
	build-fuzz/seeds_text build-fuzz/seeds tests/fixtures
	cp tests/fuzz/seeds/*.trace build-fuzz/seeds/trace/
	cp -r tests/fuzz/seeds/daemon build-fuzz/seeds/
	@mkdir -p build-fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; \
	  build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=build-fuzz/artifacts/$$t- build-fuzz/corpus/$$t build-fuzz/seeds/$$t \
	    > build-fuzz/fuzz_$$t.log 2>&1 || { tail -40 build-fuzz/fuzz_$$t.log; \
	    echo "fuzz_$$t: FAILED, see build-fuzz/fuzz_$$t.log and build-fuzz/artifacts/"; exit 1; }; \
	  echo "fuzz_$$t: $$(sed -n 's/^stat::number_of_executed_units: *//p' build-fuzz/fuzz_$$t.log) runs" \
	    "in $(FUZZ_SECONDS) s, corpus $$(ls build-fuzz/corpus/$$t | wc -l) inputs, no failure"; \
	done

bench: build
	build/bench_arith

gpu:
	bench/gpu_run.sh

clean:
	rm -rf build build-san build-gpu
