#!/usr/bin/env bats
# Hardening: inputs that once crashed, overflowed or ran out of memory now work or fail with
# one clear line (issue 11). Each test is the regression test of one defect.
load helpers

chain() { # N -> chain.tg: t = t * 1.0001 + 1, N times (a graph N*2 ops deep)
  {
    echo 't = Tensor.ones(4)'
    for ((i = 0; i < $1; i++)); do echo 't = t * 1.0001 + 1'; done
    echo 'output("t", t)'
  } >chain.tg
}

@test "a 20,000-op chain goes through every stage, JSON and gradient too (was a stack overflow)" {
  {
    echo 'x = input("x", (4,))'
    echo 't = x'
    for ((i = 0; i < 20000; i++)); do echo 't = t * 1.0001 + 1'; done
    echo 'output("loss", t.sum())'
  } >g.tg
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.ones(4, np.float32))'
  pipeline 'tg-trace g.tg --json | tg-grad --wrt x | tg-schedule | tg-codegen --device LLVM | tg-run --in x=x.npy'
  [ "$status" -eq 0 ]
  expect_eq "$err" ""
  # d loss / dx = 1.0001^20000 = 7.38832 (7.3883 after 20,000 float32 roundings)
  [[ "$out" == *"grad_x: shape=(4,) dtype=float32"$'\n'"[7.388"* ]]
}

@test "a 20,000-op chain renders C a C compiler accepts (inlining is depth-capped)" {
  chain 20000
  pipeline 'tg-trace chain.tg | tg-schedule | tg-codegen --device CLANG --json'
  [ "$status" -eq 0 ]
  src="$(jq -r '.kernels[0].src' <<<"$out")"
  # no line nests more than a few hundred brackets deep (clang stops at 256)
  depth="$(awk '{ d = 0; m = 0; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1);
    if (c == "(") { d++; if (d > m) m = d } else if (c == ")") d-- } if (m > mx) mx = m }
    END { print mx + 0 }' <<<"$src")"
  [ "$depth" -le 200 ]
}

@test "a shape whose element count overflows 64 bits is one ValueError, not a wrong answer" {
  printf 'output("s", Tensor.ones(10**12, 10**12).sum())\n' >big.tg
  run_split tg-trace big.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: big.tg:1: ValueError: shape (1000000000000, 1000000000000) has more elements than a 64-bit size can count"
  expect_eq "$out" ""
}

@test "a repeat whose size overflows is a ValueError" {
  printf 'output("r", Tensor.ones(4).repeat(2**62, 4))\n' >rep.tg
  run_split tg-trace rep.tg
  [ "$status" -eq 1 ]
  [[ "$err" == "tg-trace: rep.tg:1: ValueError: "*"64-bit size"* ]]
}

@test "a pad whose size overflows is a ValueError" {
  printf 'output("p", Tensor.ones(4).pad(((2**62, 2**62),)))\n' >pad.tg
  run_split tg-trace pad.tg
  [ "$status" -eq 1 ]
  [[ "$err" == "tg-trace: pad.tg:1: ValueError: "* ]]
}

@test "sizes past 32 bits that fit in 64 are still computed" {
  printf 'output("s", Tensor.ones(2**31, 2).sum())\n' >s.tg
  pipeline 'tg-trace s.tg | tg-schedule | tg-codegen --device LLVM | tg-run'
  [ "$status" -eq 0 ]
  [[ "$out" == *"4.2949673e+09"* ]]
}

@test "zero-size shapes next to huge dims are empty, not an overflow" {
  printf 'output("z", Tensor.ones(0, 2**62).sum(1))\n' >z.tg
  pipeline 'tg-trace z.tg | tg-schedule | tg-codegen | tg-run'
  [ "$status" -eq 0 ]
  [[ "$out" == *"shape=(0,)"* ]]
}

@test "a program whose buffer table is smaller than its kernels touch is refused before running" {
  printf 'x = input("x", (4,))\noutput("y", x * 2)\n' >e.tg
  tg-trace e.tg | tg-schedule | tg-codegen --json >e.json
  "$PYTHON" -c 'import numpy as np; np.save("x1.npy", np.ones(1, np.float32)); np.save("x.npy", np.ones(4, np.float32))'
  # an input shrunk to one element, with a matching one-element .npy
  jq '(.buffers[] | select(.name == "x") | .size) = 1 | .inputs[0].shape = [1]' e.json >small_in.json
  run_split tg-run small_in.json --in x=x1.npy --out-dir out
  [ "$status" -eq 1 ]
  [[ "$err" =~ ^"tg-run: invalid program artifact: kernel 0 'E_4': touches 16 bytes of buffer "[0-9]+", which holds 4"$ ]]
  expect_eq "$out" ""
  [ ! -e out ]
  # an output shrunk to one element
  jq '(.buffers[] | select(.name == "y") | .size) = 1 | .outputs[0].shape = [1]' e.json >small_out.json
  run_split tg-run small_out.json --in x=x.npy
  [ "$status" -eq 1 ]
  [[ "$err" == *"touches 16 bytes of buffer"*", which holds 4" ]]
  # a buffer retyped to a narrower dtype
  jq '(.buffers[] | select(.name == "y") | .dtype) = "float16" | .outputs[0].dtype = "float16"' e.json >narrow.json
  run_split tg-run narrow.json --in x=x.npy
  [ "$status" -eq 1 ]
  [[ "$err" == *"touches 16 bytes of buffer"*", which holds 8" ]]
  # extents removed
  jq 'del(.kernels[0].extents)' e.json >no_extents.json
  run_split tg-run no_extents.json --in x=x.npy
  [ "$status" -eq 1 ]
  [[ "$err" == "tg-run: truncated or corrupt program artifact: "*"extents"* ]]
}

@test "an edited launch size on a host kernel neither runs past its buffers nor skips work" {
  printf 'a = Tensor.arange(256 * 256).reshape(256, 256).cast(dtypes.float32) / 1000\noutput("b", a @ a)\n' >mm.tg
  for dev in CLANG LLVM; do
    tg-trace mm.tg | tg-schedule | tg-codegen --device $dev --json >mm.json
    jq -e '.kernels[-1].vars == ["core_end", "core_start"] and .kernels[-1].global_size[0] > 1' mm.json
    run_split env TG_THREADS=2 "$TG_BIN/tg-run" mm.json
    [ "$status" -eq 0 ]
    plain="$out"
    for g in 1 3 1000000; do # fewer iterations than the kernel's range, a ragged split, far more
      jq ".kernels[-1].global_size[0] = $g" mm.json >edited.json
      for threads in 1 2; do
        run_split env TG_CHECK_BOUNDS=1 TG_THREADS=$threads "$TG_BIN/tg-run" edited.json
        [ "$status" -eq 0 ]
        expect_eq "$err" ""
        expect_eq "$out" "$plain"
      done
    done
  done
}

@test "an empty .npy whose other dims are huge is read as empty (no overflow before the zero)" {
  printf 'x = input("x", (2**62, 0))\noutput("y", x.sum(0))\n' >z.tg
  "$PYTHON" - <<'PY'
import numpy as np
np.save("z.npy", np.zeros((0, 4), np.float32))
d = open("z.npy", "rb").read().replace(b"(0, 4)", b"(4611686018427387904, 0)")
open("z.npy", "wb").write(d)
PY
  pipeline 'tg-trace z.tg | tg-schedule | tg-codegen | tg-run --in x=z.npy'
  [ "$status" -eq 0 ]
  expect_eq "$out" $'y: shape=(0,) dtype=float32\n[]'
}

@test "TG_CHECK_BOUNDS=1 reports a kernel that reads past its buffer, on CLANG and LLVM" {
  printf 'x = input("x", (4,))\noutput("y", x * 2)\n' >e.tg
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.ones(4, np.float32))'
  # (tinygrad's scalar kernel: its source has the index to edit)
  tg-trace e.tg | tg-schedule | tg-codegen --opt tinygrad --json >clang.json
  jq '.kernels[0].src |= sub("data1\\[3\\]"; "data1[4]")' clang.json >read_past.json
  run_split env TG_CHECK_BOUNDS=1 "$TG_BIN/tg-run" read_past.json --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: kernel 'E_4' accessed byte 16 of a 16-byte buffer (TG_CHECK_BOUNDS)"
  expect_eq "$out" ""
  tg-trace e.tg | tg-schedule | tg-codegen --device LLVM --opt tinygrad --json >llvm.json
  jq '.kernels[0].src |= sub("ptr %data1, i32 3"; "ptr %data1, i32 4")' llvm.json >llvm_past.json
  run_split env TG_CHECK_BOUNDS=1 "$TG_BIN/tg-run" llvm_past.json --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: kernel 'E_4' accessed byte 16 of a 16-byte buffer (TG_CHECK_BOUNDS)"
}

@test "TG_CHECK_BOUNDS=1 reports a kernel that writes below its buffer" {
  printf 'x = input("x", (4,))\noutput("y", x * 2)\n' >e.tg
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.ones(4, np.float32))'
  tg-trace e.tg | tg-schedule | tg-codegen --opt tinygrad --json | jq '.kernels[0].src |= sub("data0\\[0\\] ="; "data0[-1] =")' >below.json
  run_split env TG_CHECK_BOUNDS=1 "$TG_BIN/tg-run" below.json --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: kernel 'E_4' wrote byte -4 of a 16-byte buffer (TG_CHECK_BOUNDS)"
}

@test "TG_CHECK_BOUNDS=1 changes no result, split over threads too" {
  printf 'x = Tensor.arange(4096 * 64).reshape(4096, 64).cast(dtypes.float32)\noutput("s", (x * 2).sum(1).sum())\n' >big.tg
  tg-trace big.tg | tg-schedule | tg-codegen -o p.bin
  run_split env TG_CHECK_BOUNDS=0 TG_THREADS=2 "$TG_BIN/tg-run" p.bin
  plain="$out"
  run_split env TG_CHECK_BOUNDS=1 TG_THREADS=2 "$TG_BIN/tg-run" p.bin
  [ "$status" -eq 0 ]
  expect_eq "$out" "$plain"
}

@test "a script repeating a sequence past 2**30 items is a MemoryError, not a hang" {
  printf 'x = "a" * 10**12\n' >s.tg
  run_split tg-trace s.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: s.tg:1: MemoryError: repeating a sequence of 1 items 1000000000000 times is past .tg's limit of 2**30 items"
  printf 'x = [0, 1] * 2**40\n' >l.tg
  run_split tg-trace l.tg
  [ "$status" -eq 1 ]
  [[ "$err" == "tg-trace: l.tg:1: MemoryError: "* ]]
}

@test "a negative dimension stops tg-trace, not a later tool" {
  printf 'output("y", Tensor.ones(-2))\n' >n.tg
  run_split tg-trace n.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: n.tg:1: AssertionError: negative dimension in shape (-2,)"
  expect_eq "$out" ""
}

@test "a zero-size constant buffer is copied without a null pointer (UBSan under make asan)" {
  printf 'x = input("x", (4,))\noutput("y", x * 2)\n' >e.tg
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.ones(4, np.float32))'
  tg-trace e.tg | tg-schedule | tg-codegen --json |
    jq '.buffers += [{"id": 7, "dtype": "float32", "size": 0, "role": "constant", "name": "", "data": "", "device": "", "dims": []}]' >z.json
  run_split tg-run z.json --in x=x.npy
  [ "$status" -eq 0 ]
  expect_eq "$out" $'y: shape=(4,) dtype=float32\n[2. 2. 2. 2.]'
  expect_eq "$err" ""
}

@test "a tool whose stdout is full says so in one line and fails; a large artifact written in pieces arrives whole" {
  run bash -c 'tg-trace "$1" >/dev/full 2>err.txt' _ "$ROOT/examples/demo.tg"
  [ "$status" -eq 1 ]
  expect_eq "$(cat err.txt)" "tg-trace: stdout: cannot write: No space left on device"
  # 4 MiB of weights: written as pieces through the pipes, read mapped from a file
  "$PYTHON" -c '
import numpy as np
from safetensors.numpy import save_file
save_file({"w": (np.arange(1 << 20) % 16).astype(np.float32).reshape(4, -1)}, "w.safetensors")
np.save("x.npy", np.array([1, 0, 2, 0], np.float32))'
  printf '%s\n' 'w = nn.state.safe_load("w.safetensors")["w"]' 'x = input("x", (4,))' \
    'output("y", (w * x.reshape(4, 1)).sum(1))' >big.tg
  tg-trace big.tg | tg-schedule | tg-codegen >big.prog
  [ "$(stat -c %s big.prog)" -gt 4194304 ]
  tg-trace big.tg | tg-schedule -o big.sched
  tg-codegen big.sched | cmp - big.prog
  tg-run big.prog --in x=x.npy --out-dir o >/dev/null
  expect_eq "$(npy_eval o/y.npy 'a.tolist()')" "[1966080.0, 0.0, 3932160.0, 0.0]"
}
