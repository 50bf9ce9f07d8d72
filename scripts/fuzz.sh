#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets (tests/fuzz/*.cpp, clang with ASan+UBSan) in
# build-fuzz/ and runs each for TG_FUZZ_SECONDS (default 60) from the committed seeds
# (tests/fuzz/corpus/<target>/) plus what earlier runs found (build-fuzz/corpus/<target>/).
# Prints one line per target: executions, coverage and findings. A finding (crash, leak,
# sanitizer report, timeout, runaway memory) is saved in build-fuzz/findings/ and fails the run;
# copy it into tests/fuzz/regressions/<target>/ once fixed, so the unit tests replay it.
#   TG_FUZZ_TARGETS="graph npy"  only these targets
#   TG_FUZZ_JOBS=2               fuzzing processes per target (libFuzzer -fork)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${TG_FUZZ_BUILD:-build-fuzz}"
SECONDS_EACH="${TG_FUZZ_SECONDS:-60}"
TARGETS="${TG_FUZZ_TARGETS:-graph schedule program npy safetensors script}"
JOBS="${TG_FUZZ_JOBS:-1}"

if [[ ! -f $BUILD/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -G Ninja -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTG_FUZZ=ON >/dev/null || exit 1
fi
ninja -C "$BUILD" -j2 $(for t in $TARGETS; do echo "fuzz-$t"; done) | grep -v '^\[' || true
[[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "fuzz: build failed" >&2; exit 1; }

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}"
failed=0
for t in $TARGETS; do
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
[[ $failed -eq 0 ]] || { echo "fuzz: findings above; inputs in $BUILD/findings/, logs in $BUILD/fuzz-*.log" >&2; exit 1; }
