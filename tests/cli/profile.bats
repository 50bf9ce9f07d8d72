#!/usr/bin/env bats
# tg-run --profile FILE.json: a Chrome/Perfetto trace of every launch (issue 30).
load helpers

@test "--profile writes a trace event file: a steps track, a kernel track, each kernel with its rates" {
  cat >acc.tg <<'TG'
w = Tensor.zeros(4).contiguous().realize()
w.assign(w + Tensor.arange(4))
output("loss", (w * w).sum())
TG
  pipeline 'tg-trace acc.tg | tg-schedule | tg-codegen -o acc.program'
  [ "$status" -eq 0 ]
  run_split tg-run acc.program --steps 3 --profile trace.json -o /dev/null
  [ "$status" -eq 0 ]
  need_python
  "$PYTHON" - <<'PY'
import json
doc = json.load(open("trace.json"))
events = doc["traceEvents"]
names = {e["args"]["name"] for e in events if e["ph"] == "M"}
assert names == {"tg-run CLANG", "steps", "CLANG kernels"}, names
steps = [e for e in events if e["ph"] == "X" and e["tid"] == 1]
kernels = [e for e in events if e["ph"] == "X" and e["tid"] == 2]
assert [s["name"] for s in steps] == ["step 1", "step 2", "step 3"], steps
assert len(kernels) >= 3 and {k["args"]["step"] for k in kernels} == {1, 2, 3}, kernels
for k in kernels:
  assert k["dur"] >= 0 and k["ts"] >= 0 and {"GFLOP/s", "GB/s", "bytes", "ops", "kernel"} <= set(k["args"]), k
for s, nxt in zip(steps, steps[1:]):
  assert s["ts"] + s["dur"] <= nxt["ts"] + 1e-3, (s, nxt)
PY
}

@test "--profile and --time are one or the other" {
  echo 'output("y", Tensor.ones(4) + 1)' >one.tg
  pipeline 'tg-trace one.tg | tg-schedule | tg-codegen -o one.program'
  run_split tg-run one.program --time --profile t.json
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: --profile times every launch itself: drop --time"
  [ ! -e t.json ]
}
