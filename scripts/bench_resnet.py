#!/usr/bin/env python3
"""ResNet-50 forward (batch 8, eval, float32): tg against ONNX Runtime, in one run.

    .venv/bin/python scripts/bench_resnet.py [--bin build/bin] [--batch 8] [--repeat 3]

Both run one network: ResNet-50 v1.5 built as an ONNX graph with the onnx package's helper API
and random weights (Conv, BatchNormalization, Relu, MaxPool, Add, GlobalAveragePool, Gemm). tg
imports it (tg-trace model.onnx | tg-schedule | tg-codegen | tg-run); ONNX Runtime runs it with
two intra-op threads (this machine's cores). Prints the forward time of each (best of
--repeat; tg's is the sum of its kernels' times from tg-run --time), their ratio, tg's
trace + schedule + codegen time and its cold compile time (for the ONNX file, with its weights
left in the model file and with --embed-weights, and for examples/resnet/resnet.tg), ResNet-50's weight init under THREEFRY=1 against tinygrad 0.9.1's,
and checks the outputs agree.
Called by scripts/bench.py (make bench); timing lives here, never in pass/fail tests.
"""
import argparse, os, re, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def resnet50(batch: int):
  import onnx
  from onnx import TensorProto as T, helper, numpy_helper
  rng = np.random.default_rng(0)
  nodes, inits, counter = [], [], [0]

  def name(p):
    counter[0] += 1
    return f"{p}{counter[0]}"

  def init(arr):
    n = name("w")
    inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), n))
    return n

  def op(kind, ins, **attrs):
    out = name(kind.lower())
    nodes.append(helper.make_node(kind, ins, [out], **attrs))
    return out

  def conv_bn(x, cin, cout, k, stride, relu=True):
    w = rng.standard_normal((cout, cin, k, k), dtype=np.float32) * np.float32(np.sqrt(2 / (cin * k * k)))
    y = op("Conv", [x, init(w)], pads=[k // 2] * 4, strides=[stride, stride], kernel_shape=[k, k])
    bn = [rng.uniform(0.5, 1.5, cout), rng.standard_normal(cout) * 0.1, rng.standard_normal(cout) * 0.1,
          rng.uniform(0.5, 1.5, cout)]
    y = op("BatchNormalization", [y] + [init(a.astype(np.float32)) for a in bn], epsilon=1e-5)
    return op("Relu", [y]) if relu else y

  def bottleneck(x, cin, planes, stride):
    y = conv_bn(x, cin, planes, 1, 1)
    y = conv_bn(y, planes, planes, 3, stride)  # v1.5: the stride is in the 3x3
    y = conv_bn(y, planes, planes * 4, 1, 1, relu=False)
    short = conv_bn(x, cin, planes * 4, 1, stride, relu=False) if stride != 1 or cin != planes * 4 else x
    return op("Relu", [op("Add", [y, short])])

  y = conv_bn("x", 3, 64, 7, 2)
  y = op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
  cin = 64
  for planes, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
    for i in range(blocks):
      y = bottleneck(y, cin, planes, stride if i == 0 else 1)
      cin = planes * 4
  y = op("Flatten", [op("GlobalAveragePool", [y])], axis=1)
  fc = rng.standard_normal((1000, 2048), dtype=np.float32) * np.float32(1 / np.sqrt(2048))
  y = op("Gemm", [y, init(fc), init(np.zeros(1000, np.float32))], transB=1)
  graph = helper.make_graph(nodes, "resnet50", [helper.make_tensor_value_info("x", T.FLOAT, [batch, 3, 224, 224])],
                            [helper.make_tensor_value_info(y, T.FLOAT, [batch, 1000])], inits)
  return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), y


def run_tg(bindir: Path, work: Path, model: Path, x: Path, repeat: int):
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  prog = work / "resnet.prog"
  def front(embed: str, out: Path):  # best of 3, as for the script below (the first read of a fresh file varies)
    best = float("inf")
    for _ in range(3):
      t0 = time.perf_counter()
      subprocess.run(f"{bindir}/tg-trace {embed} {model} | {bindir}/tg-schedule | {bindir}/tg-codegen -o {out}",
                     shell=True, check=True, env=env)
      best = min(best, time.perf_counter() - t0)
    return best, out.stat().st_size
  # weights by reference to the model file (the default), and carried through every pipe
  t_front = front("", prog), front("--embed-weights", work / "resnet-embedded.prog")
  compile_only = [f"{bindir}/tg-run", str(prog), "--compile-only"]
  t0 = time.perf_counter()
  subprocess.run(compile_only, check=True, env=env, capture_output=True)
  t_cold = time.perf_counter() - t0
  t0 = time.perf_counter()
  subprocess.run(compile_only, check=True, env=env, capture_output=True)
  t_warm = time.perf_counter() - t0
  run = [f"{bindir}/tg-run", str(prog), "--in", f"x={x}", "--out-dir", str(work / "out")]
  err = subprocess.run(run + ["--time", "--repeat", str(repeat)], check=True, env=env, capture_output=True,
                       text=True).stderr
  total = re.search(r"^tg-run: total +(\d+) kernels +([0-9.]+) ms", err, re.M)
  out = next((work / "out").glob("*.npy"))
  return float(total.group(2)) / 1e3, int(total.group(1)), t_front, t_cold - t_warm, np.load(out)


def script_front_and_compile(bindir: Path, work: Path):
  """examples/resnet/resnet.tg (weights drawn by tg-run, so the artifacts are small): the seconds
  trace + schedule + codegen take, best of 3, and a cold compile of its program."""
  env = dict(os.environ, TG_CACHE_DIR=str(work / "script-cache"))
  env.pop("THREEFRY", None)  # the default RNG: weights drawn by tg-run, no threefry kernels
  prog = work / "script.prog"
  front = float("inf")
  for _ in range(3):
    t0 = time.perf_counter()
    subprocess.run(f"{bindir}/tg-trace {ROOT}/examples/resnet/resnet.tg | {bindir}/tg-schedule | {bindir}/tg-codegen "
                   f"-o {prog}", shell=True, check=True, env=env)
    front = min(front, time.perf_counter() - t0)
  t0 = time.perf_counter()
  subprocess.run([f"{bindir}/tg-run", str(prog), "--compile-only"], check=True, env=env, capture_output=True)
  return front, time.perf_counter() - t0


TINYGRAD_INIT = """
import os, sys, time
os.environ["CLANG"], os.environ["THREEFRY"] = "1", "1"
from tinygrad import Tensor, dtypes, nn
src = open(sys.argv[1]).read().split("\\ndepth = ")[0]  # the classes, not the program
env = {"Tensor": Tensor, "dtypes": dtypes, "nn": nn}
exec(src, env)
Tensor.manual_seed(0)
t0 = time.perf_counter()
for p in nn.state.get_parameters(env["ResNet"](50, num_classes=1000)): p.realize()
print(time.perf_counter() - t0)
"""


def threefry_init(bindir: Path, work: Path):
  """ResNet-50's weights drawn with threefry (THREEFRY=1), cold caches: tg's whole program at
  batch 1 (trace to the end of tg-run: compile, init kernels, one forward pass) against
  tinygrad 0.9.1 realizing the same model's parameters (its kernels compiled as it goes, its disk
  cache off: CACHELEVEL=0)."""
  env = dict(os.environ, TG_CACHE_DIR=str(work / "threefry-cache"), THREEFRY="1")
  x = work / "x1.npy"
  np.save(x, np.random.default_rng(2).standard_normal((1, 3, 224, 224), dtype=np.float32))
  t0 = time.perf_counter()
  subprocess.run(f"{bindir}/tg-trace {ROOT}/examples/resnet/resnet.tg --arg batch=1 | {bindir}/tg-schedule | "
                 f"{bindir}/tg-codegen | {bindir}/tg-run --in x={x} --out-dir {work / 'threefry-out'}", shell=True,
                 check=True, env=env, capture_output=True)
  tg_s = time.perf_counter() - t0
  tiny = subprocess.run([sys.executable, "-c", TINYGRAD_INIT, str(ROOT / "examples" / "resnet" / "resnet.tg")],
                        check=True, capture_output=True, text=True, env=dict(os.environ, CACHELEVEL="0"))
  return tg_s, float(tiny.stdout.strip().splitlines()[-1])


def run_ort(model: Path, x: np.ndarray, repeat: int):
  import onnxruntime as ort
  opts = ort.SessionOptions()
  opts.intra_op_num_threads, opts.inter_op_num_threads = 2, 1
  sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
  out = sess.run(None, {"x": x})[0]
  best = float("inf")
  for _ in range(repeat):
    t0 = time.perf_counter()
    sess.run(None, {"x": x})
    best = min(best, time.perf_counter() - t0)
  return best, out


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--batch", type=int, default=8)
  ap.add_argument("--repeat", type=int, default=3)
  args = ap.parse_args()
  import onnx
  with tempfile.TemporaryDirectory() as d:
    work = Path(d)
    model, _ = resnet50(args.batch)
    onnx.save(model, work / "resnet50.onnx")
    x = np.random.default_rng(1).standard_normal((args.batch, 3, 224, 224), dtype=np.float32)
    np.save(work / "x.npy", x)
    tg_s, kernels, front, compile_s, tg_out = run_tg(args.bin, work, work / "resnet50.onnx", work / "x.npy", args.repeat)
    ort_s, ort_out = run_ort(work / "resnet50.onnx", x, args.repeat)
    script_front, script_compile = script_front_and_compile(args.bin, work)
    tf_tg, tf_tiny = threefry_init(args.bin, work)
  # random weights make logits of 1e4..1e5: the error that counts is relative to them
  err = float(np.abs(tg_out - ort_out).max() / np.abs(ort_out).max())
  print(f"ResNet-50 forward, batch {args.batch}, float32 (best of {args.repeat}; max |tg - ORT| / max |ORT| {err:.1e})")
  print(f"  tg           {tg_s * 1e3:9.1f} ms  ({kernels} kernels)")
  print(f"  ONNX Runtime {ort_s * 1e3:9.1f} ms  (2 threads)")
  print(f"  tg / ONNX Runtime speed: {ort_s / tg_s:.3f}x")
  (ref_s, ref_size), (embed_s, embed_size) = front
  print(f"  tg from the ONNX file: trace + schedule + codegen (best of 3) {ref_s * 1e3:.0f} ms with the weights "
        f"left in the model file ({ref_size / 1e6:.1f} MB program), {embed_s * 1e3:.0f} ms with --embed-weights "
        f"({embed_size / 1e6:.0f} MB); cold compile {compile_s * 1e3:.0f} ms")
  print(f"  tg from examples/resnet/resnet.tg (weights drawn at run time): trace + schedule + codegen "
        f"{script_front * 1e3:.0f} ms; cold compile {script_compile * 1e3:.0f} ms")
  print(f"ResNet-50 weight init with threefry (THREEFRY=1), cold: tg {tf_tg:.1f} s for the whole batch-1 program "
        f"(compile, init, forward); tinygrad 0.9.1 {tf_tiny:.1f} s for the init alone; tinygrad / tg: {tf_tiny / tf_tg:.1f}x")
  if err > 1e-4:
    print("  tg and ONNX Runtime disagree past 1e-4 of the largest logit", file=sys.stderr)
    return 1


if __name__ == "__main__":
  sys.exit(main())
