#!/usr/bin/env bats
# The command line as a new user types it (issue 30): options in any order, short errors,
# device names in any case, outputs discarded, the wrong file handed to a tool.
load helpers

setup_file() {
  cd "$BATS_FILE_TMPDIR" || return 1
  cat >two.tg <<'TG'
x = input("x", (2, 3))
y = input("y", (2, 3))
output("z", x * 2 + y)
TG
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.arange(6, dtype=np.float32).reshape(2, 3)); np.save("y.npy", np.ones((2, 3), np.float32))'
  TG_CACHE_DIR="$BATS_FILE_TMPDIR/cache" "$TG_BIN/tg-trace" two.tg | "$TG_BIN/tg-schedule" |
    TG_CACHE_DIR="$BATS_FILE_TMPDIR/cache" "$TG_BIN/tg-codegen" -o two.program
}

@test "a positional argument may follow repeated options (tg-run --in x=.. --in y=.. PROGRAM)" {
  export TG_CACHE_DIR="$BATS_FILE_TMPDIR/cache"
  run_split tg-run --in x="$BATS_FILE_TMPDIR/x.npy" --in y="$BATS_FILE_TMPDIR/y.npy" "$BATS_FILE_TMPDIR/two.program"
  [ "$status" -eq 0 ]
  expect_contains "$out" "[[ 1.  3.  5.]"
}

@test "a count out of range is one short line, not CLI11's 300-digit range" {
  run_split tg-run --steps 0 "$BATS_FILE_TMPDIR/two.program"
  [ "$status" -eq 2 ]
  expect_eq "$err" "tg-run: --steps: expected a positive integer, got '0' (see tg-run --help)"
  run_split tg-run --repeat abc "$BATS_FILE_TMPDIR/two.program"
  [ "$status" -eq 2 ]
  expect_one_line_error tg-run "$err"
  [ ${#err} -lt 120 ]
}

@test "device names are case-insensitive, as tinygrad's Device.canonicalize makes them" {
  tg-trace "$BATS_FILE_TMPDIR/two.tg" | tg-schedule >s.bin
  run_split tg-codegen --device llvm --json s.bin
  [ "$status" -eq 0 ]
  expect_contains "$out" '"device": "LLVM"'
  run_split tg-codegen --device clang:0 --json s.bin
  [ "$status" -eq 0 ]
  expect_contains "$out" '"device": "CLANG"'
  run_split tg-codegen --device tpu s.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: unknown device 'tpu' (known: CLANG, LLVM, GPU, CUDA)"
}

@test "-o /dev/null discards the outputs of a timing run" {
  export TG_CACHE_DIR="$BATS_FILE_TMPDIR/cache"
  run_split tg-run "$BATS_FILE_TMPDIR/two.program" --in x="$BATS_FILE_TMPDIR/x.npy" --in y="$BATS_FILE_TMPDIR/y.npy" -o /dev/null --time
  [ "$status" -eq 0 ]
  expect_eq "$out" ""
  expect_contains "$err" "tg-run: total"
}

@test "a script, an array or a model handed to the wrong tool says what it is and which tool reads it" {
  run_split tg-schedule "$BATS_FILE_TMPDIR/two.tg"
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-schedule: input is a tg script (tg-trace reads it: tg-trace FILE.tg | tg-schedule), not a graph (from tg-trace)"
  run_split tg-codegen "$BATS_FILE_TMPDIR/x.npy"
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: input is a .npy array (tg-run binds one with --in NAME=FILE.npy), not a schedule (from tg-schedule)"
}

@test "--steps progress shows step 1 when stderr is not a terminal" {
  cat >acc.tg <<'TG'
w = Tensor.zeros(2).contiguous().realize()
w.assign(w + 1)
output("loss", w.sum())
TG
  pipeline 'tg-trace acc.tg | tg-schedule | tg-codegen | tg-run --steps 30 -o /dev/null'
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-run: step 1/30 loss 2"
  expect_contains "$err" "tg-run: step 30/30 loss 60"
}
