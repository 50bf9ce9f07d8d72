#!/usr/bin/env bash
# The whole differential suite on the CUDA device, for a machine with an NVIDIA GPU and driver
# (CI has none: it only compiles every snippet's kernels with NVRTC). Builds if needed, then
# runs every snippet through tg on CUDA and compares with tinygrad 0.9.1 on CLANG; also runs
# the CUDA runtime unit tests, which need a device (among them a one-process NCCL communicator
# moving a buffer GPU to GPU, CudaNccl.*). Exit 1 when anything failed.
#   bash scripts/gpu-check.sh [-k PATTERN]...
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
BUILD="${BUILD:-build}"
TG_PYTHON="${TG_PYTHON:-.venv/bin/python}"
[[ -x $BUILD/bin/tg-run ]] || bash scripts/make.sh build || exit 1
if [[ ! -e /dev/nvidia0 ]] && ! ls /dev/nvidia* >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA device here (/dev/nvidia*); nothing to check" >&2
  exit 1
fi
status=0
"$BUILD/bin/tg-unit-tests" --gtest_filter='Cuda*:*CUDA*' --gtest_brief=1 || status=1
"$TG_PYTHON" tests/diff/run.py -j"${DIFF_JOBS:-4}" --bin "$BUILD/bin" --device CUDA --work "$BUILD/diff-cuda" "$@" ||
  status=1
exit $status
