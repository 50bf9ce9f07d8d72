#!/usr/bin/env bats
# The four tools together: tg-trace | tg-schedule | tg-codegen | tg-run.
load helpers

@test "the demo runs end to end and prints its three outputs" {
  cd "$ROOT"
  pipeline "tg-trace examples/demo.tg | tg-schedule | tg-codegen --device CLANG | tg-run --in x=examples/demo_x.npy"
  [ "$status" -eq 0 ]
  grep -qx 'h: shape=(4, 4) dtype=float32' <<<"$out"
  grep -qx 'probs: shape=(4, 4) dtype=float32' <<<"$out"
  grep -qx 'total: shape=() dtype=float32' <<<"$out"
  expect_contains "$out" "16."
}

@test "the demo's results match numpy" {
  need_python
  pipeline "tg-trace $ROOT/examples/demo.tg | tg-schedule | tg-codegen | tg-run --in x=$ROOT/examples/demo_x.npy --out-dir res"
  [ "$status" -eq 0 ]
  run_split "$PYTHON" - "$ROOT/examples/demo_x.npy" <<'PY'
import sys, numpy as np
x = np.load(sys.argv[1])
w = np.arange(32, dtype=np.float32).reshape(8, 4) / 32
h = np.maximum(x @ w, 0)
e = np.exp(h - h.max(axis=-1, keepdims=True))
assert np.allclose(np.load("res/h.npy"), h, atol=1e-5), "h"
assert np.allclose(np.load("res/probs.npy"), e / e.sum(axis=-1, keepdims=True), atol=1e-6), "probs"
assert np.load("res/total.npy") == 16.0, "total"
PY
  [ "$status" -eq 0 ] || { echo "$err" >&2; false; }
}

@test "binary and JSON artifacts can be mixed at every stage" {
  printf '%s\n' "$SOFTMAX" >s.tg
  make_npy x.npy 'np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)'
  pipeline "tg-trace s.tg | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir bin"
  [ "$status" -eq 0 ]
  pipeline "tg-trace --json s.tg | tg-schedule --json | tg-codegen --json | tg-run --in x=x.npy --out-dir json"
  [ "$status" -eq 0 ]
  pipeline "tg-trace --json s.tg | tg-schedule | tg-codegen --json | tg-run --in x=x.npy --out-dir mixed"
  [ "$status" -eq 0 ]
  cmp bin/p.npy json/p.npy
  cmp bin/p.npy mixed/p.npy
}

@test "each stage writes through -o files as well as pipes" {
  printf '%s\n' "$MATMUL" >m.tg
  make_npy a.npy 'np.ones((4, 8), np.float32)'
  make_npy b.npy 'np.ones((8, 3), np.float32)'
  tg-trace m.tg -o g.bin
  tg-schedule g.bin -o s.bin
  tg-codegen s.bin -o p.bin
  run_split tg-run p.bin --in a=a.npy --in b=b.npy
  [ "$status" -eq 0 ]
  expect_eq "$(head -1 <<<"$out")" "c: shape=(4, 3) dtype=float32"
  expect_contains "$out" "8."
}

@test "a script error stops the pipeline with the script's message" {
  printf 'x = Tensor.arange(6)\ny = x.reshape(-1, -1)\n' >bad.tg
  pipeline "tg-trace bad.tg | tg-schedule | tg-codegen | tg-run"
  [ "$status" -ne 0 ]
  expect_contains "$err" "tg-trace: bad.tg:2: RuntimeError: only one dimension can be inferred using -1"
  # the later stages say only that they got nothing
  expect_contains "$err" "tg-schedule: no input (an earlier stage failed)"
  expect_contains "$err" "tg-codegen: no input (an earlier stage failed)"
  expect_contains "$err" "tg-run: no input (an earlier stage failed)"
  [ "$(grep -c . <<<"$err")" -eq 4 ]
}

@test "random numbers after manual_seed are the same on every run" {
  printf 'Tensor.manual_seed(42)\noutput("r", Tensor.rand(3, 4))\n' >r.tg
  pipeline "tg-trace r.tg | tg-schedule | tg-codegen | tg-run"
  [ "$status" -eq 0 ]
  first="$out"
  pipeline "tg-trace r.tg | tg-schedule | tg-codegen | tg-run"
  expect_eq "$out" "$first"
}

@test "a second run of the same program is served from the compile cache" {
  printf '%s\n' "$SOFTMAX" >s.tg
  make_npy x.npy 'np.ones((4, 8), np.float32)'
  tg-trace s.tg | tg-schedule | tg-codegen -o p.bin
  tg-run p.bin --in x=x.npy >/dev/null
  before=$(find "$TG_CACHE_DIR" -type f | sort)
  [ -n "$before" ]
  tg-trace s.tg | tg-schedule | tg-codegen | tg-run --in x=x.npy >/dev/null
  expect_eq "$(find "$TG_CACHE_DIR" -type f | sort)" "$before"
}
