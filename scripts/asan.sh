#!/usr/bin/env bash
# make asan: builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (clang, in
# build-asan/) and runs the unit and Bats tests on those binaries. A sanitizer report (an
# out-of-bounds access, use after free, leak, or undefined behaviour) ends the process with an
# error, so the test that hit it fails. The differential suite is left out: it would run the same
# tool code as the Bats tests for 20+ minutes more under the sanitizers.
#   bash scripts/asan.sh [unit|cli|unit+cli]   (default unit+cli)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${TG_ASAN_BUILD:-build-asan}"
if [[ ! -f $BUILD/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -G Ninja -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTG_SANITIZE=address,undefined >/dev/null || exit 1
fi
ninja -C "$BUILD" -j"${JOBS:-2}" | grep -v '^\[' || true
[[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "asan: build failed" >&2; exit 1; }

# Leaks in the OpenCL platform (PoCL) and in LLVM's global state are theirs, not ours.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan-suppressions.txt:print_suppressions=0"
# use_sigaltstack=0: LLVM (the LLVM device) installs its own larger signal stack, and ASan would
# unmap that one, not its own, when a thread exits.
export ASAN_OPTIONS="detect_leaks=1:use_sigaltstack=0:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Tools run slower under the sanitizers: give each Bats tool call more time.
export TG_CMD_TIMEOUT=180 BATS_TEST_TIMEOUT=400
BUILD="$BUILD" bash scripts/test.sh "${1:-unit+cli}"
