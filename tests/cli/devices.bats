#!/usr/bin/env bats
# Devices: tg-codegen --device, tg-run runs a program on the device it names, --compile-only,
# and the clear errors when a device is missing (docs/architecture.md, "Devices").
load helpers

program() { # device -> p.bin for a small elementwise + reduce script
  printf '%s\n' "x = input('x', (4, 8))" "output('y', (x * 2 + 1).exp2().sum(axis=1))" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen --device "$1" -o p.bin
  "$PYTHON" -c "import numpy as np; np.save('x.npy', np.arange(32, dtype=np.float32).reshape(4, 8) / 32)"
}

@test "tg-codegen --help names every device" {
  run_split tg-codegen --help
  for d in CLANG LLVM GPU CUDA; do expect_contains "$out" "$d"; done
}

@test "tg-codegen --device with an unknown name says which devices exist" {
  printf '%s\n' "output('y', Tensor.ones(2) + 1)" >k.tg
  pipeline "tg-trace k.tg | tg-schedule | tg-codegen --device METAL"
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: unknown device 'METAL' (known: CLANG, LLVM, GPU, CUDA)"
}

@test "the program names its device and each device renders its own language" {
  for d in CLANG LLVM GPU CUDA; do
    printf '%s\n' "x = input('x', (4, 8))" "output('y', x + 1)" >k.tg
    tg-trace k.tg | tg-schedule | tg-codegen --device "$d" --json >"$d.json"
    expect_eq "$(jq -r .device "$d.json")" "$d"
  done
  jq -r '.kernels[0].src' CLANG.json | grep -q 'restrict'
  jq -r '.kernels[0].src' LLVM.json | grep -q '^define void @E_'
  jq -r '.kernels[0].src' GPU.json | grep -q '^__kernel void E_'
  jq -r '.kernels[0].src' GPU.json | grep -q 'get_local_id(0)'
  jq -r '.kernels[0].src' CUDA.json | grep -q '^extern "C" __global__ void E_'
  jq -r '.kernels[0].src' CUDA.json | grep -q 'threadIdx.x'
  # the launch is the kernel's: 32 elements, upcast by 4, the 8 left one work-group (tinygrad's
  # local-size heuristic)
  expect_eq "$(jq -c '.kernels[0].global_size' GPU.json)" "[1,1,1]"
  expect_eq "$(jq -c '.kernels[0].local_size' GPU.json)" "[8,1,1]"
}

@test "CLANG, LLVM and GPU give the same values" {
  for d in CLANG LLVM GPU; do
    program "$d"
    tg-run p.bin --in x=x.npy --out-dir "out-$d"
  done
  "$PYTHON" - <<'PY'
import numpy as np
ref = np.load("out-CLANG/y.npy")
want = np.exp2(np.arange(32, dtype=np.float32).reshape(4, 8) / 32 * 2 + 1).sum(axis=1)
assert np.allclose(ref, want, rtol=1e-6), (ref, want)
for d in ("LLVM", "GPU"):
    got = np.load(f"out-{d}/y.npy")
    assert np.allclose(got, ref, rtol=1e-6, atol=1e-6), (d, got, ref)
PY
}

@test "tg-run --compile-only compiles into the cache and runs nothing" {
  program LLVM
  run_split tg-run --compile-only p.bin
  [ "$status" -eq 0 ]
  expect_contains "$err" "compiled"
  expect_contains "$err" "for LLVM"
  expect_eq "$out" ""
  run_split tg-run --compile-only p.bin
  expect_contains "$err" "(cached)"
  # and the real run finds it there
  tg-run p.bin --in x=x.npy >/dev/null
}

@test "tg-run --compile-only takes no inputs" {
  program CLANG
  run_split tg-run --compile-only p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_contains "$err" "--compile-only runs nothing"
}

@test "CUDA kernels compile with NVRTC on a machine without a GPU" {
  ldconfig -p | grep -q libnvrtc || compgen -G "/usr/local/cuda/lib64/libnvrtc.so*" >/dev/null ||
    skip "NVRTC is not installed"
  program CUDA
  run_split tg-run --compile-only p.bin
  [ "$status" -eq 0 ]
  expect_contains "$err" "for CUDA"
  ls "$TG_CACHE_DIR"/cuda/*.ptx >/dev/null
  grep -q '.entry' "$TG_CACHE_DIR"/cuda/*.ptx
}

@test "running CUDA without a driver is one clear error" {
  [ -e /dev/nvidia0 ] && skip "this machine has a GPU"
  program CUDA
  run_split tg-run p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$(wc -l <<<"$err")" "1"
  expect_contains "$err" "tg-run: CUDA: no CUDA"
}

@test "GPU without any OpenCL platform is one clear error" {
  program GPU
  # an ICD directory with no drivers: the loader finds no platform
  mkdir -p empty-icd
  OCL_ICD_VENDORS="$PWD/empty-icd" run_split tg-run p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$(wc -l <<<"$err")" "1"
  expect_contains "$err" "tg-run: GPU: no OpenCL platform"
}

@test "host kernels split across threads give the same bytes on LLVM" {
  printf '%s\n' "a = Tensor.arange(256 * 300).reshape(256, 300).float().sin()" "output('y', (a * 3).exp2())" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen --device LLVM -o p.bin
  jq -e '.kernels[0].vars | index("core_start")' <(tg-trace k.tg | tg-schedule | tg-codegen --device LLVM --json) >/dev/null
  TG_THREADS=1 tg-run p.bin --out-dir one
  TG_THREADS=3 tg-run p.bin --out-dir three
  cmp one/y.npy three/y.npy
}

@test "a float64 -> float16 cast rounds once, as numpy's, on CLANG and LLVM (and in exported C)" {
  # clang 14 turns (__fp16)(double) into a libgcc call it reads with another ABI (garbage), and
  # going through float rounds twice: near-ties must land where numpy puts them
  "$PYTHON" - <<'PY'
import numpy as np
r = np.random.default_rng(0)
a = r.standard_normal(2000) * r.choice([1e-6, 1e-3, 1, 100, 6e4], 2000)
mid = 1 + (np.arange(1, 2048) + 0.5) / 2048
x = np.concatenate([a, mid, np.nextafter(mid, 2), np.nextafter(mid, 0), [70000.0, 65519.99, 65520.0, -1e-9, np.inf, -np.inf, np.nan]])
x = np.resize(x, 8192)
np.save("x.npy", x)
PY
  printf '%s\n' "x = input('x', (8192,), dtypes.float64)" "output('y', x.cast(dtypes.float16))" >h.tg
  for dev in CLANG LLVM; do
    tg-trace h.tg | tg-schedule | tg-codegen --device $dev | tg-run --in x=x.npy --out-dir "out_$dev"
    "$PYTHON" -c "
import numpy as np, warnings
warnings.simplefilter('ignore')
x = np.load('x.npy'); got = np.load('out_$dev/y.npy'); want = x.astype(np.float16)
assert got.tobytes() == want.tobytes(), ('$dev', np.flatnonzero(got.view(np.uint16) != want.view(np.uint16))[:5])"
  done
  tg-trace h.tg | tg-schedule | tg-codegen --emit c --name h -o lib
  cc -std=c11 -O2 -Wall -Werror -c lib/h.c -o h.o
}
