#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets (tests/fuzz/*.cpp, clang with ASan+UBSan) in
# build-fuzz/ and runs each for TG_FUZZ_SECONDS (default 60) from the committed seeds
# (tests/fuzz/corpus/<target>/) plus what earlier runs found (build-fuzz/corpus/<target>/).
# Prints one line per target: executions, coverage and findings. A finding (crash, leak,
# sanitizer report, timeout, runaway memory) is saved in build-fuzz/findings/ and fails the run;
# copy it into tests/fuzz/regressions/<target>/ once fixed, so the unit tests replay it.
# The struct-* targets are scripts/fuzz_struct.py (no libFuzzer build; they need the tools in
# TG_BIN, default build/bin, from `make build`): jq-like edits of real graph, schedule, program
# and ONNX artifacts, run through every later tool. Their findings land in
# build-fuzz/findings/struct-<target>/ (a repro.sh each); once fixed, copy one into
# tests/fuzz/struct/found/, which tests/cli/fuzz_regressions.bats replays.
#   TG_FUZZ_TARGETS="graph npy"  only these targets
#   TG_FUZZ_JOBS=2               fuzzing processes per target (libFuzzer -fork)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${TG_FUZZ_BUILD:-build-fuzz}"
SECONDS_EACH="${TG_FUZZ_SECONDS:-60}"
TARGETS="${TG_FUZZ_TARGETS:-graph schedule program npy safetensors script struct-graph struct-schedule struct-program struct-onnx}"
JOBS="${TG_FUZZ_JOBS:-1}"
TG_BIN="${TG_BIN:-build/bin}"
PY="${TG_PYTHON:-.venv/bin/python}"
[[ -x $PY ]] || PY=python3 # fuzz_struct.py needs only the standard library

libfuzzer=() struct=()
for t in $TARGETS; do
  if [[ $t == struct-* ]]; then struct+=("${t#struct-}"); else libfuzzer+=("$t"); fi
done

if ((${#libfuzzer[@]})); then
  if [[ ! -f $BUILD/build.ninja ]]; then
    CC=clang CXX=clang++ cmake -G Ninja -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTG_FUZZ=ON >/dev/null || exit 1
  fi
  ninja -C "$BUILD" -j2 $(for t in "${libfuzzer[@]}"; do echo "fuzz-$t"; done) | grep -v '^\[' || true
  [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "fuzz: build failed" >&2; exit 1; }
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
failed=0
for t in "${libfuzzer[@]}"; do
  work="$BUILD/corpus/$t" findings="$BUILD/findings/$t"
  mkdir -p "$work" "$findings"
  before="$(find "$findings" -type f | wc -l)"
  log="$BUILD/fuzz-$t.log"
  fork=()
  [[ $JOBS -gt 1 ]] && fork=(-fork="$JOBS" -ignore_crashes=0)
  "$BUILD/bin/fuzz-$t" "$work" "tests/fuzz/corpus/$t" -max_total_time="$SECONDS_EACH" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 "${fork[@]}" \
    -artifact_prefix="$findings/" >"$log" 2>&1
  rc=$?
  runs="$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)"
  cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)"
  corpus="$(find "$work" -type f | wc -l)"
  found=$(($(find "$findings" -type f | wc -l) - before)) # new this run
  printf 'fuzz-%-12s %ss  %s executions  %s  corpus %s  findings %s\n' \
    "$t" "$SECONDS_EACH" "${runs:-?}" "${cov:-cov: ?}" "$corpus" "$found"
  if [[ $rc -ne 0 || $found -gt 0 ]]; then
    failed=1
    grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" | sed 's/^/    /'
  fi
done
for t in "${struct[@]}"; do
  [[ -x $TG_BIN/tg-run ]] || { echo "fuzz-struct-$t: no $TG_BIN/tg-run (make build)"; failed=1; continue; }
  mkdir -p "$BUILD"
  log="$BUILD/fuzz-struct-$t.log"
  # its summary line (same columns as above) to stdout; progress and findings to the log
  "$PY" scripts/fuzz_struct.py --target "$t" --seconds "$SECONDS_EACH" --bin "$TG_BIN" --out "$BUILD" 2>"$log"
  if [[ $? -ne 0 ]]; then
    failed=1
    grep -A1 'finding:' "$log" | grep -v '^--' | head -6 | sed 's/^ */    /'
  fi
done
[[ $failed -eq 0 ]] || { echo "fuzz: findings above; inputs in $BUILD/findings/, logs in $BUILD/fuzz-*.log" >&2; exit 1; }
