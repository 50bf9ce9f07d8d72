# tg's front door. `bash scripts/make.sh TARGET` first installs whatever is missing
# (scripts/setup.sh), then runs `make TARGET`.
#
#   make / make build   configure (CMake + Ninja) and build; the tools land in build/bin/
#   make demo           run examples/demo.tg through the pipeline on the CPU
#   make test           unit + cli + diff tests; ends with one line `N passed, N failed`
#   make unit|cli|diff|ops|onnx  one layer of the tests (ops: tinygrad's test_ops.py port; onnx: ONNX's node and model tests); `make diff DEVICE=LLVM` runs the differential
#                       suite on one device (default: CLANG, LLVM, GPU and CUDA:compile)
#   make bench          benchmarks against tinygrad 0.9.1 and numpy
#   make asan           build with ASan+UBSan (clang, build-asan/) and run the unit and cli tests
#   make fuzz           build the libFuzzer targets (build-fuzz/) and run each FUZZ_SECONDS (60),
#                       then the structure-aware struct-* targets (scripts/fuzz_struct.py on build/bin)
#   make fuzz-seeds     regenerate the fuzzers' seed corpus tests/fuzz/corpus/ from build/bin
#   make install        build, then install into PREFIX (/usr/local): the tools in bin/, their
#                       libraries in lib/tg/, man pages, bash completions; DESTDIR=/stage too
#   make format         clang-format lib/ cmd/ tests/unit/
#   make clean          remove build/, build-asan/ and build-fuzz/

BUILD   ?= build
JOBS    ?= 2
BIN     := $(BUILD)/bin
TG_PYTHON  ?= .venv/bin/python
DEVICE  ?= CLANG
PREFIX  ?= /usr/local
SHELL   := /bin/bash

.PHONY: all build demo train test unit cli diff src ops onnx bench asan fuzz fuzz-seeds install format clean

all: build

$(BUILD)/build.ninja:
	cmake -G Ninja -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: $(BUILD)/build.ninja
	ninja -C $(BUILD) -j$(JOBS)

demo: build
	@echo "tg-trace examples/demo.tg | tg-schedule | tg-codegen --device $(DEVICE) | tg-run --in x=examples/demo_x.npy"
	@set -o pipefail; $(BIN)/tg-trace examples/demo.tg | $(BIN)/tg-schedule \
	  | $(BIN)/tg-codegen --device $(DEVICE) | $(BIN)/tg-run --in x=examples/demo_x.npy

train: build
	@TG_BIN=$(BIN) TG_PYTHON=$(TG_PYTHON) bash examples/digits/train.sh $(STEPS)

test: build
	@BUILD=$(BUILD) TG_PYTHON=$(TG_PYTHON) bash scripts/test.sh all

unit cli diff src ops onnx: build
	@BUILD=$(BUILD) TG_PYTHON=$(TG_PYTHON) $(if $(filter command line environment,$(origin DEVICE)),TG_DIFF_DEVICES=$(DEVICE)) \
	  bash scripts/test.sh $@

bench: build
	$(TG_PYTHON) scripts/bench.py --bin $(BUILD)/bin

asan:
	@bash scripts/asan.sh

FUZZ_SECONDS ?= 60
fuzz: build
	@TG_FUZZ_SECONDS=$(FUZZ_SECONDS) TG_BIN=$(BIN) TG_PYTHON=$(TG_PYTHON) bash scripts/fuzz.sh

fuzz-seeds: build
	@TG_BIN=$(BIN) TG_PYTHON=$(TG_PYTHON) bash scripts/fuzz-seeds.sh

# cmake --install reads DESTDIR from the environment; --prefix overrides the configured one.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

format:
	@find lib cmd tests/unit \( -name '*.h' -o -name '*.cpp' \) -print0 2>/dev/null | xargs -0 -r clang-format -i

clean:
	rm -rf $(BUILD) build-asan build-fuzz
