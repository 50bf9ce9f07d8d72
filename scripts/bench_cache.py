#!/usr/bin/env python3
"""Cache misses of tg's matmul kernels on caches this machine does not have (issue 28).

    .venv/bin/python scripts/bench_cache.py [--bin build/bin] [--n 1024]

Runs the N x N x N float32 matmul kernel, panel packing on and off (TG_PACK=0), under valgrind's
cachegrind for each cache hierarchy in HIERARCHIES: its L1d and L2 (simulated as the last
level), and prints the kernel's misses per 1000 FLOP in each. The kernels are compiled for
x86-64-v3 with 8-float vectors (TG_MARCH, TG_VECTOR_LANES): valgrind cannot decode AVX-512.
The panel budget follows each hierarchy's L2 (TG_L2_BYTES), as tg-codegen on that machine
would choose it. A figure, not a test: it needs valgrind and a few seconds per run.
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
  """(D1 misses, LL misses) of the functions named r_* (the matmul kernel) or tg_launch_r_* (its
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


def run(bindir: Path, work: Path, n: int, pack: bool, d1, l2):
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"), TG_MARCH="x86-64-v3", TG_VECTOR_LANES="8",
             TG_THREADS="1", TG_L2_BYTES=str(l2[0]), TG_PACK="1" if pack else "0")
  prog = work / f"mm{int(pack)}.prog"
  subprocess.run(f"{bindir}/tg-trace {work}/mm.tg | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}",
                 shell=True, check=True, env=env)
  subprocess.run([f"{bindir}/tg-run", str(prog), "--compile-only"], check=True, env=env, capture_output=True)
  out = work / "cg.out"
  subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--D1={d1[0]},{d1[1]},{d1[2]}",
                  f"--LL={l2[0]},{l2[1]},{l2[2]}", f"--cachegrind-out-file={out}", f"{bindir}/tg-run", str(prog),
                  "--in", f"a={work}/a.npy", "--in", f"b={work}/b.npy", "--out-dir", str(work / "out")],
                 check=True, env=env, capture_output=True)
  a, b = np.load(work / "a.npy"), np.load(work / "b.npy")
  np.testing.assert_allclose(np.load(work / "out" / "c.npy"), a @ b, atol=1e-3, rtol=1e-3)
  return kernel_misses(out)


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--n", type=int, default=1024)
  args = ap.parse_args()
  if not shutil.which("valgrind"):
    print("bench_cache: valgrind is not installed; no cache figures", file=sys.stderr)
    return 0
  n = args.n
  flop = 2 * n ** 3
  print(f"float32 matmul {n}^3 under cachegrind (one thread, AVX2 code): kernel misses per 1000 FLOP")
  print(f"  {'cache hierarchy':34s} {'packing':>8s} {'L1d':>8s} {'L2':>8s}")
  with tempfile.TemporaryDirectory() as d:
    work = Path(d)
    (work / "mm.tg").write_text(f'a = input("a", ({n}, {n}))\nb = input("b", ({n}, {n}))\noutput("c", a @ b)\n')
    rng = np.random.default_rng(0)
    np.save(work / "a.npy", rng.standard_normal((n, n), dtype=np.float32))
    np.save(work / "b.npy", rng.standard_normal((n, n), dtype=np.float32))
    for name, (d1, l2) in HIERARCHIES.items():
      for pack in (False, True):
        m1, m2 = run(args.bin, work, n, pack, d1, l2)
        print(f"  {name:34s} {'on' if pack else 'off':>8s} {m1 * 1e3 / flop:8.3f} {m2 * 1e3 / flop:8.3f}", flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
