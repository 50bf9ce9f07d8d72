#!/usr/bin/env python3
"""Single ONNX ops in the configurations ONNX's node tests leave out (bidirectional recurrent
layers with sequence lengths, reductions in scatters, resize modes on
several axes, pools with indices (batch-first layouts: ONNX Runtime refuses them; the
node tests cover them) and ceil_mode, ...), run by tg and by ONNX Runtime and
compared (every output: dtype, shape, values at rtol 1e-4, atol 1e-5).
  python tests/onnx/ops_vs_ort.py --bin build/bin [-k NAME]
"""
import argparse, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

R = np.random.default_rng(1)
F = np.float32


def rnd(*shape):
  return R.standard_normal(shape).astype(F)


# name -> (op, {input name: array (None = left out)}, {initializer name: array}, outputs, attrs, opset)
def cases():
  b, s, i, h = 3, 5, 4, 6  # batch, steps, input size, hidden size
  lens = np.array([5, 2, 4], np.int32)
  def rec(op, gates, dirs, **attrs):
    ins = {"X": rnd(s, b, i), "W": rnd(dirs, gates * h, i) * 0.5, "R": rnd(dirs, gates * h, h) * 0.5,
           "B": rnd(dirs, 2 * gates * h) * 0.1, "sequence_lens": lens, "initial_h": rnd(dirs, b, h)}
    if op == "LSTM": ins.update(initial_c=rnd(dirs, b, h), P=rnd(dirs, 3 * h) * 0.1)
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    return (op, ins, {}, outs, dict(hidden_size=h, **attrs), 14)
  yield "lstm_bidirectional_seq_lens_peepholes", rec("LSTM", 4, 2, direction="bidirectional")
  yield "lstm_reverse_clip", rec("LSTM", 4, 1, direction="reverse", clip=0.7)
  yield "gru_bidirectional_linear_before_reset", rec("GRU", 3, 2, direction="bidirectional", linear_before_reset=1)
  yield "gru_reverse_activations", rec("GRU", 3, 1, direction="reverse", activations=["HardSigmoid", "LeakyRelu"],
                                       activation_alpha=[0.3, 0.05], activation_beta=[0.4])
  yield "rnn_bidirectional_relu", rec("RNN", 1, 2, direction="bidirectional", activations=["Relu", "Tanh"])
  x = rnd(2, 3, 4, 5)
  for mode in ("nearest", "linear", "cubic"):
    yield f"resize_{mode}_sizes_half_pixel", ("Resize", {"X": x}, {"roi": np.zeros(0, F), "scales": np.zeros(0, F), "sizes": np.array([2, 3, 7, 3], np.int64)}, ["Y"], dict(mode=mode), 13)
    yield f"resize_{mode}_scales_align_corners", ("Resize", {"X": x}, {"roi": np.zeros(0, F), "scales": np.array([1, 1, 1.5, 0.6], F)}, ["Y"], dict(mode=mode, coordinate_transformation_mode="align_corners"), 13)
  yield "resize_linear_antialias_axes", ("Resize", {"X": x}, {"roi": np.zeros(0, F), "scales": np.array([0.5, 0.4], F)}, ["Y"], dict(mode="linear", antialias=1, axes=[2, 3]), 18)
  data, idx = rnd(4, 5), np.array([[0, 4, 2], [1, 1, 3]], np.int64)
  for red in ("none", "add", "mul", "max", "min"):
    yield f"scatter_elements_{red}", ("ScatterElements", {"data": data, "updates": rnd(2, 3)}, {"indices": idx if red != "none" else np.array([[0, 4, 2], [1, 0, 3]], np.int64)}, ["y"], dict(axis=1, reduction=red), 18)
  yield "scatter_nd_add", ("ScatterND", {"data": rnd(4, 3, 2), "updates": rnd(3, 2)}, {"indices": np.array([[0, 1], [3, 2], [0, 1]], np.int64)}, ["y"], dict(reduction="add"), 18)
  yield "gather_nd_batch_dims", ("GatherND", {"data": rnd(2, 3, 4)}, {"indices": np.array([[[1], [2]], [[0], [1]]], np.int64)}, ["y"], dict(batch_dims=1), 13)
  yield "top_k_smallest_axis0", ("TopK", {"X": rnd(6, 3)}, {"K": np.array([4], np.int64)}, ["V", "I"], dict(axis=0, largest=0), 11)
  yield "maxpool_indices_pads_ceil", ("MaxPool", {"X": rnd(1, 2, 7, 6)}, {}, ["Y", "I"], dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1), 12)
  yield "averagepool_ceil_count_include_pad", ("AveragePool", {"X": rnd(1, 2, 7, 6)}, {}, ["Y"], dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1), 19)
  yield "convtranspose_asymmetric_pads_groups", ("ConvTranspose", {"X": rnd(1, 4, 5, 5), "W": rnd(4, 3, 3, 3), "B": rnd(6)}, {}, ["Y"], dict(pads=[0, 1, 2, 1], strides=[2, 3], group=2, output_padding=[1, 0]), 11)
  # strided ConvTranspose runs as one convolution per output phase (lib/onnx/ops_nn.cpp)
  yield "convtranspose_kernel_is_stride_bias", ("ConvTranspose", {"X": rnd(2, 6, 5, 4), "W": rnd(6, 3, 2, 2), "B": rnd(3)}, {}, ["Y"], dict(strides=[2, 2]), 11)
  yield "convtranspose_k4_s2_p1", ("ConvTranspose", {"X": rnd(1, 3, 5, 6), "W": rnd(3, 4, 4, 4)}, {}, ["Y"], dict(strides=[2, 2], pads=[1, 1, 1, 1]), 11)
  yield "convtranspose_k3_s2_output_padding", ("ConvTranspose", {"X": rnd(1, 4, 4, 5), "W": rnd(4, 2, 3, 3), "B": rnd(2)}, {}, ["Y"], dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]), 11)
  yield "convtranspose_k1_s3_1d", ("ConvTranspose", {"X": rnd(2, 3, 7), "W": rnd(3, 5, 1)}, {}, ["Y"], dict(strides=[3]), 11)
  yield "convtranspose_k5_s2_1d_groups", ("ConvTranspose", {"X": rnd(1, 4, 6), "W": rnd(4, 3, 5), "B": rnd(6)}, {}, ["Y"], dict(strides=[2], group=2, pads=[2, 1]), 11)
  yield "convtranspose_3d_k2_s2_mixed", ("ConvTranspose", {"X": rnd(1, 2, 3, 4, 2), "W": rnd(2, 3, 2, 3, 1)}, {}, ["Y"], dict(strides=[2, 1, 3]), 11)
  yield "convtranspose_s2_same_lower", ("ConvTranspose", {"X": rnd(1, 2, 5, 5), "W": rnd(2, 2, 3, 3)}, {}, ["Y"], dict(strides=[2, 2], auto_pad="SAME_LOWER"), 11)
  yield "convtranspose_s2_output_shape", ("ConvTranspose", {"X": rnd(1, 2, 4, 4), "W": rnd(2, 3, 3, 3)}, {}, ["Y"], dict(strides=[2, 2], output_shape=[9, 10]), 11)
  yield "pad_reflect_axes", ("Pad", {"x": rnd(3, 4, 5)}, {"pads": np.array([2, 1, 1, 3], np.int64), "axes": np.array([2, 1], np.int64)}, ["y"], dict(mode="reflect"), 18)
  yield "pad_wrap", ("Pad", {"x": rnd(3, 4)}, {"pads": np.array([1, 5, 2, 0], np.int64)}, ["y"], dict(mode="wrap"), 19)
  yield "lrn_size_5", ("LRN", {"x": rnd(2, 7, 3, 3)}, {}, ["y"], dict(size=5, alpha=2e-3, beta=0.6, bias=1.5), 13)
  yield "reduce_prod_axes", ("ReduceProd", {"x": rnd(3, 5, 4)}, {"axes": np.array([0, 2], np.int64)}, ["y"], dict(keepdims=0), 18)
  img, grid = rnd(2, 3, 5, 4), (R.uniform(-1.3, 1.3, (2, 6, 7, 2))).astype(F)
  for mode, pad, align in (("bilinear", "reflection", 0), ("bicubic", "border", 1), ("nearest", "zeros", 0), ("bicubic", "reflection", 0)):
    yield f"grid_sample_{mode}_{pad}_align{align}", ("GridSample", {"X": img, "Grid": grid}, {}, ["Y"], dict(mode=mode, padding_mode=pad, align_corners=align), 16)
  yield "det_batched_4x4_needs_pivoting", ("Det", {"x": np.concatenate([rnd(3, 4, 4), np.array([[[0, 1, 2, 3], [1, 0, 5, 2], [4, 2, 0, 1], [3, 3, 3, 0]]], F)])}, {}, ["y"], {}, 13)
  yield "dft_onesided_length", ("DFT", {"x": rnd(2, 12, 3, 1)}, {"dft_length": np.array(9, np.int64)}, ["y"], dict(axis=1, onesided=1), 17)
  yield "dft_inverse_complex_axis2", ("DFT", {"x": rnd(2, 3, 8, 2)}, {}, ["y"], dict(axis=2, inverse=1), 17)
  # control flow: an If on data (both branches, chosen per run), a Scan backwards over axis 1
  xa = rnd(3, 4)
  then_g = helper.make_graph([helper.make_node("Mul", ["a", "two"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", T.FLOAT, [3, 4])], [numpy_helper.from_array(F(2), "two")])
  else_g = helper.make_graph([helper.make_node("Neg", ["a"], ["e"])], "else", [], [helper.make_tensor_value_info("e", T.FLOAT, [3, 4])])
  yield "if_condition_from_data", ("If", {"c": np.array(False), "a": xa}, {}, ["y"], dict(then_branch=then_g, else_branch=else_g), 13)
  body = helper.make_graph([helper.make_node("Add", ["s_in", "x_t"], ["s_out"]), helper.make_node("Mul", ["s_out", "x_t"], ["y_t"])], "body",
                           [helper.make_tensor_value_info("s_in", T.FLOAT, [3]), helper.make_tensor_value_info("x_t", T.FLOAT, [3])],
                           [helper.make_tensor_value_info("s_out", T.FLOAT, [3]), helper.make_tensor_value_info("y_t", T.FLOAT, [3])])
  yield "scan_reverse_axis1", ("Scan", {"s": rnd(3), "x": rnd(3, 5)}, {}, ["s_final", "ys"],
                               dict(body=body, num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1]), 16)
  # seeded random ops draw from np.random.RandomState(seed) as ONNX's reference does
  yield "bernoulli_seed", ("Bernoulli", {}, {"p": R.uniform(0, 1, (4, 50)).astype(F)}, ["y"], dict(seed=7.0), 15)
  yield "random_normal_like_seed", ("RandomNormalLike", {"x": rnd(3, 33)}, {}, ["y"], dict(seed=3.0, mean=1.5, scale=0.5), 15)
  yield "random_uniform_like_seed", ("RandomUniformLike", {"x": rnd(5, 7)}, {}, ["y"], dict(seed=11.0, low=-2.0, high=3.0), 15)
  yield "qlinear_matmul_int8", ("QLinearMatMul", {"a": R.integers(-128, 127, (3, 4)).astype(np.int8), "b": R.integers(-128, 127, (4, 5)).astype(np.int8)},
                                {"a_scale": F(0.02), "a_zero_point": np.int8(3), "b_scale": F(0.03), "b_zero_point": np.int8(-2), "y_scale": F(0.5), "y_zero_point": np.int8(1)}, ["y"], {}, 13)
  # issue 30: Flatten with axis equal to the rank (all into the first dim), and PRelu before
  # opset 7, whose slope of C values is per channel rather than broadcast from the right
  yield "flatten_axis_rank", ("Flatten", {"x": rnd(2, 3, 4)}, {}, ["y"], dict(axis=3), 13)
  yield "flatten_axis_minus_rank", ("Flatten", {"x": rnd(2, 3, 4)}, {}, ["y"], dict(axis=-3), 13)
  yield "prelu_opset6_per_channel", ("PRelu", {"x": rnd(2, 3, 4, 5)}, {"slope": np.array([0.1, 0.2, 0.3], F)}, ["y"], {}, 6)


# Where ONNX Runtime and ONNX's own reference implementation disagree, tg follows the reference
# (as ONNX's node tests do): bicubic GridSample with border padding (ORT clamps differently;
# 0.12 apart on this case), seeded random ops (ORT has its own generator), and PRelu before
# opset 7 (ORT has no kernel for it).
REFERENCE_ORACLE = {"grid_sample_bicubic_border_align1", "bernoulli_seed", "random_normal_like_seed",
                    "random_uniform_like_seed", "prelu_opset6_per_channel"}


def to_info(name, arr):
  return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(arr.dtype), arr.shape)


def run_case(bindir, name, case, tmp):
  op, ins, inits, outs, attrs, opset = case
  node_inputs = {"LSTM": ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"],
                 "GRU": ["X", "W", "R", "B", "sequence_lens", "initial_h"], "RNN": ["X", "W", "R", "B", "sequence_lens", "initial_h"],
                 "Resize": ["X", "roi", "scales", "sizes"], "ScatterElements": ["data", "indices", "updates"],
                 "ScatterND": ["data", "indices", "updates"], "GatherND": ["data", "indices"], "TopK": ["X", "K"],
                 "ConvTranspose": ["X", "W", "B"], "Pad": ["x", "pads", "constant_value", "axes"], "ReduceProd": ["x", "axes"],
                 "GridSample": ["X", "Grid"], "PRelu": ["x", "slope"], "Bernoulli": ["p"], "RandomNormalLike": ["x"], "RandomUniformLike": ["x"], "If": ["c"], "Scan": ["s", "x"], "DFT": ["x", "dft_length"],
                 "QLinearMatMul": ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]}.get(op, list(ins))
  names = [n if n in ins or n in inits else "" for n in node_inputs]
  while names and not names[-1]: names.pop()
  g = helper.make_graph([helper.make_node(op, names, outs, **attrs)], name, [to_info(n, a) for n, a in ins.items()],
                        [helper.make_empty_tensor_value_info(o) for o in outs],
                        [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
  model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
  model.ir_version = 8
  path = tmp / f"{name}.onnx"
  onnx.save(model, str(path))
  if name in REFERENCE_ORACLE:
    want = ReferenceEvaluator(model).run(None, ins)
  else:
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, ins)
  args = []
  for n, a in ins.items():
    np.save(tmp / f"{name}_{n}.npy", a)
    args.append(f"--in {n}={tmp}/{name}_{n}.npy")
  cmd = (f"{bindir}/tg-trace {path} | {bindir}/tg-schedule | {bindir}/tg-codegen | "
         f"{bindir}/tg-run {' '.join(args)} --out-dir {tmp}/{name}_out")
  p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
  if p.returncode: return p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
  for o, w in zip(outs, want):
    got = np.load(tmp / f"{name}_out" / f"{o}.npy")
    if got.dtype != w.dtype or got.shape != w.shape: return f"{o}: {got.dtype}{got.shape}, ONNX Runtime {w.dtype}{w.shape}"
    try:
      np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)
    except AssertionError:
      return f"{o}: values differ by up to {np.abs(got.astype(np.float64) - w).max():.3g}"
  return None


if __name__ == "__main__":
  ap = argparse.ArgumentParser()
  ap.add_argument("--bin", default=str(Path(__file__).resolve().parents[2] / "build/bin"))
  ap.add_argument("-k", default="")
  a = ap.parse_args()
  failed = 0
  with tempfile.TemporaryDirectory() as tmp:
    for name, case in cases():
      if a.k not in name: continue
      why = run_case(a.bin, name, case, Path(tmp))
      print(f"{'FAIL' if why else 'ok  '} {name}" + (f": {why}" if why else ""))
      failed += bool(why)
  print(f"ops_vs_ort: {failed} failed (tg vs ONNX Runtime {ort.__version__})")
  sys.exit(1 if failed else 0)
