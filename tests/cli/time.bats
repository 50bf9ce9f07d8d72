#!/usr/bin/env bats
# tg-run --time (tinygrad's DEBUG=2) and the op/memory estimates it divides by: each program
# kernel's op_estimate and mem_estimate are tinygrad 0.9.1's Program fields, compared here.
load helpers

@test "program kernels carry tinygrad 0.9.1's op_estimate and mem_estimate" {
  cat >est.tg <<'TG'
x = input("x", (4, 8))
w = Tensor.arange(32).reshape(8, 4).cast(dtypes.float32) / 32
h = (x @ w).relu()
output("h", h)
output("p", h.softmax(axis=-1))
a = Tensor.ones(256, 256).contiguous()
output("m", a @ a)
output("c", input("ci", (2, 3, 16, 16)).conv2d(input("cw", (8, 3, 3, 3))))
output("e", input("xe", (5, 7)).exp().max(axis=0).cast(dtypes.int32))
TG
  cat >est.py <<'PY'
import os; os.environ["CLANG"] = "1"
from tinygrad import Tensor, dtypes
from tinygrad.engine.realize import lower_schedule_item
from tinygrad.helpers import to_function_name
x = Tensor.empty(4, 8)
w = Tensor.arange(32).reshape(8, 4).cast(dtypes.float32) / 32
h = (x @ w).relu()
a = Tensor.ones(256, 256).contiguous()
outs = [h, h.softmax(axis=-1), a @ a, Tensor.empty(2, 3, 16, 16).conv2d(Tensor.empty(8, 3, 3, 3)),
        Tensor.empty(5, 7).exp().max(axis=0).cast(dtypes.int32)]
for si in Tensor.schedule(*outs):
  if si.ast[0].op.name == "STORE":
    p = lower_schedule_item(si).prg.p
    print(to_function_name(p.name), p.op_estimate, p.mem_estimate)
PY
  "$PYTHON" est.py | sort >want
  tg-trace est.tg | tg-schedule | tg-codegen --opt tinygrad --json >est.json # tinygrad's kernels and names
  jq -r '.kernels[] | "\(.name) \(.op_estimate) \(.mem_estimate)"' est.json | sort >got
  [ "$(wc -l <want)" -ge 6 ]
  grep -q '^r_64_64_64_4_4_4 33554432 524288$' got
  expect_eq "$(cat got)" "$(cat want)"
}

@test "tg-run --time prints per-kernel time, GFLOP/s and GB/s, and the totals" {
  printf 'a = Tensor.ones(256, 256).contiguous()\noutput("m", a @ a)\n' >mm.tg
  tg-trace mm.tg | tg-schedule | tg-codegen --opt tinygrad -o mm.prog
  run_split tg-run mm.prog --time --repeat 2
  [ "$status" -eq 0 ]
  num='[0-9]+\.[0-9]+'
  [[ "$err" =~ "tg-run: kernel    1 r_64_64_64_4_4_4 "+$num" ms "+$num" GFLOP/s "+$num" GB/s" ]]
  [[ "$err" =~ "tg-run: total     2 kernels "+$num" ms "+$num" GFLOP/s "+$num" GB/s (0.03355 GFLOP, 0.7864 MB)" ]]
  expect_eq "$(grep -c '^tg-run: ' <<<"$err")" 3
  # the rate is the estimate over the time: 33554432 flops
  line=$(grep 'kernel    1' <<<"$err")
  ms=$(awk '{print $5}' <<<"$line") gflops=$(awk '{print $7}' <<<"$line")
  "$PYTHON" -c "import sys; ms, g = float('$ms'), float('$gflops'); sys.exit(abs(33554432 / (ms * 1e6) - g) > 0.01 * g + 0.01)"
}
