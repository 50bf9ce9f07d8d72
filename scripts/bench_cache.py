#!/usr/bin/env python3
"""Cache misses of tg's contraction kernels on caches this machine does not have (issue 28).

    .venv/bin/python scripts/bench_cache.py [--bin build/bin] [--quick]

Runs each case's kernel — the 1024^3 and 2048^3 float32 matmuls, a 3x3 conv and a 1x1 stride-2
conv of ResNet-50 (batch 1) — with packing on and off (TG_PACK=0: panels and conv windows), under
valgrind's cachegrind for each cache hierarchy in HIERARCHIES: its L1d and L2 (simulated as the
last level), and prints the kernel's misses per 1000 FLOP in each. The kernels are compiled for
x86-64-v3 with 8-float vectors (TG_MARCH, TG_VECTOR_LANES): valgrind cannot decode AVX-512.
The packing budget follows each hierarchy's L2 (TG_L2_BYTES), as tg-codegen on that machine
would choose it. A figure, not a test: it needs valgrind, a minute per 1024^3 run and ~10 for
the 2048^3 one (packed, Xeon hierarchy only; --quick leaves it out).
"""
import argparse, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# name: (L1d size, ways, line), (L2 size, ways, line)
HIERARCHIES = {
    "Intel Xeon (48 KB L1d, 2 MB L2)": ((49152, 12, 64), (2097152, 16, 64)),
    "AMD Zen 4 (32 KB L1d, 1 MB L2)": ((32768, 8, 64), (1048576, 8, 64)),
    "AMD Zen 2/3 (32 KB L1d, 512 KB L2)": ((32768, 8, 64), (524288, 8, 64)),
}


def kernel_misses(out_file: Path):
  """(D1 misses, LL misses) of the functions named r_* (the contraction kernel) or tg_launch_r_* (its
  launch wrapper, into which clang inlines the kernel when it has no stack array: the unpacked one)
  in a cachegrind file, and of ???: a kernel whose symbol valgrind cannot name; tg-run runs no other
  code without symbols."""
  events, in_kernel, d1, ll = [], False, 0, 0
  for line in out_file.read_text().splitlines():
    if line.startswith("events:"):
      events = line.split()[1:]
    elif line.startswith("fn="):
      in_kernel = line[3:].startswith(("r_", "tg_launch_r_")) or line[3:] == "???"
    elif in_kernel and line[:1].isdigit():
      counts = dict(zip(events, map(int, line.split()[1:])))
      d1 += counts.get("D1mr", 0) + counts.get("D1mw", 0)
      ll += counts.get("DLmr", 0) + counts.get("DLmw", 0)
  return d1, ll


def conv3x3(v):
  xp = np.pad(v["x"][0], ((0, 0), (1, 1), (1, 1)))
  return sum(np.einsum("oc,chw->ohw", v["w"][:, :, i, j], xp[:, i:i + 28, j:j + 28]) for i in range(3)
             for j in range(3))[None]


# name: (script, {input: shape}, FLOP of its one contraction kernel, numpy reference of the output)
def cases(quick: bool):
  out = {}
  for n in (1024,) if quick else (1024, 2048):
    out[f"matmul {n}^3"] = (f'a = input("a", ({n}, {n}))\nb = input("b", ({n}, {n}))\noutput("c", a @ b)\n',
                           {"a": (n, n), "b": (n, n)}, 2 * n ** 3, lambda v: v["a"] @ v["b"])
  out["ResNet-50 3x3 conv, 128 ch, 28x28"] = (
    'x = input("x", (1, 128, 28, 28))\nw = input("w", (128, 128, 3, 3))\noutput("c", x.conv2d(w, padding=1))\n',
    {"x": (1, 128, 28, 28), "w": (128, 128, 3, 3)}, 2 * 128 * 28 * 28 * 128 * 9, conv3x3)
  out["ResNet-50 1x1 stride-2 conv, 256->512, 56x56"] = (
    'x = input("x", (1, 256, 56, 56))\nw = input("w", (512, 256, 1, 1))\noutput("c", x.conv2d(w, stride=2))\n',
    {"x": (1, 256, 56, 56), "w": (512, 256, 1, 1)}, 2 * 512 * 28 * 28 * 256,
    lambda v: np.einsum("oc,chw->ohw", v["w"][:, :, 0, 0], v["x"][0, :, ::2, ::2])[None])
  return out


def run(bindir: Path, work: Path, script: str, shapes: dict, reference, pack: bool, d1, l2):
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"), TG_MARCH="x86-64-v3", TG_VECTOR_LANES="8",
             TG_THREADS="1", TG_L2_BYTES=str(l2[0]), TG_PACK="1" if pack else "0")
  (work / "k.tg").write_text(script)
  prog = work / f"k{int(pack)}.prog"
  subprocess.run(f"{bindir}/tg-trace {work}/k.tg | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}",
                 shell=True, check=True, env=env)
  subprocess.run([f"{bindir}/tg-run", str(prog), "--compile-only"], check=True, env=env, capture_output=True)
  out = work / "cg.out"
  ins = [arg for name in shapes for arg in ("--in", f"{name}={work}/{name}.npy")]
  subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--D1={d1[0]},{d1[1]},{d1[2]}",
                  f"--LL={l2[0]},{l2[1]},{l2[2]}", f"--cachegrind-out-file={out}", f"{bindir}/tg-run", str(prog)] +
                 ins + ["--out-dir", str(work / "out")], check=True, env=env, capture_output=True)
  if reference:
    v = {name: np.load(work / f"{name}.npy") for name in shapes}
    np.testing.assert_allclose(np.load(work / "out" / "c.npy"), reference(v), atol=1e-3, rtol=1e-3)
  return kernel_misses(out)


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--quick", action="store_true", help="leave the 2048^3 matmul out")
  args = ap.parse_args()
  if not shutil.which("valgrind"):
    print("bench_cache: valgrind is not installed; no cache figures", file=sys.stderr)
    return 0
  print("kernel cache misses per 1000 FLOP under cachegrind (one thread, AVX2 code; packing: panels and conv windows)")
  print(f"  {'kernel':46s} {'cache hierarchy':34s} {'packing':>8s} {'L1d':>8s} {'L2':>8s}")
  rng = np.random.default_rng(0)
  with tempfile.TemporaryDirectory() as d:
    work = Path(d)
    for kernel, (script, shapes, flop, reference) in cases(args.quick).items():
      for name, shape in shapes.items():
        np.save(work / f"{name}.npy", rng.standard_normal(shape, dtype=np.float32))
      # 2048^3 runs ~10 minutes under cachegrind: packed, on the 2 MB-L2 Xeon that issue 28 measured
      for hierarchy, (d1, l2) in HIERARCHIES.items() if flop < 1e10 else list(HIERARCHIES.items())[:1]:
        for pack in (False, True) if flop < 1e10 else (True,):
          m1, m2 = run(args.bin, work, script, shapes, reference, pack, d1, l2)
          print(f"  {kernel:46s} {hierarchy:34s} {'on' if pack else 'off':>8s} {m1 * 1e3 / flop:8.3f} "
                f"{m2 * 1e3 / flop:8.3f}", flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
