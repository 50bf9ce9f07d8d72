#!/usr/bin/env python3
"""GPU and CUDA kernel sources against tinygrad 0.9.1's, byte for byte.

    .venv/bin/python tests/diff/gpu_source.py [--bin build/bin] [-j 2] [-k NAME] [-v]

Each case is one program, written once as a .tg script, and every kernel tinygrad makes for it
must equal, text for text, the kernel of that name from
`tg-trace | tg-schedule | tg-codegen -d DEVICE --opt tinygrad`:
- GPU: tinygrad runs the same lines (Tensor.rand inputs) with GPU=1 DEBUG=4 on this machine's
  OpenCL (PoCL) and prints its kernels;
- CUDA: tinygrad renders the kernels of the same schedule with its CUDARenderer for sm_80 (no
  GPU needed), tensor cores first as its get_kernel does; tg runs with TG_CUDA_ARCH=sm_80.
The cases cover float4 loads, stores and accumulators, grouped (local-memory) reduces, padded
and strided views, and (half on CUDA) tensor-core matmuls with WMMA. Known differences are listed in KNOWN with their reason. Prints
`src: N passed, M failed` (a case counts once per device); exits 1 on a failure. Values are
the diff suite's job (tests/diff/run.py); this is the text.
"""
import argparse, os, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# name: (input shapes, output expression over the inputs a and b)
CASES = {
  "add": ([(64, 64), (64, 64)], "a + b"),
  "matmul": ([(64, 64), (64, 64)], "a @ b"),
  "matmul_odd": ([(30, 50), (50, 70)], "a @ b"),
  "bmm": ([(4, 32, 64), (4, 64, 16)], "a @ b"),
  "linear_relu": ([(16, 64), (64, 32)], "(a @ b + 1).relu()"),
  "sum_rows": ([(256, 256)], "a.sum(1)"),
  "sum_cols": ([(256, 256)], "a.sum(0)"),
  "sum_all": ([(4096,)], "a.sum()"),
  "sum_small": ([(8, 64, 4)], "a.sum(2)"),
  "max_small": ([(8, 64, 4)], "a.max(2)"),
  "exp_sum": ([(128, 128)], "a.exp().sum(1)"),
  "softmax": ([(32, 100)], "a.softmax(-1)"),
  "layernorm": ([(16, 256)], "a.layernorm()"),
  "var": ([(64, 128)], "a.var(1)"),
  "conv": ([(2, 8, 16, 16), (16, 8, 3, 3)], "a.conv2d(b, padding=1)"),
  "conv_stride2": ([(2, 4, 16, 16), (8, 4, 3, 3)], "a.conv2d(b, stride=2, padding=1)"),
  "conv1x1_unrolled": ([(2, 16, 14, 14), (32, 16, 1, 1)], "a.conv2d(b).relu()"),
  "conv1x1_stride2": ([(2, 32, 14, 14), (16, 32, 1, 1)], "a.conv2d(b, stride=2)"),
  "max_pool": ([(2, 4, 16, 16)], "a.max_pool2d()"),
  "pad": ([(16, 16)], "a.pad(((1, 1), (2, 2))) * 2"),
  "transpose": ([(64, 32)], "a.T + 1"),
  "cat": ([(8, 16)], "a.cat(a * 2, dim=1)"),
  "where": ([(32, 32), (32, 32)], "(a > 0.5).where(a, b)"),
  "cumsum": ([(8, 64)], "a.cumsum(1)"),
  "argmax": ([(16, 64)], "a.argmax(1)"),
}
# half inputs: CUDA only (tg's OpenCL computes half as float and stores it lane by lane, where
# tinygrad's uses cl_khr_fp16 half arithmetic)
HALF_CASES = {
  "half_add": ([(64, 64), (64, 64)], "a + b"),
  "half_matmul": ([(64, 64), (64, 64)], "a @ b"),
  "half_sum": ([(256, 256)], "a.sum(1)"),
  # tensor cores (WMMA): matmuls whose N, M and K are multiples of 8, 16, 16 with one reduce axis
  "half_matmul_wide": ([(32, 256), (256, 128)], "a @ b"),
  "half_bmm": ([(4, 32, 64), (4, 64, 48)], "a @ b"),
  "half_linear_relu": ([(48, 64), (64, 80)], "(a @ b + 1).relu()"),
  "half_conv1x1": ([(2, 32, 8, 8), (16, 32, 1, 1)], "a.conv2d(b)"),
  "half_matmul_odd": ([(30, 50), (50, 70)], "a @ b"),
}
# (case, kernel name) -> why tg's text differs
KNOWN = {
  ("argmax", "r_16_16_4n1"): "INT_MIN: tg writes -2147483647-1 (in C a bare 2147483648 is a long)",
}
DEVICES = ("GPU", "CUDA")

TINYGRAD = {"GPU": r"""
import os, re, sys
os.environ["GPU"], os.environ["DEBUG"] = "1", "4"
from tinygrad import Tensor
from tinygrad import dtypes
shapes, expr, dtype = eval(sys.argv[1]), sys.argv[2], getattr(dtypes, sys.argv[3])
ins = [Tensor.rand(*s).cast(dtype).realize() for s in shapes]
a, b = (ins + [None])[:2]
out = eval(expr)
sys.stdout.flush()
out.realize()
""", "CUDA": r"""
import os, sys
os.environ["CLANG"] = "1"
from tinygrad import Tensor
from tinygrad.engine.schedule import create_schedule
from tinygrad.codegen.linearizer import Linearizer
from tinygrad.renderer.cstyle import CUDARenderer
from tinygrad.ops import BufferOps
from tinygrad import dtypes
shapes, expr, dtype = eval(sys.argv[1]), sys.argv[2], getattr(dtypes, sys.argv[3])
ins = [Tensor.rand(*s).cast(dtype).realize() for s in shapes]
a, b = (ins + [None])[:2]
renderer = CUDARenderer("sm_80")
for si in create_schedule([eval(expr).lazydata]):
  if si.ast[0].op is not BufferOps.STORE: continue
  k = Linearizer(*si.ast, opts=renderer)
  if not k.apply_tensor_cores(1): k.hand_coded_optimizations()
  print(k.to_program().src)
"""}


def kernels(text: str) -> dict:
  found = re.findall(r'((?:__kernel|extern "C" __global__) void .*?\n})', text, re.S)
  return {re.search(r"void (\w+)\(", k).group(1): k.strip() for k in found}


def check(name: str, device: str, bindir: Path, work: Path) -> list[str]:
  half = name in HALF_CASES
  shapes, expr = HALF_CASES[name] if half else CASES[name]
  env = {k: v for k, v in os.environ.items() if k not in ("CLANG", "CUDA", "LLVM", "GPU", "DEBUG")}
  tiny = subprocess.run([sys.executable, "-c", TINYGRAD[device], repr(shapes), expr, "half" if half else "float"],
                        capture_output=True, text=True, timeout=300, env=env)
  if tiny.returncode != 0:
    return [f"{name} [{device}]: tinygrad failed: {(tiny.stderr.strip().splitlines() or ['?'])[-1]}"]
  script = work / f"{name}.tg"
  dtype = ", dtype=dtypes.half" if half else ""
  lines = [f"{v} = input({v!r}, {s}{dtype})" for v, s in zip("ab", shapes)] + [f"output('o', {expr})"]
  script.write_text("\n".join(lines) + "\n")
  tg = subprocess.run(f"{bindir}/tg-trace {script} | {bindir}/tg-schedule | {bindir}/tg-codegen -d {device} "
                      f"--opt tinygrad --json", shell=True, capture_output=True, text=True, timeout=300,
                      env={**env, "TG_CUDA_ARCH": "sm_80"})
  if tg.returncode != 0:
    return [f"{name} [{device}]: tg failed: {(tg.stderr.strip().splitlines() or ['?'])[-1]}"]
  import json
  # (the kernels themselves: CUDA's #define prefix is pinned by tests/unit/test_render_gpu.cpp)
  mine = kernels("\n".join(k["src"] for k in json.loads(tg.stdout)["kernels"]))
  want = kernels(tiny.stdout)
  if not want: return [f"{name} [{device}]: tinygrad printed no kernel"]
  bad = []
  for k, src in want.items():
    if (name, k) in KNOWN: continue
    if k not in mine:
      bad.append(f"{name} [{device}]: tg has no kernel {k} (it has {', '.join(mine)})")
    elif mine[k] != src:
      first = next(i for i, (x, y) in enumerate(zip(src.split("\n") + [""], mine[k].split("\n") + [""])) if x != y)
      bad.append(f"{name} [{device}]: {k} differs at line {first + 1}: tinygrad {src.split(chr(10))[first:first + 1]} "
                 f"tg {mine[k].split(chr(10))[first:first + 1]}")
  return bad


def main() -> int:
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--bin", default=str(ROOT / "build" / "bin"))
  ap.add_argument("-j", type=int, default=2)
  ap.add_argument("-k", action="append", default=[], help="only cases whose name contains this")
  ap.add_argument("-v", action="store_true")
  args = ap.parse_args()
  pick = lambda n: not args.k or any(k in n for k in args.k)
  jobs = [(n, d) for n in CASES if pick(n) for d in DEVICES] + [(n, "CUDA") for n in HALF_CASES if pick(n)]
  with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.j) as pool:
    def one(job):
      work = Path(tmp) / job[1]
      work.mkdir(exist_ok=True)
      return job, check(job[0], job[1], Path(args.bin), work)
    results = list(pool.map(one, jobs))
  failed = 0
  for (n, d), bad in results:
    failed += bool(bad)
    for line in bad: print("FAIL " + line)
    if not bad and args.v: print(f"ok   {n} [{d}]")
  print(f"src: {len(jobs) - failed} passed, {failed} failed ({len(KNOWN)} known differences)")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
