#!/usr/bin/env bash
# Idempotent set-up for tg on Debian 12, run as root: installs the Debian packages that are
# missing (and only those), then creates the test-only virtual environment .venv with numpy
# and tinygrad 0.9.1 (the oracle of the differential tests). A second run does nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'setup: %s\n' "$*"; }

PACKAGES=(
  build-essential make cmake ninja-build g++ clang llvm-15-dev liblld-15-dev libcli11-dev libcereal-dev
  bats googletest libgtest-dev python3 python3-venv python3-pip ccache jq graphviz man-db zlib1g-dev libssl-dev
  libonnx-dev libprotobuf-dev libonnx-testdata
  opencl-headers ocl-icd-libopencl1 ocl-icd-opencl-dev pocl-opencl-icd
  libopenmpi-dev openmpi-bin
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { say "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "packages installed"
else
  say "Debian packages: all present"
fi

# The test venv: numpy, tinygrad==0.9.1 and safetensors (the oracle and its file formats),
# scikit-learn (its 8x8 digits are the training example's dataset), onnx (reads the ONNX
# conformance tests' .pb tensors and builds test models) and onnxruntime (the oracle for whole
# ONNX networks).
VENV="$ROOT/.venv"
venv_ok() {
  [[ -x "$VENV/bin/python" ]] &&
    "$VENV/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as md, numpy, tinygrad, safetensors, sklearn, onnx, onnxruntime
assert md.version("tinygrad") == "0.9.1"
PY
}

if venv_ok; then
  say "test venv .venv: ready"
else
  if [[ ! -x "$VENV/bin/python" ]]; then
    say "creating test venv .venv"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
  fi
  say "installing numpy, tinygrad==0.9.1, safetensors, scikit-learn, onnx and onnxruntime into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check numpy tinygrad==0.9.1 safetensors scikit-learn \
    onnx==1.14.1 onnxruntime
  venv_ok || { say "the test venv is still not usable (import numpy, tinygrad, safetensors, sklearn, onnx, onnxruntime failed)" >&2; exit 1; }
  say "test venv .venv: ready"
fi
