#!/usr/bin/env bash
# Runs the test layers and sums them: unit (GoogleTest, build/bin/tg-unit-tests), cli (Bats,
# tests/cli), diff (tests/diff/run.py against tinygrad 0.9.1), src (GPU and CUDA kernel sources
# against tinygrad's, tests/diff/gpu_source.py), ops (tinygrad 0.9.1's test_ops.py ported to snippets,
# tests/test_ops/, through the same runner on CLANG) and onnx (ONNX's node and model tests,
# tests/onnx/run.py). Every layer runs even when
# an earlier one failed; the last line is `N passed, N failed` over all of them, and the
# exit status is 1 when any test failed or a layer could not run.
#   bash scripts/test.sh [all|unit+cli|unit|cli|diff|src|ops|onnx]
# Environment: BUILD (default build), TG_PYTHON (default .venv/bin/python), DIFF_JOBS (2),
# TG_DIFF_DEVICES (the devices the diff layer runs on, comma-separated, NAME:compile to only
# compile there; default CLANG,LLVM,GPU plus CUDA:compile where NVRTC is installed).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
BUILD="${BUILD:-build}"
TG_PYTHON="${TG_PYTHON:-.venv/bin/python}"
LOGS="$BUILD/test-logs"
mkdir -p "$LOGS"
TG_BIN="$(cd "$BUILD" && pwd)/bin" # the Bats helpers put this first on PATH
export TG_BIN
export BATS_TEST_TIMEOUT="${BATS_TEST_TIMEOUT:-120}" # seconds per Bats test: a hung tool fails, not CI

total_pass=0 total_fail=0 broken=0
summary=()

count() { # layer passed failed [note]
  total_pass=$((total_pass + $2)) total_fail=$((total_fail + $3))
  summary+=("$(printf '%-5s %4d passed %4d failed%s' "$1" "$2" "$3" "${4:+  ($4)}")")
}

run_unit() {
  local exe="$BUILD/bin/tg-unit-tests" log="$LOGS/unit.log"
  echo "== unit: $exe"
  if [[ ! -x $exe ]]; then
    if compgen -G "tests/unit/*.cpp" >/dev/null; then
      echo "unit: $exe was not built"; count unit 0 1 "not built"; broken=1
    else
      count unit 0 0 "no unit tests"
    fi
    return
  fi
  "$exe" --gtest_color=no 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  # LeakSanitizer's own tracer sometimes crashes at exit while it scans a live thread's TLS
  # ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error", in about one run
  # of four under make asan, after every test passed). That is no finding about tg, so the run is
  # repeated, up to four more times; a leak report or a failed test still fails at once.
  local tries=0
  while ((rc != 0 && tries < 4)) && grep -q '^\[  PASSED  \]' "$log" &&
    grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
    ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$log"; do
    echo "unit: LeakSanitizer's tracer crashed after the tests passed; running them again"
    "$exe" --gtest_color=no 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]} tries=$((tries + 1))
  done
  local passed failed
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below:.*/\1/p' "$log" | tail -1)
  passed=${passed:-0} failed=${failed:-0}
  if ((rc != 0 && failed == 0)); then # crashed before its summary
    count unit "$passed" 1 "exited $rc"; broken=1
  else
    count unit "$passed" "$failed"
  fi
}

run_cli() {
  local log="$LOGS/cli.log"
  echo "== cli: bats tests/cli"
  bats --tap tests/cli 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local ok notok skipped
  ok=$(grep -c '^ok ' "$log")
  skipped=$(grep -c '^ok .* # skip' "$log")
  notok=$(grep -c '^not ok ' "$log")
  if ((rc != 0 && notok == 0)); then
    count cli $((ok - skipped)) 1 "bats exited $rc"; broken=1
  else
    count cli $((ok - skipped)) "$notok" "$( ((skipped)) && echo "$skipped skipped")"
  fi
}

# The last `PREFIX: N passed, M failed ...` line a runner printed into LOG.
summary_line() { grep -E "^$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -1; }

# Counts a runner's summary LINE for LAYER; no line, or a non-zero exit with no failure
# counted, is one failure (the runner broke).
tally() { # layer prefix line rc [note]
  local passed failed
  passed=$(sed -E "s/^$2: ([0-9]+) passed.*/\1/" <<<"$3")
  failed=$(sed -E "s/^$2: [0-9]+ passed, ([0-9]+) failed.*/\1/" <<<"$3")
  if [[ -z $3 ]] || (($4 != 0 && ${failed:-0} == 0)); then
    count "$1" "${passed:-0}" 1 "runner exited $4"; broken=1
  else
    count "$1" "$passed" "$failed" "${5:-}"
  fi
}

diff_devices() {
  if [[ -n ${TG_DIFF_DEVICES:-} ]]; then echo "$TG_DIFF_DEVICES"; return; fi
  local devices=CLANG,LLVM,GPU
  # CUDA kernels compile with NVRTC (no GPU needed); it comes with the CUDA toolkit.
  if ldconfig -p 2>/dev/null | grep -q libnvrtc || compgen -G "/usr/local/cuda/lib64/libnvrtc.so*" >/dev/null; then
    devices+=,CUDA:compile
  else
    echo "diff: NVRTC not found: CUDA kernels are not compiled (install the CUDA toolkit)" >&2
  fi
  echo "$devices"
}

run_diff() { # [layer snippet-dir device-list]
  local layer=${1:-diff} dir=${2:-} devices=${3:-}
  local log="$LOGS/$layer.log" extra=()
  [[ -n $devices ]] || devices=$(diff_devices)
  [[ -n $dir ]] && extra=(--snippets "$dir" --work "$BUILD/$layer")
  echo "== $layer: $TG_PYTHON tests/diff/run.py -j${DIFF_JOBS:-2} --device $devices ${extra[*]}"
  if [[ ! -x $TG_PYTHON ]]; then
    echo "$layer: $TG_PYTHON is missing (run scripts/setup.sh)"; count "$layer" 0 1 "no venv"; broken=1
    return
  fi
  "$TG_PYTHON" tests/diff/run.py -j"${DIFF_JOBS:-2}" --bin "$BUILD/bin" --device "$devices" "${extra[@]}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} line xfails
  line=$(summary_line diff "$log")
  xfails=$(sed -nE 's/.*\(([0-9]+) expected differences\).*/\1/p' <<<"$line")
  tally "$layer" diff "$line" "$rc" "${xfails:+$xfails expected differences}"
}

# test_ops.py's cases (scripts/gen_test_ops.py; tests/test_ops/unsupported.txt lists the ones
# the port does not run) on CLANG
run_ops() { run_diff ops tests/test_ops/snippets "${TG_OPS_DEVICES:-CLANG}"; }

# GPU and CUDA kernel sources against tinygrad 0.9.1 (GPU=1 on PoCL; its CUDA renderer), text for
# text (tests/diff/gpu_source.py); only where the diff layer runs GPU
run_src() {
  local log="$LOGS/src.log"
  [[ ,$(diff_devices 2>/dev/null), == *,GPU,* ]] || { count src 0 0 "GPU not among the diff devices"; return; }
  echo "== src: $TG_PYTHON tests/diff/gpu_source.py -j${DIFF_JOBS:-2}"
  if [[ ! -x $TG_PYTHON ]]; then
    echo "src: $TG_PYTHON is missing (run scripts/setup.sh)"; count src 0 1 "no venv"; broken=1
    return
  fi
  "$TG_PYTHON" tests/diff/gpu_source.py -j"${DIFF_JOBS:-2}" --bin "$BUILD/bin" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  tally src src "$(summary_line src "$log")" "$rc" "GPU and CUDA kernels byte-identical to tinygrad's"
}

# ONNX's backend node and model-level tests (Debian's libonnx-testdata) through tg-trace model.onnx; the ones in
# tests/onnx/passing.txt must pass (tests/onnx/run.py)
run_onnx() {
  local log="$LOGS/onnx.log"
  echo "== onnx: $TG_PYTHON tests/onnx/run.py -j${DIFF_JOBS:-2}"
  if [[ ! -x $TG_PYTHON ]]; then
    echo "onnx: $TG_PYTHON is missing (run scripts/setup.sh)"; count onnx 0 1 "no venv"; broken=1
    return
  fi
  "$TG_PYTHON" tests/onnx/run.py -j"${DIFF_JOBS:-2}" --bin "$BUILD/bin" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} line total
  line=$(summary_line onnx "$log")
  total=$(sed -nE 's/.*\(([0-9]+\/[0-9]+) tests pass\).*/\1/p' <<<"$line")
  tally onnx onnx "$line" "$rc" "${total:+$total ONNX backend tests}"
}

case "${1:-all}" in
  all) run_unit; run_cli; run_diff; run_src; run_ops; run_onnx ;;
  unit+cli) run_unit; run_cli ;;
  unit) run_unit ;;
  cli) run_cli ;;
  diff) run_diff ;;
  src) run_src ;;
  ops) run_ops ;;
  onnx) run_onnx ;;
  *) echo "usage: scripts/test.sh [all|unit+cli|unit|cli|diff|src|ops|onnx]" >&2; exit 2 ;;
esac

echo "== summary (logs in $LOGS/)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
((total_fail == 0 && broken == 0))
