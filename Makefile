# Short commands over CMake. Everything builds out of tree:
#   build/      release (the CLI is build/g16, the library build/libg16.a)
#   build-san/  AddressSanitizer + UndefinedBehaviorSanitizer, for the test suite
#
#   make          build
#   make demo     install what is missing, build, run the built-in example
#   make test     install what is missing, build both ways, run every test
#   make bench    the CPU benchmarks
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

demo: deps-build build
	build/g16 selftest
	build/bench_arith --quick

# G16_REQUIRE_NOBLE turns a missing reference implementation into a failure, not a skip.
test: deps-test
	$(MAKE) test-release test-san

test-release: build
	cd build && G16_REQUIRE_NOBLE=1 ctest --output-on-failure -j $(JOBS)

test-san: build-san
	cd build-san && G16_REQUIRE_NOBLE=1 ctest --output-on-failure -j $(JOBS)

bench: build
	build/bench_arith

gpu:
	bench/gpu_run.sh

clean:
	rm -rf build build-san build-gpu
