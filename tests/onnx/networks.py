#!/usr/bin/env python3
"""Two whole networks built with the onnx package's helper API and random weights, a ResNet-style
CNN and a small transformer encoder, run by tg (tg-trace model.onnx | ... | tg-run) and by ONNX
Runtime; prints each one's max error and fails past float32 tolerance (rtol 1e-4, atol 1e-5).
  python tests/onnx/networks.py --bin build/bin
"""
import argparse, os, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper, numpy_helper

R = np.random.default_rng(0)


class Builder:
  def __init__(self):
    self.nodes, self.inits, self.n = [], [], 0

  def name(self, p):
    self.n += 1
    return f"{p}{self.n}"

  def weight(self, shape, scale=None):
    w = (R.standard_normal(shape) * (scale if scale else 1 / np.sqrt(np.prod(shape[1:]) or 1))).astype(np.float32)
    n = self.name("w")
    self.inits.append(numpy_helper.from_array(w, n))
    return n

  def const(self, arr):
    n = self.name("c")
    self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
    return n

  def op(self, op, ins, **attrs):
    out = self.name(op.lower())
    self.nodes.append(helper.make_node(op, ins, [out], **attrs))
    return out


def resnet(b: Builder, x):
  def conv_bn(x, cin, cout, k, stride, relu=True):
    y = b.op("Conv", [x, b.weight((cout, cin, k, k))], pads=[k // 2] * 4, strides=[stride, stride])
    scale, bias = b.const(R.uniform(0.5, 1.5, cout).astype(np.float32)), b.const(R.standard_normal(cout).astype(np.float32) * 0.1)
    mean, var = b.const(R.standard_normal(cout).astype(np.float32) * 0.1), b.const(R.uniform(0.5, 1.5, cout).astype(np.float32))
    y = b.op("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
    return b.op("Relu", [y]) if relu else y

  def block(x, cin, cout, stride):
    y = conv_bn(conv_bn(x, cin, cout, 3, stride), cout, cout, 3, 1, relu=False)
    short = conv_bn(x, cin, cout, 1, stride, relu=False) if stride != 1 or cin != cout else x
    return b.op("Relu", [b.op("Add", [y, short])])

  y = conv_bn(x, 3, 16, 3, 1)
  y = b.op("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])
  y = block(y, 16, 16, 1)
  y = block(y, 16, 32, 2)
  y = block(y, 32, 64, 2)
  y = b.op("GlobalAveragePool", [y])
  y = b.op("Flatten", [y], axis=1)
  return b.op("Gemm", [y, b.weight((10, 64)), b.const(np.zeros(10, np.float32))], transB=1)


def transformer(b: Builder, x, seq=16, d=32, heads=4, layers=2):
  dh = d // heads
  def ln(x):
    return b.op("LayerNormalization", [x, b.const(np.ones(d, np.float32)), b.const(np.zeros(d, np.float32))], axis=-1, epsilon=1e-5)
  def heads_of(t):  # (seq, d) -> (heads, seq, dh)
    return b.op("Transpose", [b.op("Reshape", [t, b.const(np.array([seq, heads, dh]))])], perm=[1, 0, 2])
  for _ in range(layers):
    h = ln(x)
    q, k, v = (heads_of(b.op("MatMul", [h, b.weight((d, d))])) for _ in range(3))
    att = b.op("Div", [b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 2, 1])]), b.const(np.float32(np.sqrt(dh)))])
    o = b.op("MatMul", [b.op("Softmax", [att], axis=-1), v])
    o = b.op("Reshape", [b.op("Transpose", [o], perm=[1, 0, 2]), b.const(np.array([seq, d]))])
    x = b.op("Add", [x, b.op("MatMul", [o, b.weight((d, d))])])
    h = ln(x)
    m = b.op("MatMul", [h, b.weight((d, 4 * d))])
    m = b.op("Mul", [m, b.op("Sigmoid", [b.op("Mul", [m, b.const(np.float32(1.702))])])])  # quick GELU
    x = b.op("Add", [x, b.op("MatMul", [m, b.weight((4 * d, d))])])
  return ln(x)


def run(bindir, name, build, in_shape):
  b = Builder()
  out = build(b, "x")
  g = helper.make_graph(b.nodes, name, [helper.make_tensor_value_info("x", T.FLOAT, in_shape)],
                        [helper.make_tensor_value_info(out, T.FLOAT, None)], b.inits)
  model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
  model.ir_version = 8
  x = R.standard_normal(in_shape).astype(np.float32)
  with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / f"{name}.onnx"
    onnx.save(model, str(path))
    np.save(Path(tmp) / "x.npy", x)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    want = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    cmd = (f"{bindir}/tg-trace {path} | {bindir}/tg-schedule | {bindir}/tg-codegen | "
           f"{bindir}/tg-run --in x={tmp}/x.npy --out-dir {tmp}/out")
    subprocess.run(["bash", "-o", "pipefail", "-c", cmd], check=True)
    got = np.load(Path(tmp) / "out" / f"{out}.npy")
  err = np.abs(got - want)
  print(f"{name}: {len(b.nodes)} nodes, output {got.shape}: max abs error {err.max():.3g}, "
        f"max rel error {(err / np.maximum(np.abs(want), 1e-6)).max():.3g} (tg vs ONNX Runtime {ort.__version__})")
  np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


if __name__ == "__main__":
  ap = argparse.ArgumentParser()
  ap.add_argument("--bin", default=str(Path(__file__).resolve().parents[2] / "build/bin"))
  a = ap.parse_args()
  run(a.bin, "resnet_cnn", resnet, [2, 3, 32, 32])
  run(a.bin, "transformer", transformer, [16, 32])
