#!/usr/bin/env python3
"""Benchmarks: tg against tinygrad 0.9.1 (CLANG) and numpy, measured in the same run.

    .venv/bin/python scripts/bench.py [--bin build/bin] [--n 1024]

Prints, for float32 matmuls (256, 512, 1024 and 2048 square, and 768 x 3072 x 768): the
kernel's GFLOP/s in tg, tinygrad and numpy (its own process, OpenBLAS left to its defaults),
and the time from script to compiled kernel (cold compile cache) in tg and tinygrad; then, for the
digits training example (examples/digits/train.tg: a 64-128-10 MLP, full-batch Adam), the
time per training step in tg (tg-run --steps), tinygrad (TinyJit) and numpy (hand-written
forward, backward and Adam); then the host launch cost per kernel (tiny kernels, CLANG and LLVM, 1
and 2 threads), a kernel split over two threads and a small LSTM (--launch-only: just these); then
the multi-device lines (scripts/bench_multi.py), the cache misses of the 1024 and 2048 matmuls
and two ResNet-50 convs on three simulated cache hierarchies (scripts/bench_cache.py, valgrind), six small models of common architectures
against ONNX Runtime (scripts/bench_models.py) and ResNet-50 forward against ONNX Runtime
(scripts/bench_resnet.py).
Timing lives here, never in pass/fail tests.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time
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


# float32 matmuls (M, N, K): C[M, N] = A[M, K] @ B[K, N]
SHAPES = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (768, 3072, 768)]


def operands(m: int, n: int, k: int):
  rng = np.random.default_rng(0)
  return rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)


def matmul_files(work: Path, m: int, n: int, k: int):
  """work/matmul.tg, a @ b, and its operands as work/a.npy and work/b.npy; the environment with
  a compile cache of its own."""
  script = work / "matmul.tg"
  script.write_text(f'a = input("a", ({m}, {k}))\nb = input("b", ({k}, {n}))\noutput("c", a @ b)\n')
  a, b = operands(m, n, k)
  np.save(work / "a.npy", a)
  np.save(work / "b.npy", b)
  return script, a, b, dict(os.environ, TG_CACHE_DIR=str(work / "cache"))


def kernel_seconds(tg_run_stderr: str):
  """The kernels' time in all from tg-run --time's report."""
  return sum(float(m.group(1)) for m in re.finditer(r"^tg-run: kernel +\d+ +\S+ +([0-9.]+) ms", tg_run_stderr,
                                                     re.M)) / 1e3


def tg_matmul(bindir: Path, shape, work: Path, repeat: int):
  m, n, k = shape
  script, a, b, env = matmul_files(work, m, n, k)
  t0 = time.perf_counter()
  prog = subprocess.run(f"{bindir}/tg-trace {script} | {bindir}/tg-schedule | {bindir}/tg-codegen", shell=True,
                        check=True, capture_output=True, env=env).stdout
  t_codegen = time.perf_counter() - t0
  (work / "matmul.prog").write_bytes(prog)
  run = [f"{bindir}/tg-run", str(work / "matmul.prog"), "--in", f"a={work}/a.npy", "--in", f"b={work}/b.npy",
         "--out-dir", str(work / "out")]
  t0 = time.perf_counter()  # cold cache: compile only, so the figure holds no kernel time
  subprocess.run([f"{bindir}/tg-run", str(work / "matmul.prog"), "--compile-only"], check=True, env=env,
                 capture_output=True)
  t_compile = time.perf_counter() - t0
  subprocess.run(run, check=True, env=env)
  err = subprocess.run(run + ["--time", "--repeat", str(repeat)], check=True, env=env, capture_output=True,
                       text=True).stderr
  kernel_s = kernel_seconds(err)
  np.testing.assert_allclose(np.load(work / "out" / "c.npy"), a @ b, atol=1e-3, rtol=1e-3)
  return kernel_s, t_codegen + t_compile


def tinygrad_matmul(shape, repeat: int):
  # CACHELEVEL=0: no disk cache of compiled kernels, so its first run compiles as tg's does
  os.environ["CLANG"], os.environ["CACHELEVEL"] = "1", "0"
  from tinygrad import Tensor
  a_np, b_np = operands(*shape)
  a, b = Tensor(a_np).realize(), Tensor(b_np).realize()
  t0 = time.perf_counter()
  (a @ b).realize()  # schedule, codegen, compile and one run
  t_first = time.perf_counter() - t0
  kernel_s = best_of(lambda: (a @ b).realize(), repeat)
  return kernel_s, max(t_first - kernel_s, 0.0)  # (first run less a later one: rough for big shapes)


NUMPY_MATMUL = """
import json, sys, time, numpy as np
out = []
for m, n, k in json.loads(sys.argv[1]):
  rng = np.random.default_rng(0)
  a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
  a @ b
  best = float("inf")
  for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
  out.append(best)
print(json.dumps(out))
"""


def numpy_matmuls(shapes, repeat: int):
  # its own process, with OpenBLAS left to pick its kernels and cache sizes for this CPU
  env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
  res = subprocess.run([sys.executable, "-c", NUMPY_MATMUL, json.dumps(shapes), str(repeat)], check=True,
                       capture_output=True, text=True, env=env)
  return json.loads(res.stdout)


def digits_data(work: Path):
  subprocess.run([sys.executable, str(ROOT / "examples/digits/prepare.py"), str(work)], check=True, capture_output=True)
  return np.load(work / "x_train.npy"), np.load(work / "y_train.npy")


def tg_train(bindir: Path, work: Path, steps: int):
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  t0 = time.perf_counter()
  subprocess.run(f"{bindir}/tg-trace {ROOT}/examples/digits/train.tg | {bindir}/tg-schedule | {bindir}/tg-codegen "
                 f"-o {work}/train.prog", shell=True, check=True, env=env)
  t_codegen = time.perf_counter() - t0
  def run(n):
    t0 = time.perf_counter()
    subprocess.run([f"{bindir}/tg-run", f"{work}/train.prog", "--in", f"x={work}/x_train.npy", "--in",
                    f"y={work}/y_train.npy", "--steps", str(n), "--out-dir", str(work / "out")],
                   check=True, env=env, capture_output=True)
    return time.perf_counter() - t0
  t_first = run(1)  # compiles
  t_many = run(steps + 1)
  loss = float(np.load(work / "out" / "loss.npy"))
  return (t_many - run(1)) / steps, t_codegen + t_first, loss


def tinygrad_train(x_np, y_np, steps: int):
  os.environ["CLANG"], os.environ["THREEFRY"] = "1", "1"
  from tinygrad import Tensor, nn, TinyJit
  Tensor.manual_seed(0)
  model = [nn.Linear(64, 128), nn.Linear(128, 10)]
  opt = nn.optim.Adam(nn.state.get_parameters(model), lr=0.01)
  x, y = Tensor(x_np).realize(), Tensor(y_np).realize()
  @TinyJit
  def step():
    Tensor.training = True
    opt.zero_grad()
    loss = model[1](model[0](x).relu()).sparse_categorical_crossentropy(y).backward()
    opt.step()
    return loss.realize()
  t0 = time.perf_counter()
  for _ in range(3): step()  # JIT capture
  t_first = time.perf_counter() - t0
  t0 = time.perf_counter()
  for _ in range(steps - 2): loss = step()  # steps + 1 in all, as tg's
  return (time.perf_counter() - t0) / (steps - 2), t_first, float(loss.numpy())


def numpy_train(x, y, steps: int):
  rng = np.random.default_rng(0)
  w1, b1 = rng.uniform(-0.1, 0.1, (64, 128)).astype(np.float32), np.zeros(128, np.float32)
  w2, b2 = rng.uniform(-0.1, 0.1, (128, 10)).astype(np.float32), np.zeros(10, np.float32)
  params = [w1, b1, w2, b2]
  m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
  onehot = np.eye(10, dtype=np.float32)[y]
  def step(t):
    h = np.maximum(x @ w1 + b1, 0)
    z = h @ w2 + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = (p - onehot) / len(x)
    dh = (dz @ w2.T) * (h > 0)
    grads = [x.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)]
    for i, (p_, g) in enumerate(zip(params, grads)):
      m[i] = 0.9 * m[i] + 0.1 * g
      v[i] = 0.999 * v[i] + 0.001 * g * g
      p_ -= 0.01 * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
  t0 = time.perf_counter()
  for t in range(1, steps + 1): step(t)
  return (time.perf_counter() - t0) / steps


def tg_beam(bindir: Path, work: Path, n: int, repeat: int):
  """tg-codegen --beam 2 on an n^3 matmul: the search's time with a cold and a warm cache, and the
  kernel times of its choice, of tg's optimizer and of tinygrad's hand-coded optimizations."""
  script, a, b, env = matmul_files(work, n, n, n)
  subprocess.run(f"{bindir}/tg-trace {script} | {bindir}/tg-schedule -o {work}/mm.s", shell=True, check=True, env=env)
  searches = []
  for _ in range(2):  # cold, then cached
    t0 = time.perf_counter()
    subprocess.run([f"{bindir}/tg-codegen", "--beam", "2", f"{work}/mm.s", "-o", f"{work}/beam.prog"], check=True,
                   env=env, capture_output=True)
    searches.append(time.perf_counter() - t0)
  times = {}
  for name, flags in (("beam", None), ("tg", []), ("tinygrad", ["--opt", "tinygrad"])):
    if flags is not None:
      subprocess.run([f"{bindir}/tg-codegen", *flags, f"{work}/mm.s", "-o", f"{work}/{name}.prog"], check=True, env=env)
    err = subprocess.run([f"{bindir}/tg-run", f"{work}/{name}.prog", "--in", f"a={work}/a.npy", "--in", f"b={work}/b.npy",
                          "--out-dir", str(work / "out"), "--time", "--repeat", str(repeat)], check=True, env=env,
                         capture_output=True, text=True).stderr
    times[name] = kernel_seconds(err)
    np.testing.assert_allclose(np.load(work / "out" / "c.npy"), a @ b, atol=1e-3, rtol=1e-3)
  return searches, times


# Host launch cost: many tiny independent kernels (16 floats each), run for many steps, so the
# figure is tg-run's fixed cost per kernel (runner, launcher, thread pool), not the work.
LAUNCH_KERNELS = 64


def launch_files(work: Path):
  script = work / "launch.tg"
  script.write_text('x = input("x", (16,))\n' +
                    "".join(f'output("y{i}", x * {i + 2}.0)\n' for i in range(LAUNCH_KERNELS)))
  np.save(work / "x.npy", np.arange(16, dtype=np.float32))
  return script, dict(os.environ, TG_CACHE_DIR=str(work / "cache"))


def per_step_seconds(cmd, env, steps: int, repeat: int):
  """A step's time from tg-run's wall time for 1 + steps steps less that for 1 step (start-up,
  loading and reading inputs cancel out), each the best of `repeat` runs."""
  def wall(n):
    t0 = time.perf_counter()
    subprocess.run(cmd + ["--steps", str(n)], check=True, env=env, capture_output=True)
    return time.perf_counter() - t0
  wall(1)  # compiles
  return (min(wall(1 + steps) for _ in range(repeat)) - min(wall(1) for _ in range(repeat))) / steps


def tg_launch_cost(bindir: Path, work: Path, device: str, repeat: int, steps: int = 100000):
  """Seconds per kernel launch of a tiny kernel on `device`, for 1 and 2 threads (TG_THREADS)."""
  script, env = launch_files(work)
  prog = work / f"launch_{device}.prog"
  subprocess.run(f"{bindir}/tg-trace {script} | {bindir}/tg-schedule | {bindir}/tg-codegen --device {device} -o {prog}",
                 shell=True, check=True, env=env)
  cmd = [f"{bindir}/tg-run", str(prog), "--in", f"x={work}/x.npy", "--out-dir", str(work / "out")]
  return {t: per_step_seconds(cmd, dict(env, TG_THREADS=str(t)), steps, repeat) / LAUNCH_KERNELS for t in (1, 2)}


# A kernel that is split over two threads: 16 multiply-adds on each of 2^16 floats (one fused
# kernel, ~12 µs of work on one core); the pool's hand-off cost is its time on 2 threads less
# half its time on 1.
def tg_split_kernel(bindir: Path, work: Path, repeat: int, steps: int = 5000):
  (work / "split.tg").write_text('x = input("x", (65536,))\nfor i in range(16):\n  x = x * 0.999 + 0.001\n'
                                 "output('y', x)\n")
  np.save(work / "x.npy", np.ones(65536, np.float32))
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  prog = work / "split.prog"
  subprocess.run(f"{bindir}/tg-trace {work}/split.tg | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}",
                 shell=True, check=True, env=env)
  cmd = [f"{bindir}/tg-run", str(prog), "--in", f"x={work}/x.npy", "--out-dir", str(work / "out")]
  return {t: per_step_seconds(cmd, dict(env, TG_THREADS=str(t)), steps, repeat) for t in (1, 2)}


# A small LSTM (batch 4, 64 inputs, 64 hidden, 8 time steps), the shape of issue 28's ONNX model:
# per time step a (4, 64) @ (64, 256) gate matmul (r_4_64_16_4_4) for the input and one for the
# hidden state, then the gates. Those matmuls are ~1.4 µs of work: split over two threads they
# cost 40-200 µs each with the pool before; now they run whole.
LSTM_SCRIPT = """B, I, H, T = 4, 64, 64, 8
x = input("x", (T, B, I))
wx = input("wx", (I, 4 * H))
wh = input("wh", (H, 4 * H))
b = input("b", (4 * H,))
h = Tensor.zeros(B, H).contiguous()
c = Tensor.zeros(B, H).contiguous()
for t in range(T):
  g = x[t] @ wx + h @ wh + b
  i, f, o, u = g.chunk(4, 1)
  c = (f.sigmoid() * c + i.sigmoid() * u.tanh()).realize()
  h = (o.sigmoid() * c.tanh()).realize()
output("h", h)
"""


def tg_lstm(bindir: Path, work: Path, repeat: int, steps: int = 2000):
  """Kernels of the LSTM program, and seconds per run of it, for 1 and 2 threads."""
  (work / "lstm.tg").write_text(LSTM_SCRIPT)
  rng = np.random.default_rng(0)
  for name, shape in (("x", (8, 4, 64)), ("wx", (64, 256)), ("wh", (64, 256)), ("b", (256,))):
    np.save(work / f"{name}.npy", (rng.standard_normal(shape) * 0.1).astype(np.float32))
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  prog = work / "lstm.prog"
  subprocess.run(f"{bindir}/tg-trace {work}/lstm.tg | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}", shell=True,
                 check=True, env=env)
  cmd = [f"{bindir}/tg-run", str(prog), *[a for n in ("x", "wx", "wh", "b") for a in ("--in", f"{n}={work}/{n}.npy")],
         "--out-dir", str(work / "out")]
  err = subprocess.run(cmd + ["--time"], check=True, env=env, capture_output=True, text=True).stderr
  kernels = len(re.findall(r"^tg-run: kernel +\d+ ", err, re.M))
  outs = {}
  for t in (1, 2):
    subprocess.run(cmd, check=True, env=dict(env, TG_THREADS=str(t)), capture_output=True)
    outs[t] = np.load(work / "out" / "h.npy")
  assert outs[1].tobytes() == outs[2].tobytes(), "LSTM: 1 and 2 threads differ"
  return kernels, {t: per_step_seconds(cmd, dict(env, TG_THREADS=str(t)), steps, repeat) for t in (1, 2)}


def print_launch_cost(bindir: Path, repeat: int):
  costs = {}
  for device in ("CLANG", "LLVM"):
    with tempfile.TemporaryDirectory() as d:
      costs[device] = tg_launch_cost(bindir, Path(d), device, repeat)
  print(f"host launch cost per kernel ({LAUNCH_KERNELS} tiny kernels, tg-run --steps; TG_THREADS=1 / 2): " +
        ", ".join(f"{dev} {c[1] * 1e6:.2f} / {c[2] * 1e6:.2f} µs" for dev, c in costs.items()))
  with tempfile.TemporaryDirectory() as d:
    split = tg_split_kernel(bindir, Path(d), repeat)
  print(f"a kernel split over threads (16 multiply-adds on 2^16 floats, CLANG): {split[1] * 1e6:.2f} µs with 1 thread, "
        f"{split[2] * 1e6:.2f} µs with 2 (hand-off cost: {(split[2] - split[1] / 2) * 1e6:.2f} µs)")
  with tempfile.TemporaryDirectory() as d:
    kernels, lstm = tg_lstm(bindir, Path(d), repeat)
  print(f"LSTM, batch 4, 64 hidden, 8 time steps ({kernels} kernels, CLANG): {lstm[1] * 1e6:.1f} µs per run with 1 thread, "
        f"{lstm[2] * 1e6:.1f} µs with 2 ({lstm[1] * 1e6 / kernels:.2f} / {lstm[2] * 1e6 / kernels:.2f} µs per kernel)")


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--n", type=int, default=0, help="one N x N x N matmul instead of the list of shapes")
  ap.add_argument("--repeat", type=int, default=3)
  ap.add_argument("--steps", type=int, default=50, help="training steps timed")
  ap.add_argument("--launch-only", action="store_true", help="only the host launch cost and the LSTM lines")
  args = ap.parse_args()
  if args.launch_only:
    return print_launch_cost(args.bin, args.repeat)
  shapes = [(args.n, args.n, args.n)] if args.n else SHAPES
  rows = []
  for shape in shapes:
    with tempfile.TemporaryDirectory() as d:
      tg_k, tg_compile = tg_matmul(args.bin, shape, Path(d), args.repeat)
    tiny_k, tiny_compile = tinygrad_matmul(shape, args.repeat)
    rows.append((shape, tg_k, tg_compile, tiny_k, tiny_compile))
  np_ks = numpy_matmuls(shapes, args.repeat)
  print(f"float32 matmul M x N x K, GFLOP/s (kernel time, best of {args.repeat}); script to compiled kernel, cold cache "
        "(tinygrad's: its first run less its best, rough where the kernel is slow)")
  print(f"  {'shape':>16s} {'tg':>8s} {'tinygrad':>9s} {'numpy':>8s} {'tg/tinygrad':>12s} {'tg/numpy':>9s}"
        f" {'tg compile':>11s} {'tinygrad':>9s}")
  for (shape, tg_k, tg_compile, tiny_k, tiny_compile), np_k in zip(rows, np_ks):
    flop = 2 * shape[0] * shape[1] * shape[2]
    print(f"  {'x'.join(map(str, shape)):>16s} {flop / tg_k / 1e9:8.1f} {flop / tiny_k / 1e9:9.1f} "
          f"{flop / np_k / 1e9:8.1f} {tiny_k / tg_k:11.2f}x {np_k / tg_k:8.3f}x {tg_compile * 1e3:8.0f} ms "
          f"{tiny_compile * 1e3:6.0f} ms")

  with tempfile.TemporaryDirectory() as d:
    (cold, warm), kt = tg_beam(args.bin, Path(d), 1024, args.repeat)
  flop = 2 * 1024 ** 3
  print(f"tg-codegen --beam 2, 1024 matmul: search {cold:.1f} s cold, {warm * 1e3:.0f} ms cached (tinygrad 0.9.1 BEAM=2: "
        f"81 s on this machine as issue 10 measured it, not rerun); kernel GFLOP/s: beam {flop / kt['beam'] / 1e9:.1f}, tg's optimizer {flop / kt['tg'] / 1e9:.1f}, "
        f"tinygrad's hand-coded opts {flop / kt['tinygrad'] / 1e9:.1f}")

  with tempfile.TemporaryDirectory() as d:
    x, y = digits_data(Path(d))
    tg_step, tg_first, tg_loss = tg_train(args.bin, Path(d), args.steps)
  tiny_step, tiny_first, tiny_loss = tinygrad_train(x, y, args.steps)
  np_step = numpy_train(x, y, args.steps)
  print(f"digits MLP training, full-batch Adam ({args.steps} steps; loss after them: tg {tg_loss:.4f}, "
        f"tinygrad {tiny_loss:.4f})")
  for name, s in (("tg", tg_step), ("tinygrad", tiny_step), ("numpy", np_step)):
    print(f"  {name:9s} {s * 1e3:9.3f} ms/step")
  print(f"  tg / tinygrad speed: {tiny_step / tg_step:.2f}x   tg / numpy speed: {np_step / tg_step:.2f}x")
  print(f"  script to first step done (cold cache): tg {tg_first * 1e3:.0f} ms   tinygrad {tiny_first * 1e3:.0f} ms "
        "(3 steps: JIT capture)")

  print_launch_cost(args.bin, args.repeat)

  # ResNet-50 against ONNX Runtime (its own script, so it can be run alone), without the switches
  # set above for tinygrad in this process: THREEFRY=1 would make tg-trace draw resnet.tg's
  # weights with threefry kernels, another program than the one measured alone
  sys.stdout.flush()
  env = {k: v for k, v in os.environ.items() if k not in ("CLANG", "THREEFRY", "CACHELEVEL")}
  multi = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_multi.py"), "--bin", str(args.bin)],
                         env=env).returncode
  cache = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_cache.py"), "--bin", str(args.bin)],
                         env=env).returncode
  models = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_models.py"), "--bin", str(args.bin)],
                          env=env).returncode
  return subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_resnet.py"), "--bin", str(args.bin)],
                        env=env).returncode or multi or cache or models


if __name__ == "__main__":
  sys.exit(main())
