#!/usr/bin/env python3
"""Six small models of common architectures (float32, batch 1): tg against ONNX Runtime.

    .venv/bin/python scripts/bench_models.py [--bin build/bin] [--repeat 10] [--only NAME] [--keep DIR]

Each model is an ONNX graph built by hand with the onnx package's helper API (opset 17, random
weights from a fixed seed, as initializers):

  mobilenetv2_block  inverted residual: 1x1 expand 32->192, BN, ReLU6; 3x3 depthwise, BN, ReLU6;
                     1x1 project 192->32, BN; residual Add (x [1,32,56,56])
  bert_layer         one BERT encoder layer: seq 128, hidden 256, 4 heads, post-LayerNorm, FFN 1024
                     with erf-Gelu (x [1,128,256])
  gpt2_block         one GPT-2 block: seq 64, hidden 256, 4 heads, pre-LayerNorm, causal mask,
                     MLP 1024 with tanh-Gelu (x [1,64,256])
  unet_block         Conv 3x3 32->64 + Relu, Conv 3x3 64->64 + Relu, MaxPool 2x2, ConvTranspose 2x2
                     stride 2 64->32, Concat with x, Conv 3x3 64->32 + Relu (x [1,32,64,64])
  bilstm             the LSTM op, bidirectional, input 64, hidden 128, 32 steps (X [32,1,64])
  mbconv_se          EfficientNet MBConv: 1x1 24->144, BN, Swish; 3x3 depthwise, BN, Swish;
                     squeeze-excite 144->6->144; 1x1 144->24, BN; residual Add (x [1,24,56,56])

tg runs each as tg-trace model.onnx | tg-schedule | tg-codegen, then tg-run --time --repeat N
(its figure: the wall time of one step of tg-run --steps N, the start-up taken out, so lanes and
launch costs count; beside it the sum of its kernels' best times, one at a time, from tg-run's
"total" line; compile cache warm);
ONNX Runtime runs it with two intra-op threads, best of N runs after one warm-up. Prints one
line per model, ms per forward pass and ORT / tg (above 1: tg is faster), and checks that the
outputs agree (rtol = atol = 1e-3). With --keep DIR the models, programs (DIR/<name>.prog) and
inputs (DIR/<name>_<input>.npy) stay, for `tg-run DIR/<name>.prog --in ... --time` by hand.
A figure, not a test: timing never fails; a mismatch or a tg error prints a FAIL line and the
script exits 1.
"""
import argparse, os, re, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


class Builder:
  """An ONNX graph under construction: nodes, initializers and fresh names."""

  def __init__(self, seed: int):
    self.rng = np.random.default_rng(seed)
    self.nodes, self.inits, self.counter = [], [], 0

  def name(self, p):
    self.counter += 1
    return f"{p}{self.counter}"

  def init(self, arr, dtype=np.float32):
    from onnx import numpy_helper
    n = self.name("w")
    self.inits.append(numpy_helper.from_array(np.ascontiguousarray(np.asarray(arr, dtype)), n))
    return n

  def op(self, kind, ins, out=None, **attrs):
    from onnx import helper
    out = out or self.name(kind.lower())
    self.nodes.append(helper.make_node(kind, ins, [out], **attrs))
    return out

  def randn(self, shape, scale):
    return self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)

  def model(self, gname, inputs, outputs):
    from onnx import TensorProto as T, helper
    graph = helper.make_graph(self.nodes, gname, [helper.make_tensor_value_info(n, T.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info(n, T.FLOAT, s) for n, s in outputs], self.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

  # layers
  def conv(self, x, cin, cout, k, stride=1, group=1, bias=False):
    w = self.randn((cout, cin // group, k, k), np.sqrt(2 / (cin // group * k * k)))
    ins = [x, self.init(w)] + ([self.init(self.randn(cout, 0.1))] if bias else [])
    return self.op("Conv", ins, pads=[k // 2] * 4, strides=[stride, stride], kernel_shape=[k, k], group=group)

  def bn(self, x, c):
    r = self.rng
    p = [r.uniform(0.5, 1.5, c), r.standard_normal(c) * 0.1, r.standard_normal(c) * 0.1, r.uniform(0.5, 1.5, c)]
    return self.op("BatchNormalization", [x] + [self.init(a) for a in p], epsilon=1e-5)

  def relu6(self, x):
    return self.op("Clip", [x, self.init(0.0), self.init(6.0)])

  def swish(self, x):
    return self.op("Mul", [x, self.op("Sigmoid", [x])])

  def linear(self, x, cin, cout):
    y = self.op("MatMul", [x, self.init(self.randn((cin, cout), 1 / np.sqrt(cin)))])
    return self.op("Add", [y, self.init(self.randn(cout, 0.02))])

  def layernorm(self, x, c):
    scale, bias = self.init(self.rng.uniform(0.8, 1.2, c)), self.init(self.rng.standard_normal(c) * 0.1)
    return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-5)

  def attention(self, x, seq, hidden, heads, mask=None):
    hd = hidden // heads
    split = self.init([1, seq, heads, hd], np.int64)
    q = self.op("Transpose", [self.op("Reshape", [self.linear(x, hidden, hidden), split])], perm=[0, 2, 1, 3])
    k = self.op("Transpose", [self.op("Reshape", [self.linear(x, hidden, hidden), split])], perm=[0, 2, 3, 1])
    v = self.op("Transpose", [self.op("Reshape", [self.linear(x, hidden, hidden), split])], perm=[0, 2, 1, 3])
    s = self.op("Div", [self.op("MatMul", [q, k]), self.init(np.sqrt(hd))])
    if mask is not None:
      s = self.op("Add", [s, self.init(mask)])
    a = self.op("MatMul", [self.op("Softmax", [s], axis=-1), v])
    a = self.op("Reshape", [self.op("Transpose", [a], perm=[0, 2, 1, 3]), self.init([1, seq, hidden], np.int64)])
    return self.linear(a, hidden, hidden)

  def gelu_erf(self, x):
    e = self.op("Erf", [self.op("Div", [x, self.init(np.sqrt(2))])])
    return self.op("Mul", [self.op("Mul", [x, self.init(0.5)]), self.op("Add", [e, self.init(1.0)])])

  def gelu_tanh(self, x):
    x3 = self.op("Mul", [self.op("Pow", [x, self.init(3.0)]), self.init(0.044715)])
    t = self.op("Tanh", [self.op("Mul", [self.op("Add", [x, x3]), self.init(np.sqrt(2 / np.pi))])])
    return self.op("Mul", [self.op("Mul", [x, self.init(0.5)]), self.op("Add", [t, self.init(1.0)])])


def mobilenetv2_block():
  b = Builder(10)
  y = b.relu6(b.bn(b.conv("x", 32, 192, 1), 192))
  y = b.relu6(b.bn(b.conv(y, 192, 192, 3, group=192), 192))
  y = b.bn(b.conv(y, 192, 32, 1), 32)
  b.op("Add", [y, "x"], out="y")
  return b.model("mobilenetv2_block", [("x", [1, 32, 56, 56])], [("y", [1, 32, 56, 56])])


def bert_layer():
  b, seq, hidden = Builder(11), 128, 256
  h = b.layernorm(b.op("Add", [b.attention("x", seq, hidden, 4), "x"]), hidden)
  f = b.linear(b.gelu_erf(b.linear(h, hidden, 1024)), 1024, hidden)
  b.op("LayerNormalization", [b.op("Add", [f, h]), b.init(np.ones(hidden)), b.init(np.zeros(hidden))], out="y",
       axis=-1, epsilon=1e-5)
  return b.model("bert_layer", [("x", [1, seq, hidden])], [("y", [1, seq, hidden])])


def gpt2_block():
  b, seq, hidden = Builder(12), 64, 256
  mask = np.triu(np.full((seq, seq), -1e9, np.float32), 1)
  h = b.op("Add", ["x", b.attention(b.layernorm("x", hidden), seq, hidden, 4, mask)])
  f = b.linear(b.gelu_tanh(b.linear(b.layernorm(h, hidden), hidden, 1024)), 1024, hidden)
  b.op("Add", [h, f], out="y")
  return b.model("gpt2_block", [("x", [1, seq, hidden])], [("y", [1, seq, hidden])])


def unet_block():
  b = Builder(13)
  y = b.op("Relu", [b.conv("x", 32, 64, 3, bias=True)])
  y = b.op("Relu", [b.conv(y, 64, 64, 3, bias=True)])
  y = b.op("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
  y = b.op("ConvTranspose", [y, b.init(b.randn((64, 32, 2, 2), np.sqrt(2 / (64 * 4)))), b.init(b.randn(32, 0.1))],
           kernel_shape=[2, 2], strides=[2, 2])
  y = b.op("Concat", [y, "x"], axis=1)
  b.op("Relu", [b.conv(y, 64, 32, 3, bias=True)], out="y")
  return b.model("unet_block", [("x", [1, 32, 64, 64])], [("y", [1, 32, 64, 64])])


def bilstm():
  b, seq, inp, hid = Builder(14), 32, 64, 128
  s = 1 / np.sqrt(hid)
  w = b.init(b.rng.uniform(-s, s, (2, 4 * hid, inp)))
  r = b.init(b.rng.uniform(-s, s, (2, 4 * hid, hid)))
  bias = b.init(b.rng.uniform(-s, s, (2, 8 * hid)))
  b.op("LSTM", ["x", w, r, bias], out="y", direction="bidirectional", hidden_size=hid)
  return b.model("bilstm", [("x", [seq, 1, inp])], [("y", [seq, 2, 1, hid])])


def mbconv_se():
  b = Builder(15)
  y = b.swish(b.bn(b.conv("x", 24, 144, 1), 144))
  y = b.swish(b.bn(b.conv(y, 144, 144, 3, group=144), 144))
  se = b.swish(b.conv(b.op("GlobalAveragePool", [y]), 144, 6, 1, bias=True))
  se = b.op("Sigmoid", [b.conv(se, 6, 144, 1, bias=True)])
  y = b.bn(b.conv(b.op("Mul", [y, se]), 144, 24, 1), 24)
  b.op("Add", [y, "x"], out="y")
  return b.model("mbconv_se", [("x", [1, 24, 56, 56])], [("y", [1, 24, 56, 56])])


MODELS = {f.__name__: f for f in (mobilenetv2_block, bert_layer, gpt2_block, unet_block, bilstm, mbconv_se)}


def inputs_of(model, seed: int):
  rng = np.random.default_rng(seed)
  return {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim], dtype=np.float32)
          for i in model.graph.input}


def run_tg(bindir: Path, work: Path, name: str, model: Path, feeds: dict, repeat: int):
  """(ms per forward pass, kernel count, output) or raises RuntimeError with tg's stderr."""
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  prog, out_dir = work / f"{name}.prog", work / f"{name}_out"

  def sh(cmd, **kw):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)
    if p.returncode != 0:
      raise RuntimeError(f"{cmd if isinstance(cmd, str) else ' '.join(cmd)}: exit {p.returncode}\n{p.stderr.strip()}")
    return p

  sh(f"{bindir}/tg-trace {model} | {bindir}/tg-schedule | {bindir}/tg-codegen -o {prog}", shell=True)
  sh([f"{bindir}/tg-run", str(prog), "--compile-only"])
  ins = []
  for k in feeds:
    ins += ["--in", f"{k}={work / f'{name}_{k}.npy'}"]
  err = sh([f"{bindir}/tg-run", str(prog)] + ins + ["--out-dir", str(out_dir), "--time", "--repeat", str(repeat)]).stderr
  total = re.search(r"^tg-run: total +(\d+) kernels +([0-9.]+) ms", err, re.M)
  if total is None:
    raise RuntimeError(f"no 'tg-run: total' line in tg-run's stderr:\n{err.strip()}")
  out = out_dir / "y.npy"
  kernel_ms = float(total.group(2))
  # a forward pass as a user runs it again and again: the wall time of a step (tg-run --steps),
  # lanes and launches included (--time runs one kernel at a time); start-up cancels out
  steps = int(min(2000, max(10, 300 / max(kernel_ms, 1e-3))))
  def wall(n):
    t0 = time.perf_counter()
    sh([f"{bindir}/tg-run", str(prog)] + ins + ["--out-dir", str(out_dir), "--steps", str(n)])
    return time.perf_counter() - t0
  step_ms = max((min(wall(1 + steps) for _ in range(3)) - min(wall(1) for _ in range(3))) / steps * 1e3, 1e-6)
  return step_ms, kernel_ms, int(total.group(1)), np.load(out if out.exists() else next(out_dir.glob("*.npy")))


def run_ort(model: Path, feeds: dict, repeat: int):
  import onnxruntime as ort
  opts = ort.SessionOptions()
  opts.intra_op_num_threads, opts.inter_op_num_threads = 2, 1
  sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
  out = sess.run(None, feeds)[0]
  best = float("inf")
  for _ in range(repeat):
    t0 = time.perf_counter()
    sess.run(None, feeds)
    best = min(best, time.perf_counter() - t0)
  return best * 1e3, out


def bench(args, work: Path) -> int:
  import onnx
  failed = 0
  names = [args.only] if args.only else list(MODELS)
  print(f"tg against ONNX Runtime (2 threads), float32, ms per forward pass, best of {args.repeat}")
  for i, name in enumerate(names):
    model = MODELS[name]()
    onnx.checker.check_model(model, full_check=True)
    path = work / f"{name}.onnx"
    onnx.save(model, path)
    feeds = inputs_of(model, 100 + i)
    for k, v in feeds.items():
      np.save(work / f"{name}_{k}.npy", v)
    ort_ms, ort_out = run_ort(path, feeds, args.repeat)
    try:
      tg_ms, kernel_ms, kernels, tg_out = run_tg(args.bin, work, name, path, feeds, args.repeat)
    except RuntimeError as e:
      failed += 1
      print(f"  {name:<28} FAIL: tg: {e}")
      continue
    try:
      np.testing.assert_allclose(tg_out, ort_out, rtol=1e-3, atol=1e-3)
    except AssertionError as e:
      failed += 1
      bad = str(e).strip().splitlines()
      print(f"  {name:<28} FAIL: tg and onnxruntime disagree: " + "; ".join(l.strip() for l in bad[1:4]))
    print(f"  {name:<28} tg {tg_ms:8.3f} ms a step ({kernels} kernels, {kernel_ms:.3f} ms one at a time)  "
          f"onnxruntime {ort_ms:8.3f} ms  ratio {ort_ms / tg_ms:.2f}x")
  return 1 if failed else 0


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
  ap.add_argument("--repeat", type=int, default=10)
  ap.add_argument("--only", choices=list(MODELS), help="run this model alone")
  ap.add_argument("--keep", type=Path, metavar="DIR", help="work in DIR and keep it (models, <name>.prog, inputs)")
  args = ap.parse_args()
  args.bin = args.bin.resolve()
  if args.keep:
    args.keep.mkdir(parents=True, exist_ok=True)
    return bench(args, args.keep.resolve())
  with tempfile.TemporaryDirectory() as d:
    return bench(args, Path(d))


if __name__ == "__main__":
  sys.exit(main())
