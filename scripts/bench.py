#!/usr/bin/env python3
"""Benchmarks: tg against tinygrad 0.9.1 (CLANG) and numpy, measured in the same run.

    .venv/bin/python scripts/bench.py [--bin build/bin] [--n 1024]

Prints, for a float32 N x N matmul: the kernel's GFLOP/s in tg, tinygrad and numpy, and the
time from script to compiled kernels (cold compile cache) in tg and tinygrad. Timing lives
here, never in pass/fail tests.
"""
import argparse, os, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def best_of(fn, repeat):
  best = float("inf")
  for _ in range(repeat):
    t0 = time.perf_counter()
    fn()
    best = min(best, time.perf_counter() - t0)
  return best


def tg_matmul(bindir: Path, n: int, work: Path, repeat: int):
  script = work / "matmul.tg"
  script.write_text(f'a = input("a", ({n}, {n}))\nb = input("b", ({n}, {n}))\noutput("c", a @ b)\n')
  rng = np.random.default_rng(0)
  for name in "ab": np.save(work / f"{name}.npy", rng.standard_normal((n, n), dtype=np.float32))
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  t0 = time.perf_counter()
  prog = subprocess.run(f"{bindir}/tg-trace {script} | {bindir}/tg-schedule | {bindir}/tg-codegen", shell=True,
                        check=True, capture_output=True, env=env).stdout
  t_codegen = time.perf_counter() - t0
  (work / "matmul.prog").write_bytes(prog)
  run = [f"{bindir}/tg-run", str(work / "matmul.prog"), "--in", f"a={work}/a.npy", "--in", f"b={work}/b.npy",
         "--out-dir", str(work / "out")]
  t0 = time.perf_counter()
  subprocess.run(run, check=True, env=env)
  t_cold = time.perf_counter() - t0
  t0 = time.perf_counter()
  subprocess.run(run, check=True, env=env)
  t_warm = time.perf_counter() - t0
  err = subprocess.run(run + ["--time", "--repeat", str(repeat)], check=True, env=env, capture_output=True,
                       text=True).stderr
  kernel_s = sum(float(line.rsplit(" ", 2)[-2]) for line in err.splitlines() if line.startswith("tg-run: kernel")) / 1e3
  c = np.load(work / "out" / "c.npy")
  ref = np.load(work / "a.npy") @ np.load(work / "b.npy")
  np.testing.assert_allclose(c, ref, atol=1e-3, rtol=1e-3)
  return kernel_s, t_codegen + (t_cold - t_warm)


def tinygrad_matmul(n: int, repeat: int):
  os.environ["CLANG"] = "1"
  from tinygrad import Tensor
  from tinygrad.helpers import Context
  rng = np.random.default_rng(0)
  a = Tensor(rng.standard_normal((n, n), dtype=np.float32)).realize()
  b = Tensor(rng.standard_normal((n, n), dtype=np.float32)).realize()
  t0 = time.perf_counter()
  (a @ b).realize()  # schedule, codegen, compile and one run
  t_first = time.perf_counter() - t0
  kernel_s = best_of(lambda: (a @ b).realize(), repeat)
  return kernel_s, t_first - kernel_s


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--n", type=int, default=1024)
  ap.add_argument("--repeat", type=int, default=3)
  args = ap.parse_args()
  n, flop = args.n, 2 * args.n ** 3
  with tempfile.TemporaryDirectory() as d:
    tg_k, tg_compile = tg_matmul(args.bin, n, Path(d), args.repeat)
  tiny_k, tiny_compile = tinygrad_matmul(n, args.repeat)
  rng = np.random.default_rng(0)
  a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
  np_k = best_of(lambda: a @ b, args.repeat)
  print(f"float32 matmul {n}x{n} (kernel time, best of {args.repeat})")
  for name, s in (("tg", tg_k), ("tinygrad", tiny_k), ("numpy", np_k)):
    print(f"  {name:9s} {s * 1e3:9.2f} ms  {flop / s / 1e9:8.2f} GFLOP/s")
  print(f"  tg / tinygrad speed: {tiny_k / tg_k:.2f}x   tg / numpy speed: {np_k / tg_k:.3f}x")
  print("script to compiled kernel (cold cache)")
  print(f"  tg {tg_compile * 1e3:.0f} ms   tinygrad {tiny_compile * 1e3:.0f} ms   ratio {tiny_compile / tg_compile:.2f}x")


if __name__ == "__main__":
  sys.exit(main())
