#!/usr/bin/env bats
# tg-codegen: schedule artifact -> program artifact (man/tg-codegen.1).
load helpers

schedule() { # script text -> s.bin
  printf '%s\n' "$1" >k.tg
  tg-trace k.tg | tg-schedule -o s.bin
}

@test "tg-codegen --version prints the name and version" {
  run_split tg-codegen --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-codegen 0.1.0"
}

@test "tg-codegen --help lists the flags" {
  run_split tg-codegen --help
  [ "$status" -eq 0 ]
  for flag in --device --json -o --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-codegen rejects an unknown flag with exit 2" {
  run_split tg-codegen --no-such-flag
  [ "$status" -eq 2 ]
}

@test "tg-codegen --json has kernels with name and C source" {
  schedule "$SOFTMAX"
  run_split tg-codegen --json s.bin
  [ "$status" -eq 0 ]
  jq -e '.kernels | length >= 1' <<<"$out" >/dev/null
  jq -e 'all(.kernels[]; (.name|type) == "string" and (.src|type) == "string" and (.src|length) > 0)' <<<"$out" >/dev/null
  jq -e 'all(.kernels[]; .name as $n | .src | contains($n))' <<<"$out" >/dev/null
}

@test "tg-codegen makes one program kernel per scheduled kernel" {
  schedule "$SOFTMAX"
  a=$(tg-schedule --json <(tg-trace k.tg) | jq '.kernels|length')
  b=$(tg-codegen --json s.bin | jq '.kernels|length')
  expect_eq "$b" "$a"
}

@test "tg-codegen --device CLANG is the default" {
  schedule "$MATMUL"
  tg-codegen --json s.bin >default.json
  tg-codegen --json --device CLANG s.bin >clang.json
  expect_eq "$(jq -S .kernels default.json)" "$(jq -S .kernels clang.json)"
}

@test "tg-codegen's C source compiles with clang" {
  schedule "$SOFTMAX"
  tg-codegen --json s.bin >p.json
  n=$(jq '.kernels|length' p.json)
  for ((i = 0; i < n; i++)); do
    jq -r ".kernels[$i].src" p.json >k$i.c
    clang -c -O1 -x c -o k$i.o k$i.c
  done
}

@test "tg-codegen reads stdin, - and the JSON form of a schedule" {
  schedule "$MATMUL"
  printf '%s\n' "$MATMUL" | tg-trace | tg-schedule --json >s.json
  a=$(tg-codegen --json <s.bin | jq '.kernels|length')
  b=$(tg-codegen --json - <s.bin | jq '.kernels|length')
  c=$(tg-codegen --json s.json | jq '.kernels|length')
  expect_eq "$a" 1
  expect_eq "$b" 1
  expect_eq "$c" 1
}

@test "tg-codegen rejects an unknown device" {
  schedule "$MATMUL"
  run_split tg-codegen --device NOSUCHDEVICE s.bin
  [ "$status" -ne 0 ]
  expect_contains "$err" "NOSUCHDEVICE"
  [ -z "$out" ]
}

@test "tg-codegen given a graph names both kinds" {
  printf '%s\n' "$MATMUL" >m.tg
  tg-trace m.tg -o g.bin
  run_split tg-codegen g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: expected a schedule (from tg-schedule), got a graph (from tg-trace)"
}

@test "tg-codegen given a program names both kinds" {
  schedule "$MATMUL"
  tg-codegen s.bin -o p.bin
  run_split tg-codegen p.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: expected a schedule (from tg-schedule), got a program (from tg-codegen)"
}

@test "tg-codegen rejects garbage in one line, exit 1" {
  run_split tg-codegen <<<"{not json"
  [ "$status" -eq 1 ]
  expect_one_line_error tg-codegen "$err"
  [ -z "$out" ]
}

@test "tg-codegen rejects a truncated schedule in one line, exit 1, no output file" {
  schedule "$SOFTMAX"
  head -c $(($(stat -c %s s.bin) * 2 / 3)) s.bin >part.bin
  run_split tg-codegen part.bin -o p.bin
  [ "$status" -eq 1 ]
  expect_one_line_error tg-codegen "$err"
  [ ! -e p.bin ]
}

@test "tg-codegen refuses to write binary to a terminal" {
  command -v script >/dev/null || skip "needs script(1)"
  schedule "$MATMUL"
  run_split script -qec "tg-codegen s.bin" /dev/null
  [ "$status" -eq 1 ] || [ "$status" -eq 2 ]
  expect_contains "$out" "tg-codegen: "
}

@test "tg-codegen --print-after ast prints tinygrad's DEBUG=3 trees, the artifact unchanged" {
  cat >k.tg <<'TG'
x = input("x", (4, 8))
w = Tensor.arange(32).reshape(8, 4).cast(dtypes.float32) / 32
output("h", (x @ w).relu())
TG
  cat >k.py <<'PY'
from tinygrad import Tensor, dtypes
x = Tensor.empty(4, 8)
w = Tensor.arange(32).reshape(8, 4).cast(dtypes.float32) / 32
(x @ w).relu().realize()
PY
  CLANG=1 DEBUG=3 "$PYTHON" k.py 2>&1 | grep -E '^ +[0-9]+ ' >want
  tg-trace k.tg | tg-schedule -o k.sched
  tg-codegen k.sched -o plain.prog
  run_split tg-codegen k.sched --print-after ast -o traced.prog
  [ "$status" -eq 0 ]
  cmp plain.prog traced.prog
  expect_eq "$(grep -cE '^tg-codegen: kernel [0-9]+ [a-zA-Z0-9_]+ after ast:$' <<<"$err")" 2
  [ "$(wc -l <want)" -ge 10 ]
  expect_eq "$(grep -vE '^tg-codegen: ' <<<"$err")" "$(cat want)"
}

@test "tg-codegen --print-after shows each stage in pipeline order; all shows every one" {
  printf 'x = input("x", (64, 64))\noutput("s", x.sum(axis=1))\n' >s.tg
  tg-trace s.tg | tg-schedule -o s.sched
  # (--opt tinygrad: the kernel's name and opts then do not depend on this CPU's vector width)
  run_split tg-codegen s.sched --opt tinygrad --print-after render,opts --print-after linearize -o /dev/null
  [ "$status" -eq 0 ]
  expect_eq "$(grep -E '^tg-codegen: ' <<<"$err")" "tg-codegen: kernel 1 r_64_16_4 after opts:
tg-codegen: kernel 1 r_64_16_4 after linearize:
tg-codegen: kernel 1 r_64_16_4 after render:"
  expect_contains "$err" "[Opt(op=OptOps.UNROLL, axis=0, amt=4)]"
  expect_contains "$err" "UOps.DEFINE_ACC"
  expect_contains "$err" "void r_64_16_4(float* restrict data0, const float* restrict data1"
  run_split tg-codegen s.sched --opt tinygrad --print-after all -o /dev/null
  [ "$status" -eq 0 ]
  expect_eq "$(grep -cE '^tg-codegen: kernel 1 r_64_16_4 after (ast|opts|linearize|rewrite|render):$' <<<"$err")" 5
  run_split tg-codegen s.sched --print-after source -o /dev/null
  [ "$status" -eq 2 ]
  [[ "$err" == "tg-codegen: "*"unknown stage 'source'"* ]]
}

@test "tg-codegen --beam times candidates, keeps a correct kernel, and the second search is cached" {
  need_python
  schedule $'a = input("a", (64, 96))\nb = input("b", (96, 48))\noutput("c", (a @ b).relu())'
  run_split tg-codegen --beam 2 s.bin -o beam.prog
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-codegen: beam 2: kernel 1/1 "
  expect_contains "$err" "candidates in"
  make_npy a.npy 'np.random.default_rng(1).standard_normal((64, 96)).astype(np.float32)'
  make_npy b.npy 'np.random.default_rng(2).standard_normal((96, 48)).astype(np.float32)'
  tg-run beam.prog --in a=a.npy --in b=b.npy --out-dir out
  "$PYTHON" -c "
import numpy as np
a, b, c = np.load('a.npy'), np.load('b.npy'), np.load('out/c.npy')
np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)"
  # the same kernel again: the search is a cache read, and gives the same program
  run_split tg-codegen --beam 2 s.bin -o again.prog
  [ "$status" -eq 0 ]
  expect_contains "$err" "cached"
  cmp beam.prog again.prog
}

@test "tg-codegen --beam refuses a width out of range and a second optimizer" {
  schedule "$MATMUL"
  run_split tg-codegen --beam 0 s.bin
  [ "$status" -eq 2 ]
  run_split tg-codegen --beam 2 --opt tinygrad s.bin
  [ "$status" -ne 0 ]
  expect_one_line_error tg-codegen "$err"
  expect_contains "$err" "--beam searches opts itself"
}

@test "tg-codegen --beam-budget 0 searches nothing: every kernel keeps tg's optimizer's opts, and nothing is cached" {
  schedule $'a = input("a", (64, 96))\nb = input("b", (96, 48))\noutput("c", (a @ b).relu())\noutput("e", a.exp())'
  run_split tg-codegen --beam 2 --beam-budget 0 s.bin -o budget.prog
  [ "$status" -eq 0 ]
  expect_eq "$(grep -c -- "--beam-budget spent: tg's optimizer's opts" <<<"$err")" "2"
  tg-codegen s.bin -o tg.prog
  cmp budget.prog tg.prog
  # a cut search is not cached: the next one with time searches
  run_split tg-codegen --beam 2 s.bin -o /dev/null
  [ "$status" -eq 0 ]
  expect_contains "$err" "candidates in"
}

@test "tg-codegen --beam-budget needs --beam and a number of seconds" {
  schedule "$MATMUL"
  run_split tg-codegen --beam-budget 5 s.bin
  [ "$status" -ne 0 ]
  expect_one_line_error tg-codegen "$err"
  expect_contains "$err" "give --beam N too"
  run_split tg-codegen --beam 2 --beam-budget -1 s.bin
  [ "$status" -eq 2 ]
  run_split tg-codegen --beam 2 --beam-budget soon s.bin
  [ "$status" -eq 2 ]
}

@test "tg-codegen's program does not depend on TG_THREADS (kernels lowered in parallel)" {
  schedule 'x = input("x", (8, 3, 16, 16))
c1 = nn.Conv2d(3, 8, 3, padding=1)
c2 = nn.Conv2d(8, 8, 3, stride=2)
y = c2(c1(x).relu()).relu().mean((2, 3))
output("y", y.softmax())
output("z", Tensor.arange(100).reshape(10, 10).float().cumsum(1))'
  TG_THREADS=1 tg-codegen s.bin -o one.prog
  TG_THREADS=2 tg-codegen s.bin -o two.prog
  TG_THREADS=7 tg-codegen s.bin -o seven.prog
  [ "$(tg-codegen --json s.bin | jq '.kernels | length')" -ge 5 ]
  cmp one.prog two.prog
  cmp one.prog seven.prog
}
