#!/usr/bin/env bats
# Kernels at once on one device (launch/lanes.cpp): independent chains of kernels too
# small to split over threads run side by side, a thread each, bit for bit as one at a time.
load helpers

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
  # (bounds checking, on in these tests, runs one kernel at a time: it reports by exceptions)
  export TG_CHECK_BOUNDS=0
  cat >chains.tg <<'TG'
a = input("a", (256,))
b = input("b", (256,))
w = input("w", (256, 256))
for i in range(16):
  a = (w @ a).tanh().contiguous()
  b = (w.T @ b).sigmoid().contiguous()
output("y", a + b)
TG
  "$PYTHON" - <<'PY'
import numpy as np
r = np.random.default_rng(0)
for n, s in (("a", (256,)), ("b", (256,)), ("w", (256, 256))):
  np.save(n + ".npy", (r.standard_normal(s) * 0.1).astype(np.float32))
PY
  tg-trace chains.tg | tg-schedule | tg-codegen -o chains.bin
}

tracks() { jq -c '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name]' "$1"; }

@test "two independent chains of small kernels run side by side, bit for bit as one at a time" {
  TG_LANES=0 tg-run chains.bin --in a=a.npy --in b=b.npy --in w=w.npy --steps 3 --out-dir one
  TG_THREADS=2 tg-run chains.bin --in a=a.npy --in b=b.npy --in w=w.npy --steps 3 --out-dir two --profile p.json
  cmp one/y.npy two/y.npy
  expect_eq "$(tracks p.json)" '["steps","CLANG kernels","kernels of CLANG","kernels of CLANG"]'
  # each chain on its own lane: the 16 matvecs of a on one track, those of b on the other
  expect_eq "$(jq -c '[.traceEvents[] | select(.ph == "X" and .args.step == 3 and .tid >= 4)] | group_by(.tid) | map(length)' p.json)" '[17,16]'
}

@test "one thread, or TG_LANES=0: one kernel at a time" {
  TG_THREADS=1 tg-run chains.bin --in a=a.npy --in b=b.npy --in w=w.npy --out-dir t1 --profile p1.json
  expect_eq "$(tracks p1.json)" '["steps","CLANG kernels"]'
  TG_LANES=0 TG_THREADS=2 tg-run chains.bin --in a=a.npy --in b=b.npy --in w=w.npy --out-dir t0 --profile p0.json
  expect_eq "$(tracks p0.json)" '["steps","CLANG kernels"]'
  cmp t1/y.npy t0/y.npy
}
