#!/usr/bin/env bats
# tg-run --per-step: a training loop fed a new slice of a data set each step (issue 30).
load helpers

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
  cat >lin.tg <<'TG'
from tinygrad.nn.optim import SGD
Tensor.training = True
x = input("x", (4, 3))
y = input("y", (4, 1))
w = Tensor.zeros(3, 1).contiguous().realize()
w.requires_grad = True
opt = SGD([w], lr=0.1)
loss = ((x @ w - y) ** 2).mean()
opt.zero_grad()
loss.backward()
opt.step()
output("loss", loss)
TG
  "$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(0)
xs = rng.standard_normal((20, 4, 3)).astype(np.float32)
ys = (xs @ np.array([[1.0], [2.0], [3.0]], np.float32)).astype(np.float32)
np.save("xs.npy", xs); np.save("ys.npy", ys); np.save("xs_fortran.npy", np.asfortranarray(xs))
w = np.zeros((3, 1), np.float32)
for x, y in zip(xs, ys):  # SGD, one slice per step: the reference
  err = x @ w - y
  loss = (err ** 2).mean()
  w = w - np.float32(0.1) * (2 * x.T @ err / err.size)
np.save("w_ref.npy", w); np.save("loss_ref.npy", np.array(loss, np.float32))
PY
  tg-trace lin.tg | tg-schedule | tg-codegen -o lin.program
}

@test "--per-step feeds step i slice i; --steps defaults to the data set's length" {
  run_split tg-run lin.program --in x=xs.npy --in y=ys.npy --per-step x --per-step y --save-state w.safetensors --out-dir out
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-run: step 20/20 loss"
  "$PYTHON" -c '
import numpy as np
from safetensors.numpy import load_file
w = list(load_file("w.safetensors").values())[0]
np.testing.assert_allclose(w, np.load("w_ref.npy"), rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(np.load("out/loss.npy"), np.load("loss_ref.npy"), rtol=1e-4, atol=1e-7)'
}

@test "--per-step reads a Fortran-ordered data set slice by slice, the same numbers" {
  run_split tg-run lin.program --in x=xs_fortran.npy --in y=ys.npy --per-step x --per-step y --save-state w.safetensors
  [ "$status" -eq 0 ]
  "$PYTHON" -c '
import numpy as np
from safetensors.numpy import load_file
np.testing.assert_allclose(list(load_file("w.safetensors").values())[0], np.load("w_ref.npy"), rtol=1e-5, atol=1e-6)'
}

@test "--per-step refuses more steps than the data holds, a slice of the wrong shape, an unbound name" {
  run_split tg-run lin.program --in x=xs.npy --in y=ys.npy --per-step x --per-step y --steps 21
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: --per-step x: --steps 21 but its file holds 20 steps"
  run_split tg-run lin.program --in x=xs.npy --in y=ys.npy --per-step x
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: input 'y': expected shape (4, 1), got (20, 4, 1)"
  run_split tg-run lin.program --in x=xs.npy --per-step x --per-step y
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: --per-step y: no --in y=FILE.npy binds it"
}
