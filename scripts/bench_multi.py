#!/usr/bin/env python3
"""Multi-device benchmarks (issue 31), ratios measured in this run:

  - a data-parallel training step of the MNIST CNN (beautiful_mnist's model, Adam, global batch
    fixed) under `mpirun -n 2 tg-run --dist mpi` (one thread per rank) against one process, one
    device, one thread: samples/s;
  - the same step in one process on CLANG:1 and CLANG:2 (the devices at once, a thread each)
    against one CLANG device on 2 threads;
  - an all-reduce of 4M float32 over 2 ranks against a 16 MB memcpy on this machine.

    .venv/bin/python scripts/bench_multi.py [--bin build/bin] [--steps 20] [--repeat 3]

A figure, not a test: nothing here fails on a slow machine. Skips the MPI lines where mpirun
is missing.
"""
from __future__ import annotations

import argparse, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BATCH = 64

MODEL = """from tinygrad import Device
class Model:
  def __init__(self):
    self.layers = [
      nn.Conv2d(1, 32, 5), Tensor.relu, nn.Conv2d(32, 32, 5), Tensor.relu,
      nn.BatchNorm2d(32), Tensor.max_pool2d,
      nn.Conv2d(32, 64, 3), Tensor.relu, nn.Conv2d(64, 64, 3), Tensor.relu,
      nn.BatchNorm2d(64), Tensor.max_pool2d,
      lambda x: x.flatten(1), nn.Linear(576, 10)]
  def __call__(self, x): return x.sequential(self.layers)
DEVS = {devs}
model = Model()
if DEVS:
  for k, x in nn.state.get_state_dict(model).items(): x.to_(DEVS)
opt = nn.optim.Adam(nn.state.get_parameters(model))
X = input("x", ({batch}, 1, 28, 28))
Y = input("y", ({batch},), dtypes.int32)
if DEVS: X, Y = X.shard(DEVS, axis=0), Y.shard(DEVS, axis=0)
with Tensor.train():
  opt.zero_grad()
  loss = model(X).sparse_categorical_crossentropy(Y)
  loss.backward()
  opt.step()
output("loss", loss)
"""

ALLREDUCE = """d = ("CLANG:1", "CLANG:2")
x = Tensor.ones(2, {n}).contiguous()
x.shard_(d, axis=0)
state("x", x)
output("s", x.sum(0).sum())
"""


def build(bindir: Path, work: Path, name: str, text: str, env) -> Path:
  (work / f"{name}.tg").write_text(text)
  prog = work / f"{name}.prog"
  subprocess.run(f"{bindir}/tg-trace {work}/{name}.tg | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}",
                 shell=True, check=True, env=env)
  return prog


def per_step(cmd, env, steps: int, repeat: int) -> float:
  """A step's seconds: the wall time of 1 + steps steps less that of 1 (start-up cancels)."""
  def wall(n):
    t0 = time.perf_counter()
    subprocess.run(cmd + ["--steps", str(n)], check=True, env=env, capture_output=True)
    return time.perf_counter() - t0
  wall(1)  # compiles
  return max((min(wall(1 + steps) for _ in range(repeat)) - min(wall(1) for _ in range(repeat))) / steps, 1e-9)


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--steps", type=int, default=20)
  ap.add_argument("--repeat", type=int, default=3)
  args = ap.parse_args()
  mpirun = shutil.which("mpirun")
  with tempfile.TemporaryDirectory() as d:
    work = Path(d)
    env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    rng = np.random.default_rng(0)
    np.save(work / "x.npy", rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32))
    np.save(work / "y.npy", rng.integers(0, 10, BATCH).astype(np.int32))
    one = build(args.bin, work, "one", MODEL.format(devs="()", batch=BATCH), env)
    two = build(args.bin, work, "two", MODEL.format(devs='("CLANG:1", "CLANG:2")', batch=BATCH), env)
    ins = ["--in", f"x={work}/x.npy", "--in", f"y={work}/y.npy", "--out-dir", str(work / "out")]
    t1 = lambda n: dict(env, TG_THREADS=str(n))
    one_1 = per_step([f"{args.bin}/tg-run", str(one), *ins], t1(1), args.steps, args.repeat)
    one_2 = per_step([f"{args.bin}/tg-run", str(one), *ins], t1(2), args.steps, args.repeat)
    two_2 = per_step([f"{args.bin}/tg-run", str(two), *ins], t1(2), args.steps, args.repeat)
    print(f"MNIST CNN training step, global batch {BATCH} (Adam), samples/s:")
    print(f"  one process, one device, 1 thread     {BATCH / one_1:9.0f}")
    print(f"  one process, one device, 2 threads    {BATCH / one_2:9.0f}")
    print(f"  one process, CLANG:1 + CLANG:2, 2 thr {BATCH / two_2:9.0f}   ({one_2 / two_2:.2f}x one device, 2 threads;"
          " a thread per device)")
    if mpirun:
      mpi = per_step([mpirun, "-n", "2", f"{args.bin}/tg-run", str(two), "--dist", "mpi", *ins], t1(1), args.steps,
                     args.repeat)
      print(f"  mpirun -n 2, one device and 1 thread per rank {BATCH / mpi:9.0f}   ({one_1 / mpi:.2f}x one process, "
            "1 thread)")
      n = 4 * 1024 * 1024
      ar = build(args.bin, work, "allreduce", ALLREDUCE.format(n=n), env)
      ar_s = per_step([mpirun, "-n", "2", f"{args.bin}/tg-run", str(ar), "--dist", "mpi", "--out-dir",
                       str(work / "ar")], t1(1), args.steps, args.repeat)
      a = np.ones(n, np.float32)
      b = np.empty_like(a)
      memcpy = min(timeit(lambda: np.copyto(b, a)) for _ in range(5))
      print(f"all-reduce of 4M float32 over 2 ranks (mpirun -n 2, naive: each rank's shard sent whole): "
            f"{ar_s * 1e3:.2f} ms per step; a 16 MB memcpy {memcpy * 1e3:.2f} ms ({ar_s / memcpy:.1f}x)")
    else:
      print("  (mpirun not found: the MPI lines are skipped; scripts/setup.sh installs Open MPI)")


def timeit(fn, n: int = 10) -> float:
  t0 = time.perf_counter()
  for _ in range(n): fn()
  return (time.perf_counter() - t0) / n


if __name__ == "__main__":
  sys.exit(main())
