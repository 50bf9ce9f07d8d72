#!/usr/bin/env bats
# tg's host optimizer (tg-codegen --opt tg, man/tg-codegen.1): SIMD vectors and register tiles
# on CLANG. It upcasts output axes only, so its kernels compute what the unoptimized kernels
# do, bit for bit, at every vector width. (tinygrad's own opts unroll reduces into one
# expression, which reassociates the sum: they agree with both to rounding only.)
load helpers

# x.npy, (4, 64): values that reach exp2's special cases (|x| >= 128, inf, nan, 0)
edge_inputs() {
  "$PYTHON" - <<'PY'
import numpy as np
rng = np.random.default_rng(5)
x = (rng.standard_normal((4, 64)) * 30).astype(np.float32)
x[0, :8] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40, 200.0, -200.0]
x[1, :4] = [88.7, -87.3, 127.9, -149.5]
# vectors whose only special lanes underflow to +0 (-inf, x <= -150) stay on the vector path
x[2, :8] = [-np.inf, -200.0, -150.0, -149.99, -128.5, -1e30, 1.0, -3.0]
x[3, 8:16] = [-151.0, 2.0, -np.inf, -0.5, -1e38, 3.0, -150.01, -127.0]
np.save("x.npy", x)
PY
}

# Outputs NAMES (one letter each) in DIR_B have DIR_A's bits, except a NaN's sign: which
# operand's NaN an add returns is the compiler's choice (clang commutes floatx16 adds on AVX2).
same_bits() { # DIR_A DIR_B NAMES
  "$PYTHON" - "$@" <<'PY'
import sys
import numpy as np
a_dir, b_dir, names = sys.argv[1:]
for o in names:
  a, b = np.load(f"{a_dir}/{o}.npy"), np.load(f"{b_dir}/{o}.npy")
  assert (np.isnan(a) == np.isnan(b)).all(), f"{b_dir}: {o}: NaN at other places"
  same = np.isnan(a) | (a.view(np.uint32) == b.view(np.uint32))
  assert same.all(), f"{b_dir}: {o} differs at {np.argwhere(~same)[:4].tolist()}"
PY
}

# a matmul with bias and relu (register tile), a padded conv (lanes gathered at the edges),
# a conv over 28-wide rows (padded to several vectors of lanes: 32 = 4 x 8, 2 x 16) and a
# depthwise one (no tile: its image is read as range loads) with clip and a maximum (compares
# and selects on masks), an exp
# (lane by lane), a broadcast sum and a max over columns
PROGRAM='a = input("a", (40, 64))
b = input("b", (64, 48))
bias = input("bias", (48,))
output("mm", (a @ b + bias).relu())
x = input("x", (2, 3, 16, 16))
w = input("w", (4, 3, 3, 3))
output("conv", x.conv2d(w, padding=1))
x28 = input("x28", (1, 2, 5, 28))
w28 = input("w28", (3, 2, 3, 3))
output("conv28", x28.conv2d(w28, padding=1))
wdw = input("wdw", (2, 1, 3, 3))
output("dw", x28.conv2d(wdw, padding=1, groups=2).clip(-0.5, 0.5))
output("mx", (a @ b).maximum(bias))
output("wh", (b > 0.2).where(b, -b).minimum(0.1))
output("e", b.exp())
output("s", (a.reshape(40, 64, 1) * b.reshape(1, 64, 48)).sum(axis=1))
output("m", b.max(axis=0, keepdim=True) + bias)'

setup_file() {
  cd "$BATS_FILE_TMPDIR" || return 1
  "$PYTHON" - <<'EOF'
import numpy as np
rng = np.random.default_rng(7)
for name, shape in [("a", (40, 64)), ("b", (64, 48)), ("bias", (48,)), ("x", (2, 3, 16, 16)), ("w", (4, 3, 3, 3)),
                    ("x28", (1, 2, 5, 28)), ("w28", (3, 2, 3, 3)), ("wdw", (2, 1, 3, 3))]:
  np.save(f"{name}.npy", rng.standard_normal(shape, dtype=np.float32))
EOF
  printf '%s\n' "$PROGRAM" >p.tg
  "$TG_BIN/tg-trace" p.tg | "$TG_BIN/tg-schedule" -o s.bin
}

inputs() { for n in a b bias x w x28 w28 wdw; do printf -- '--in %s=%s/%s.npy ' "$n" "$BATS_FILE_TMPDIR" "$n"; done; }

@test "tg's optimizer renders vectors at each width and computes the unoptimized kernels' results bit for bit" {
  tg-codegen --noopt "$BATS_FILE_TMPDIR/s.bin" -o ref.prog
  tg-run ref.prog $(inputs) --out-dir ref >/dev/null
  tg-codegen --opt tinygrad "$BATS_FILE_TMPDIR/s.bin" -o tiny.prog
  tg-run tiny.prog $(inputs) --out-dir tiny >/dev/null
  for lanes in 4 8 16; do
    TG_VECTOR_LANES=$lanes tg-codegen "$BATS_FILE_TMPDIR/s.bin" --json -o v$lanes.json
    expect_eq "$(jq -c --arg t "floatx$lanes" '[.kernels[] | select(.src | contains($t) | not) | .name]' v$lanes.json)" '[]'
    tg-run v$lanes.json $(inputs) --out-dir out$lanes >/dev/null
    for o in mm conv conv28 dw mx wh e s m; do
      cmp ref/$o.npy out$lanes/$o.npy || { echo "lanes=$lanes: $o differs"; return 1; }
    done
  done
  "$PYTHON" -c 'import numpy as np, sys
for o in ["mm", "conv", "conv28", "dw", "mx", "wh", "e", "s", "m"]: np.testing.assert_allclose(np.load(f"out16/{o}.npy"), np.load(f"tiny/{o}.npy"), rtol=1e-5, atol=1e-5)'
}

@test "a kernel whose strided input no tile would reuse keeps tinygrad's opts" {
  printf '%s\n' 'a = input("a", (40, 63))' 'output("r", a.sum(axis=1))' >r.tg
  tg-trace r.tg | tg-schedule | TG_VECTOR_LANES=16 tg-codegen --json -o r.json
  tg-trace r.tg | tg-schedule | tg-codegen --opt tinygrad --json -o t.json
  expect_eq "$(jq -c '[.kernels[].src]' r.json)" "$(jq -c '[.kernels[].src]' t.json)"
}

@test "the matmul gets a register tile: 8 rows by 2 vectors of b (AVX-512), 4 rows by 2 (AVX)" {
  printf '%s\n' 'a = input("a", (64, 64))' 'b = input("b", (64, 64))' 'output("c", a @ b)' >mm.tg
  tg-trace mm.tg | tg-schedule -o mm.bin
  TG_VECTOR_LANES=16 tg-codegen --json mm.bin -o mm16.json
  expect_eq "$(jq -r '.kernels[0].name' mm16.json)" "r_2_8_64_16_8_2" # columns of b outside, rows inside
  src=$(jq -r '.kernels[0].src' mm16.json)
  expect_eq "$(grep -c 'floatx16 acc' <<<"$src")" "16"
  expect_eq "$(grep -c 'tg_vload_floatx16(data2' <<<"$src")" "2"
  TG_VECTOR_LANES=8 tg-codegen --json mm.bin -o mm8.json
  expect_eq "$(jq -r '.kernels[0].name' mm8.json)" "r_4_16_64_8_4_2"
  expect_eq "$(jq -r '.kernels[0].src' mm8.json | grep -c 'floatx8 acc')" "8"
}

@test "a matrix-vector product sums four rows at once, each row in the order a one-row kernel sums it" {
  # 132 rows take a tile of 4 (four FMA chains share each vector of h); 130 rows cannot
  printf '%s\n' 'w = input("w", (132, 64))' 'h = input("h", (64,))' 'output("t", w @ h)' 'output("u", w[:130] @ h)' >mv.tg
  "$PYTHON" -c 'import numpy as np; r = np.random.default_rng(5)
np.save("w.npy", r.standard_normal((132, 64), dtype=np.float32)); np.save("h.npy", r.standard_normal(64, dtype=np.float32))'
  tg-trace mv.tg | tg-schedule -o mv.bin
  for lanes in 4 8 16; do
    TG_VECTOR_LANES=$lanes tg-codegen --json mv.bin -o mv.json
    expect_eq "$(jq -c --arg t "floatx$lanes acc" '[.kernels[].src | [splits($t)] | length - 1]' mv.json)" "[4,1]"
    tg-run mv.json --in w=w.npy --in h=h.npy --out-dir o >/dev/null
    expect_eq "$(npy_eval o/t.npy "np.array_equal(a[:130].view(np.uint32), np.load('o/u.npy').view(np.uint32))")" True
    expect_eq "$(npy_eval o/t.npy "np.allclose(a, np.load('w.npy') @ np.load('h.npy'), rtol=1e-5, atol=1e-5)")" True
  done
}

@test "--opt tinygrad and TG_VECTOR_LANES=0 keep tinygrad's scalar kernels" {
  tg-codegen --opt tinygrad --json "$BATS_FILE_TMPDIR/s.bin" -o t.json
  TG_VECTOR_LANES=0 tg-codegen --json "$BATS_FILE_TMPDIR/s.bin" -o z.json
  jq -e 'all(.kernels[]; .src | contains("floatx") | not)' t.json >/dev/null
  expect_eq "$(jq -c '[.kernels[].src]' z.json)" "$(jq -c '[.kernels[].src]' t.json)"
}

@test "tg-codegen --opt refuses an unknown optimizer" {
  run_split tg-codegen --opt fastest "$BATS_FILE_TMPDIR/s.bin"
  [ "$status" -eq 2 ]
  expect_contains "$err" "--opt"
}

@test "a vector kernel's op_estimate and mem_estimate count every lane: the scalar kernel's figures" {
  for opt in tg tinygrad; do
    TG_VECTOR_LANES=16 tg-codegen --opt $opt --json "$BATS_FILE_TMPDIR/s.bin" -o $opt.json
    jq -c '[.kernels[] | [.op_estimate, .mem_estimate]]' $opt.json >$opt.est
  done
  expect_eq "$(cat tg.est)" "$(cat tinygrad.est)"
  # the matmul: 2 * 40 * 48 * 64 flops, +bias and relu per output
  jq -e 'any(.kernels[]; .op_estimate == 2 * 40 * 48 * 64 + 2 * 40 * 48)' tg.json >/dev/null
}

@test "on LLVM the same kernels are <N x float> vectors, equal to the unoptimized kernels' results" {
  tg-codegen --device LLVM --noopt "$BATS_FILE_TMPDIR/s.bin" -o ref.prog
  tg-run ref.prog $(inputs) --out-dir ref >/dev/null
  for lanes in 8 16; do
    TG_VECTOR_LANES=$lanes tg-codegen --device LLVM --json "$BATS_FILE_TMPDIR/s.bin" -o l$lanes.json
    expect_eq "$(jq -c --arg t "<$lanes x float>" '[.kernels[] | select(.src | contains($t) | not) | .name]' l$lanes.json)" '[]'
    tg-run l$lanes.json $(inputs) --out-dir out$lanes >/dev/null
  done
  # (LLVM compiles with tinygrad's fast-math flags, which let it reassociate: equal to rounding)
  "$PYTHON" -c 'import numpy as np
for lanes in (8, 16):
  for o in ["mm", "conv", "conv28", "dw", "mx", "wh", "e", "s", "m"]: np.testing.assert_allclose(np.load(f"out{lanes}/{o}.npy"), np.load(f"ref/{o}.npy"), rtol=1e-5, atol=1e-5)'
}

@test "exp2, log2, 1/x and sqrt run on whole vectors on CLANG, with libm's and the instructions' bits in every lane" {
  # sigmoid and softmax over values that reach exp2's special cases (|x| >= 128, inf, nan, 0)
  printf '%s\n' 'x = input("x", (4, 64))' 'output("s", x.sigmoid())' 'output("m", x.softmax(1))' \
    'output("e", (x * 0.05).exp())' 'output("q", x.sqrt() + x.abs().rsqrt())' \
    'output("l", x.log() * 2 + (x * x).log2())' >sig.tg
  edge_inputs
  tg-trace sig.tg | tg-schedule -o sig.bin
  tg-codegen --noopt sig.bin -o ref.prog
  tg-run ref.prog --in x=x.npy --out-dir ref >/dev/null
  for lanes in 4 8 16; do
    TG_VECTOR_LANES=$lanes tg-codegen --json sig.bin -o v$lanes.json
    jq -r '.kernels[].src' v$lanes.json | grep -q "tg_vexp2_floatx$lanes("
    jq -r '.kernels[].src' v$lanes.json | grep -q "(1.0f/"
    if jq -r '.kernels[].src' v$lanes.json | grep -q "exp2(alu[0-9]*\[0\])"; then echo "exp2 lane by lane"; return 1; fi
    tg-run v$lanes.json --in x=x.npy --out-dir out$lanes >/dev/null
    jq -r '.kernels[].src' v$lanes.json | grep -q "tg_vlog2_floatx$lanes("
    # 8 and 16 lanes look their tables up with AVX-512 permutes where the CPU has them
    if [ "$lanes" != 4 ]; then jq -r '.kernels[].src' v$lanes.json | grep -q "__builtin_ia32_vpermi2varq512"; fi
    same_bits ref out$lanes smeql
  done
}

@test "exp2 runs on whole vectors on LLVM too (glibc's exp2f in IR), with CLANG's bits in every lane" {
  printf '%s\n' 'x = input("x", (4, 64))' 'output("s", x.sigmoid())' 'output("m", x.softmax(1))' \
    'output("e", (x * 0.05).exp())' >sig.tg
  edge_inputs
  tg-trace sig.tg | tg-schedule -o sig.bin
  for lanes in 4 8; do
    TG_VECTOR_LANES=$lanes tg-codegen -d LLVM --json sig.bin -o llvm$lanes.json
    jq -r '.kernels[].src' llvm$lanes.json | grep -q "<$lanes x float> @tg_vexp2_v${lanes}f32(<$lanes x float>"
    # the kernels call exp2f's vector form; only its fallback for special lanes calls exp2f
    if jq -r '.kernels[].src' llvm$lanes.json | awk '/^define void/,/^}/' | grep -q "llvm.exp2.f32(float"; then
      echo "exp2 lane by lane"
      return 1
    fi
    tg-run llvm$lanes.json --in x=x.npy --out-dir llvm$lanes >/dev/null
    TG_VECTOR_LANES=$lanes tg-codegen sig.bin | tg-run --in x=x.npy --out-dir clang$lanes >/dev/null
    same_bits clang$lanes llvm$lanes sme
  done
}

@test "a fused epilogue's vector reads (a residual input) come after the reduce loop, not across it; results as numpy's" {
  # 16 accumulators and 16 residual vectors held across the loop spill on AVX-512's 32 registers
  printf '%s\n' 'a = input("a", (64, 256))' 'b = input("b", (256, 256))' 'r = input("r", (64, 256))' \
    'output("y", (a @ b + r).relu())' >res.tg
  tg-trace res.tg | tg-schedule -o res.bin
  for lanes in 8 16; do
    TG_VECTOR_LANES=$lanes tg-codegen --json res.bin -o res$lanes.json
    jq -r '.kernels[0].src' res$lanes.json >k.c
    r=$(jq -r '.kernels[0].bufs | index(2)' res$lanes.json) # the kernel's data<N> that is r
    loop=$(grep -n "acc0 = ((" k.c | head -1 | cut -d: -f1)
    first=$(grep -n "tg_vload_floatx$lanes(data$r+" k.c | head -1 | cut -d: -f1)
    [ -n "$loop" ] && [ -n "$first" ]
    [ "$first" -gt "$loop" ]
  done
  make_npy a.npy 'np.random.default_rng(0).standard_normal((64, 256), np.float32)'
  make_npy b.npy 'np.random.default_rng(1).standard_normal((256, 256), np.float32)'
  make_npy r.npy 'np.random.default_rng(2).standard_normal((64, 256), np.float32)'
  tg-run res16.json --in a=a.npy --in b=b.npy --in r=r.npy --out-dir out >/dev/null
  "$PYTHON" -c 'import numpy as np
a, b, r = (np.load(f"{n}.npy") for n in "abr")
np.testing.assert_allclose(np.load("out/y.npy"), np.maximum(a @ b + r, 0), rtol=1e-4, atol=1e-4)'
}
