#!/usr/bin/env bats
# Panel packing on CLANG (issue 28, lib/codegen/pack_panels.cpp): a strided operand that every
# row tile reads again (a matmul's columns of b, down all of K) is copied into a contiguous
# local array before the loop over row tiles. A copy changes no arithmetic: the results equal
# the unpacked kernel's bit for bit. TG_PACK=0 turns it off; the budget is half of L2
# (TG_L2_BYTES overrides what sysfs says).
load helpers

setup_file() {
  cd "$BATS_FILE_TMPDIR" || return 1
  cat >p.tg <<'TG'
a = input("a", (256, 256))
b = input("b", (256, 256))
output("mm", a @ b)
x = input("x", (4, 64, 256))
y = input("y", (4, 256, 256))
output("bmm", x @ y)
z = input("z", (37, 300))
w = input("w", (300, 1000))
output("ragged", (z @ w).relu())
c = input("c", (2, 16, 20, 20))
k = input("k", (32, 16, 3, 3))
output("conv", c.conv2d(k, padding=1))
TG
  "$PYTHON" - <<'EOF'
import numpy as np
rng = np.random.default_rng(3)
shapes = {"a": (256, 256), "b": (256, 256), "x": (4, 64, 256), "y": (4, 256, 256), "z": (37, 300),
          "w": (300, 1000), "c": (2, 16, 20, 20), "k": (32, 16, 3, 3)}
for name, shape in shapes.items():
  np.save(f"{name}.npy", rng.standard_normal(shape, dtype=np.float32))
EOF
  "$TG_BIN/tg-trace" p.tg | "$TG_BIN/tg-schedule" -o s.bin
}

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
}

inputs() { for n in a b x y z w c k; do printf -- '--in %s=%s/%s.npy ' "$n" "$BATS_FILE_TMPDIR" "$n"; done; }

@test "a matmul's and a batched matmul's b panels are packed, and every output equals the unpacked kernels' bit for bit" {
  for lanes in 8 16; do
    TG_VECTOR_LANES=$lanes TG_L2_BYTES=1M tg-codegen --json "$BATS_FILE_TMPDIR/s.bin" -o p$lanes.json
    TG_PACK=0 TG_VECTOR_LANES=$lanes tg-codegen --json "$BATS_FILE_TMPDIR/s.bin" -o u$lanes.json
    # the 256x256 matmul, the batched one (a panel per batch) and the conv (its image window)
    expect_eq "$(jq '[.kernels[] | select(.src | contains("float pack0["))] | length' p$lanes.json)" "3"
    expect_eq "$(jq '[.kernels[] | select(.src | contains("pack0"))] | length' u$lanes.json)" "0"
    tg-run p$lanes.json $(inputs) --out-dir p$lanes >/dev/null
    tg-run u$lanes.json $(inputs) --out-dir u$lanes >/dev/null
    for o in mm bmm ragged conv; do
      cmp p$lanes/$o.npy u$lanes/$o.npy || { echo "lanes=$lanes: $o differs"; return 1; }
    done
  done
  "$PYTHON" -c 'import numpy as np
d = "'"$BATS_FILE_TMPDIR"'"
a, b = np.load(f"{d}/a.npy"), np.load(f"{d}/b.npy")
np.testing.assert_allclose(np.load("p16/mm.npy"), a @ b, rtol=1e-4, atol=1e-4)'
}

@test "a panel larger than half of L2 is not packed" {
  # the 256-deep panel of 2 x 16 floats is 32 KB: a 32 KB L2 leaves 16 KB for panels
  TG_VECTOR_LANES=16 TG_L2_BYTES=32K tg-codegen --json "$BATS_FILE_TMPDIR/s.bin" -o small.json
  local matmuls='[.kernels[] | select((.name | test("_3_3") | not) and (.src | contains("pack0")))] | length'
  expect_eq "$(jq "$matmuls" small.json)" "0"
  TG_VECTOR_LANES=16 TG_L2_BYTES=64K tg-codegen --json "$BATS_FILE_TMPDIR/s.bin" -o big.json
  expect_eq "$(jq "$matmuls" big.json)" "2"
}

@test "--print-after rewrite shows the local array, its copy loop and its loads" {
  printf '%s\n' 'a = input("a", (256, 256))' 'b = input("b", (256, 256))' 'output("c", a @ b)' >mm.tg
  tg-trace mm.tg | tg-schedule | TG_VECTOR_LANES=16 TG_L2_BYTES=1M tg-codegen --print-after rewrite -o /dev/null 2>uops.txt
  grep -q 'DEFINE_LOCAL.*pack0' uops.txt
  # the register tile's two vectors of b come from the local array, in the reduce loop
  local_id=$(awk '/DEFINE_LOCAL.*pack0/ {print $1}' uops.txt)
  expect_eq "$(grep -c "UOps.LOAD .*vec(16) \[$local_id, " uops.txt)" "2"
}

@test "a matmul whose a does not fit half of L2 packs several column blocks' panels at once, bit for bit as unblocked" {
  # 512 x 512: a is 1 MB. With a 512 KB L2 (256 KB of panels) the 32 column blocks of 16 floats
  # go 4 at a time inside the row loop (32 KB panels); with 64 MB (panels capped at 1 MiB) a
  # stays in cache and nothing is blocked. Same sums in the same order either way.
  printf '%s\n' 'a = input("a", (512, 512))' 'b = input("b", (512, 512))' 'output("c", a @ b)' >mm.tg
  "$PYTHON" -c 'import numpy as np
rng = np.random.default_rng(5)
for n in "ab": np.save(f"{n}.npy", rng.standard_normal((512, 512), dtype=np.float32))'
  tg-trace mm.tg | tg-schedule -o mm.s
  TG_VECTOR_LANES=8 TG_L2_BYTES=512K tg-codegen --json mm.s -o blocked.json
  TG_VECTOR_LANES=8 TG_L2_BYTES=64M tg-codegen --json mm.s -o plain.json
  expect_eq "$(jq -r '.kernels[0].name' blocked.json)" "r_8_128_4_512_8_4_2"
  expect_eq "$(jq -r '.kernels[0].name' plain.json)" "r_32_128_512_8_4_2"
  jq -r '.kernels[0].src' blocked.json | grep -q 'float pack0\[32768\]'
  for p in blocked plain; do
    TG_THREADS=2 tg-run $p.json --in a=a.npy --in b=b.npy -o $p.npz >/dev/null
  done
  cmp blocked.npz plain.npz
  "$PYTHON" -c 'import numpy as np
c = np.load("blocked.npz")["c"]
np.testing.assert_allclose(c, np.load("a.npy") @ np.load("b.npy"), rtol=1e-4, atol=1e-4)'
}

@test "a conv's image under an output tile is packed once for all its output-channel blocks, bit for bit" {
  # Range loads (a padded row, a stride-2 row, a 7-wide row in 8 lanes) in a conv's channel and
  # window loops read the same vectors for every block of output channels: they are made once,
  # masks and all, into a local array before that loop, and the loops read whole vectors.
  cat >c.tg <<'TG'
x = input("x", (2, 32, 28, 28))
output("s2", x.conv2d(input("w1", (64, 32, 3, 3)), stride=2, padding=1))
output("s1", x.conv2d(input("w2", (64, 32, 3, 3)), padding=1).relu())
output("pw", x.conv2d(input("w3", (64, 32, 1, 1)), stride=2))
output("n7", x[:, :, :7, :7].conv2d(input("w4", (64, 32, 1, 1))))
TG
  "$PYTHON" -c 'import numpy as np
rng = np.random.default_rng(7)
for n, s in {"x": (2, 32, 28, 28), "w1": (64, 32, 3, 3), "w2": (64, 32, 3, 3), "w3": (64, 32, 1, 1), "w4": (64, 32, 1, 1)}.items():
  np.save(f"{n}.npy", rng.standard_normal(s, dtype=np.float32))'
  tg-trace c.tg | tg-schedule -o c.s
  TG_VECTOR_LANES=8 TG_L2_BYTES=512K tg-codegen --json c.s -o packed.json
  TG_PACK=0 TG_VECTOR_LANES=8 tg-codegen --json c.s -o plain.json
  expect_eq "$(jq '[.kernels[] | select(.name | startswith("r_"))] | length' packed.json)" "4"
  expect_eq "$(jq '[.kernels[] | select((.name | startswith("r_")) and (.src | contains("float pack0[")))] | length' packed.json)" "4"
  # in the reduce loops only plain vector loads of the local array are left
  for k in $(jq -r '.kernels[] | select(.name | startswith("r_")) | .name' packed.json); do
    jq -r --arg k "$k" '.kernels[] | select(.name == $k) | .src' packed.json |
      awk '/acc0 = / {inner=1} /tg_vload[0-9]*_range/ && inner {bad=1} END {exit bad}' ||
      { echo "$k: a range load is left in the reduce loop"; return 1; }
  done
  for p in packed plain; do
    tg-run $p.json --in x=x.npy --in w1=w1.npy --in w2=w2.npy --in w3=w3.npy --in w4=w4.npy --out-dir $p >/dev/null
  done
  for o in s2 s1 pw n7; do cmp packed/$o.npy plain/$o.npy || { echo "$o differs"; return 1; }; done
  # LLVM packs the same windows, into an alloca of the entry block, with the same results
  TG_VECTOR_LANES=8 TG_L2_BYTES=512K tg-codegen -d LLVM --json c.s -o llvm.json
  expect_eq "$(jq '[.kernels[] | select((.name | startswith("r_")) and (.src | test("%pack0 = alloca float, i64 [0-9]+, align 64")))] | length' llvm.json)" "4"
  tg-run llvm.json --in x=x.npy --in w1=w1.npy --in w2=w2.npy --in w3=w3.npy --in w4=w4.npy --out-dir llvm >/dev/null
  for o in s2 s1 pw n7; do cmp llvm/$o.npy plain/$o.npy || { echo "LLVM: $o differs"; return 1; }; done
}
