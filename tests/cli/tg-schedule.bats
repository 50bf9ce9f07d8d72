#!/usr/bin/env bats
# tg-schedule: graph artifact -> schedule artifact (man/tg-schedule.1).
load helpers

kernels() { # script text -> number of kernels tg-schedule makes
  printf '%s\n' "$1" >k.tg
  tg-trace k.tg | tg-schedule --json | jq '.kernels|length'
}

@test "tg-schedule --version prints the name and version" {
  run_split tg-schedule --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-schedule 0.1.0"
}

@test "tg-schedule --help lists the flags" {
  run_split tg-schedule --help
  [ "$status" -eq 0 ]
  for flag in --json -o --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-schedule rejects an unknown flag with exit 2" {
  run_split tg-schedule --no-such-flag
  [ "$status" -eq 2 ]
}

@test "tg-schedule --json has a top-level array kernels" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg -o g.bin
  run_split tg-schedule --json g.bin
  [ "$status" -eq 0 ]
  expect_eq "$(jq -r '.kernels|type' <<<"$out")" "array"
}

@test "tg-schedule reads a file, stdin and -" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg -o g.bin
  a=$(tg-schedule --json g.bin | jq '.kernels|length')
  b=$(tg-schedule --json <g.bin | jq '.kernels|length')
  c=$(tg-schedule --json - <g.bin | jq '.kernels|length')
  expect_eq "$a" 1
  expect_eq "$b" 1
  expect_eq "$c" 1
}

@test "tg-schedule reads the JSON form of a graph too" {
  echo "$MATMUL" >m.tg
  tg-trace --json m.tg -o g.json
  expect_eq "$(tg-schedule --json g.json | jq '.kernels|length')" 1
}

@test "tg-schedule -o writes binary that tg-codegen reads" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg | tg-schedule -o s.bin
  [ -s s.bin ]
  expect_eq "$(tg-codegen --json s.bin | jq '.kernels|length')" 1
}

@test "a matmul is one kernel" {
  expect_eq "$(kernels "$MATMUL")" 1
}

@test "a matmul with a relu epilogue is one kernel" {
  expect_eq "$(kernels $'a = input("a", (4, 8))\nb = input("b", (8, 3))\noutput("c", (a @ b).relu())')" 1
}

@test "a softmax is at most three kernels" {
  n=$(kernels "$SOFTMAX")
  [ "$n" -ge 1 ] && [ "$n" -le 3 ]
}

@test "an elementwise chain is one kernel" {
  expect_eq "$(kernels "$CHAIN")" 1
}

@test "elementwise ops fuse into a reduce" {
  expect_eq "$(kernels $'x = input("x", (4, 8))\noutput("s", (x * 2 + 1).exp().sum(axis=1))')" 1
}

@test "two independent outputs are at most two kernels" {
  n=$(kernels $'x = input("x", (4, 8))\noutput("a", x + 1)\noutput("b", x.sum())')
  [ "$n" -ge 1 ] && [ "$n" -le 2 ]
}

@test "tg-schedule given a schedule names both kinds" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg | tg-schedule -o s.bin
  run_split tg-schedule s.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-schedule: expected a graph (from tg-trace), got a schedule (from tg-schedule)"
  [ -z "$out" ]
}

@test "tg-schedule given a program names both kinds" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg | tg-schedule | tg-codegen -o p.bin
  run_split tg-schedule p.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-schedule: expected a graph (from tg-trace), got a program (from tg-codegen)"
}

@test "tg-schedule given a program in JSON names both kinds" {
  echo "$MATMUL" >m.tg
  tg-trace m.tg | tg-schedule | tg-codegen --json -o p.json
  run_split tg-schedule p.json
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-schedule: expected a graph (from tg-trace), got a program (from tg-codegen)"
}

@test "tg-schedule rejects garbage in one line, exit 1" {
  run_split tg-schedule <<<"this is not an artifact"
  [ "$status" -eq 1 ]
  expect_one_line_error tg-schedule "$err"
  [ -z "$out" ]
}

@test "tg-schedule rejects empty input in one line, exit 1" {
  run_split tg-schedule </dev/null
  [ "$status" -eq 1 ]
  expect_one_line_error tg-schedule "$err"
}

@test "tg-schedule rejects a truncated binary graph in one line, exit 1" {
  echo "$SOFTMAX" >s.tg
  tg-trace s.tg -o g.bin
  head -c $(($(stat -c %s g.bin) / 2)) g.bin >half.bin
  run_split tg-schedule half.bin
  [ "$status" -eq 1 ]
  expect_one_line_error tg-schedule "$err"
  [ -z "$out" ]
}

@test "tg-schedule rejects truncated JSON in one line, exit 1" {
  echo "$SOFTMAX" >s.tg
  tg-trace --json s.tg -o g.json
  head -c $(($(stat -c %s g.json) / 2)) g.json >half.json
  run_split tg-schedule half.json
  [ "$status" -eq 1 ]
  expect_one_line_error tg-schedule "$err"
}

@test "tg-schedule leaves no output file on bad input" {
  run_split tg-schedule -o s.bin <<<"garbage"
  [ "$status" -eq 1 ]
  [ ! -e s.bin ]
}

@test "tg-schedule refuses to write binary to a terminal" {
  command -v script >/dev/null || skip "needs script(1)"
  echo "$MATMUL" >m.tg
  tg-trace m.tg -o g.bin
  run_split script -qec "tg-schedule g.bin" /dev/null
  [ "$status" -eq 1 ] || [ "$status" -eq 2 ]
  expect_contains "$out" "tg-schedule: "
}

@test "a recurrence's state is realized once per step, not recomputed in every later kernel; --recompute fuses as tinygrad" {
  need_python
  cp "$ROOT/tests/diff/snippets/nn_recurrence_shared_state.tg" rec.tg
  "$PYTHON" -c 'import numpy as np
rng = np.random.default_rng(2)
np.save("x.npy", rng.standard_normal((24, 8), dtype=np.float32))
np.save("w.npy", (rng.standard_normal((8, 8)) * 0.5).astype(np.float32))'
  tg-trace rec.tg -o rec.g
  tg-schedule rec.g --json -o shared.json
  tg-schedule rec.g --recompute --json -o fused.json
  # tinygrad's fusion: the kernel of h_t reads every earlier step's matmul (c's whole chain);
  # shared: only the final concatenation reads more than 6 buffers
  expect_eq "$(jq '[.kernels[].bufs | length | select(. > 6)] | length' shared.json)" "1"
  [ "$(jq '[.kernels[].bufs | length | select(. > 6)] | length' fused.json)" -ge 16 ]
  [ "$(jq '.kernels | length' shared.json)" -gt "$(jq '.kernels | length' fused.json)" ]
  for s in shared fused; do
    tg-codegen $s.json | tg-run --in x=x.npy --in w=w.npy --out-dir $s >/dev/null
  done
  "$PYTHON" -c 'import numpy as np
for o in "yc":
  np.testing.assert_allclose(np.load(f"shared/{o}.npy"), np.load(f"fused/{o}.npy"), rtol=1e-6, atol=1e-6)'
  tg-schedule --help | grep -q -- '--recompute'
}
