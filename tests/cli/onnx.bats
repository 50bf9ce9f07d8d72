#!/usr/bin/env bats
# tg-trace model.onnx: ONNX models imported as graphs (chosen by content), run through the
# pipeline and compared with numpy; unsupported models are one clear line.
load helpers

# model.onnx from the onnx package's helper API: y = relu(x @ W + b) then softmax, and a conv.
make_models() {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(0)
W = r.standard_normal((8, 4)).astype(np.float32); b = r.standard_normal(4).astype(np.float32)
K = r.standard_normal((3, 2, 3, 3)).astype(np.float32)
g = helper.make_graph(
  [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["h"]),
   helper.make_node("Relu", ["h"], ["r"]), helper.make_node("Softmax", ["r"], ["probs"], axis=-1),
   helper.make_node("Conv", ["img", "K"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
   helper.make_node("MaxPool", ["c"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
   helper.make_node("Flatten", ["pooled"], ["flat"], axis=1)],
  "net",
  [helper.make_tensor_value_info("x", T.FLOAT, [2, 8]), helper.make_tensor_value_info("img", T.FLOAT, [1, 2, 8, 8])],
  [helper.make_tensor_value_info("probs", T.FLOAT, [2, 4]), helper.make_tensor_value_info("flat", T.FLOAT, [1, 12])],
  [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b"), numpy_helper.from_array(K, "K")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "net.bin")  # no .onnx suffix
x = r.standard_normal((2, 8)).astype(np.float32); img = r.standard_normal((1, 2, 8, 8)).astype(np.float32)
np.save("x.npy", x); np.save("img.npy", img)
h = np.maximum(x @ W + b, 0); e = np.exp(h - h.max(-1, keepdims=True)); np.save("want_probs.npy", e / e.sum(-1, keepdims=True))
p = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 3, 4, 4), np.float32)
for o in range(3):
  for i in range(4):
    for j in range(4): c[0, o, i, j] = (p[0, :, 2*i:2*i+3, 2*j:2*j+3] * K[o]).sum()
np.save("want_flat.npy", c.reshape(1, 3, 2, 2, 2, 2).max(axis=(3, 5)).reshape(1, 12))
bad = helper.make_graph([helper.make_node("Unique", ["x"], ["y"])], "bad",
  [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])], [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])
onnx.save(helper.make_model(bad), "bad.onnx")
sym = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "sym",
  [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 3])], [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 3])])
onnx.save(helper.make_model(sym), "sym.onnx")
PY
}

@test "tg-trace imports an ONNX model (chosen by content) and the pipeline matches numpy" {
  make_models
  tg-trace net.bin --json >g.json
  expect_eq "$(jq -c '[.inputs[].name]' g.json)" '["x","img"]'
  expect_eq "$(jq -c '[.outputs[].name]' g.json)" '["probs","flat"]'
  tg-trace net.bin | tg-schedule | tg-codegen | tg-run --in x=x.npy --in img=img.npy --out-dir out
  "$PYTHON" -c '
import numpy as np
for n in ("probs", "flat"):
  np.testing.assert_allclose(np.load(f"out/{n}.npy"), np.load(f"want_{n}.npy"), rtol=1e-5, atol=1e-6)'
}

@test "an ONNX op tg does not import, or a symbolic dimension, is one clear line" {
  make_models
  run_split tg-trace bad.onnx
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: bad.onnx: node '' (Unique): op 'Unique' is not imported by tg: its output's shape depends on the values, and tg's graphs have static shapes"
  expect_eq "$out" ""
  run_split tg-trace sym.onnx
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: sym.onnx: input 'x' has a symbolic dimension 'batch': give it a size, tg-trace --dim batch=8, or a range, --dim batch=1..64 (one program for every size)"
  # a truncated model is not ONNX any more: the binary-file message, not a crash
  head -c 100 net.bin >cut.onnx
  run_split tg-trace cut.onnx
  [ "$status" -eq 1 ]
  [[ "$err" == "tg-trace: cut.onnx: "* ]]
}

@test "tg-trace --arg NAME=FILE.npy binds an ONNX input the importer must know (a shape) to a constant" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])], "r",
  [helper.make_tensor_value_info("x", T.FLOAT, [2, 6]), helper.make_tensor_value_info("shape", T.INT64, [3])],
  [helper.make_tensor_value_info("y", T.FLOAT, [3, 2, 2])])
onnx.save(helper.make_model(g), "r.onnx")
np.save("x.npy", np.arange(12, dtype=np.float32).reshape(2, 6)); np.save("shape.npy", np.array([3, -1, 2]))
PY
  run_split tg-trace r.onnx
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: r.onnx: node '' (Reshape): input 'shape' must be a constant (an initializer, a Constant, or tg-trace --arg NAME=FILE.npy)"
  tg-trace r.onnx --arg shape=shape.npy | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir out
  "$PYTHON" -c 'import numpy as np; y = np.load("out/y.npy"); assert y.shape == (3, 2, 2) and (y.reshape(-1) == np.arange(12)).all()'
  run_split tg-trace r.onnx --arg nope=shape.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: r.onnx: --arg nope: the model has no input of that name"
}

@test "shapes a model computes from Shape are known while importing; one from an input names that input" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
# PyTorch's export of x.view(x.size(0), -1): Shape -> Gather -> Unsqueeze -> Concat -> Reshape
nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]), helper.make_node("Concat", ["n1", "rest"], ["shape"], axis=0),
         helper.make_node("Reshape", ["x", "shape"], ["y"])]
inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"), numpy_helper.from_array(np.array([0], np.int64), "axes"),
         numpy_helper.from_array(np.array([-1], np.int64), "rest")]
g = helper.make_graph(nodes, "flat", [helper.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
                      [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "flat.onnx")
# the shape computed from an input: Reshape(x, k + 1)
g = helper.make_graph([helper.make_node("Add", ["k", "one"], ["k1"]), helper.make_node("Reshape", ["x", "k1"], ["y"])], "r",
                      [helper.make_tensor_value_info("x", T.FLOAT, [2, 6]), helper.make_tensor_value_info("k", T.INT64, [2])],
                      [helper.make_tensor_value_info("y", T.FLOAT, None)], [numpy_helper.from_array(np.array(1, np.int64), "one")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "from_input.onnx")
np.save("x.npy", np.arange(24, dtype=np.float32).reshape(2, 3, 4)); np.save("k.npy", np.array([1, 5]))
PY
  tg-trace flat.onnx | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir out
  "$PYTHON" -c 'import numpy as np; y = np.load("out/y.npy"); assert y.shape == (2, 12) and (y.reshape(-1) == np.arange(24)).all()'
  run_split tg-trace from_input.onnx
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: from_input.onnx: node '' (Reshape): input 'k1' must be a constant: it is computed from graph input 'k' (tg-trace --arg k=FILE.npy binds it)"
  tg-trace from_input.onnx --arg k=k.npy | tg-schedule | tg-codegen >/dev/null
}

@test "single ONNX ops in configurations the node tests leave out match ONNX Runtime" {
  run_split "$PYTHON" "$ROOT/tests/onnx/ops_vs_ort.py" --bin "$TG_BIN"
  echo "$out"
  [ "$status" -eq 0 ]
  [[ "$out" == *"ok   lstm_bidirectional_seq_lens_peepholes"* ]]
  [[ "$out" == *"ops_vs_ort: 0 failed"* ]]
}

@test "a ResNet-style CNN and a small transformer as ONNX match ONNX Runtime" {
  run_split "$PYTHON" "$ROOT/tests/onnx/networks.py" --bin "$TG_BIN"
  echo "$out"
  [ "$status" -eq 0 ]
  [[ "$out" == *"resnet_cnn: "*"max abs error"* ]]
  [[ "$out" == *"transformer: "*"max abs error"* ]]
}

@test "ONNX IsInf with both detections off is all false (a regression: it was true for finite values)" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node("IsInf", ["x"], ["y"], detect_positive=0, detect_negative=0)], "i",
  [helper.make_tensor_value_info("x", T.FLOAT, [4])], [helper.make_tensor_value_info("y", T.BOOL, [4])])
onnx.save(helper.make_model(g), "i.onnx")
np.save("x.npy", np.array([1.0, np.inf, -np.inf, np.nan], np.float32))
PY
  tg-trace i.onnx | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir out
  "$PYTHON" -c 'import numpy as np; y = np.load("out/y.npy"); assert y.dtype == bool and not y.any(), y'
}

@test "malformed ONNX nodes (axes out of range, bad counts, unbounded loops) are one clear line each" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
F = np.float32
def model(name, node, inputs, inits=(), opset=18):
  g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, T.FLOAT, s) for n, s in inputs],
                        [helper.make_empty_tensor_value_info(o) for o in node.output],
                        [numpy_helper.from_array(np.asarray(a), n) for n, a in inits])
  m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]); m.ir_version = 8
  onnx.save(m, f"{name}.onnx")
x = [("x", [2, 3, 4])]
model("softmax_axis", helper.make_node("Softmax", ["x"], ["y"], axis=5), x)
model("concat_axis", helper.make_node("Concat", ["x", "x"], ["y"], axis=-4), x)
model("topk_too_many", helper.make_node("TopK", ["x", "k"], ["v", "i"]), x, [("k", np.array([9], np.int64))])
model("resize_scales_count", helper.make_node("Resize", ["x", "", "s"], ["y"]), x, [("s", np.array([1, 2], F))])
model("gridsample_rank", helper.make_node("GridSample", ["x", "x"], ["y"]), x, opset=16)
model("dft_last_axis", helper.make_node("DFT", ["x"], ["y"], axis=2), x, opset=17)
model("scan_no_inputs", helper.make_node("Scan", ["x"], ["y"], num_scan_inputs=0,
      body=helper.make_graph([], "b", [], [])), x, opset=16)
model("loop_forever", helper.make_node("Loop", ["", ""], [], body=helper.make_graph([], "b", [], [])), x, opset=16)
model("pad_count", helper.make_node("Pad", ["x", "p"], ["y"]), x, [("p", np.array([1, 1], np.int64))])
model("split_axis", helper.make_node("Split", ["x"], ["a", "b"], axis=3), x, opset=11)
model("gather_elements_axis", helper.make_node("GatherElements", ["x", "i"], ["y"], axis=7), x, [("i", np.zeros((2, 3, 4), np.int64))])
model("lstm_no_hidden", helper.make_node("LSTM", ["x", "w", "r"], ["y"], direction="sideways"), x,
      [("w", np.zeros((1, 8, 4), F)), ("r", np.zeros((1, 8, 2), F))], opset=14)
model("det_not_square", helper.make_node("Det", ["x"], ["y"]), x, opset=13)
model("quantize_to_float", helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"]), x,
      [("s", np.array(0.5, F)), ("z", np.array(0.0, F))], opset=13)
model("random_no_seed", helper.make_node("RandomNormalLike", ["x"], ["y"]), x, opset=15)
model("range_empty", helper.make_node("Range", ["a", "b", "c"], ["y"]), [], [(n, np.zeros(0, np.int64)) for n in "abc"], opset=13)
PY
  local n=0
  for f in *.onnx; do
    run_split tg-trace "$f"
    [ "$status" -eq 1 ] || { echo "$f: exit $status"; false; }
    expect_eq "$out" ""
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "$f: $err"; false; }
    [[ "$err" == "tg-trace: $f: node '' ("*"): "* ]] || { echo "$f: $err"; false; }
    n=$((n + 1))
  done
  [ "$n" -eq 16 ]
}

@test "tg-trace --dim: an ONNX model's symbolic batch is a variable, one program for every size, as ONNX Runtime computes it" {
  need_python
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(2)
K = r.standard_normal((4, 3, 3, 3)).astype(np.float32)
W = r.standard_normal((4, 5)).astype(np.float32)
g = helper.make_graph(
  [helper.make_node("Conv", ["x", "K"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
   helper.make_node("GlobalAveragePool", ["r"], ["p"]), helper.make_node("Flatten", ["p"], ["f"]),
   helper.make_node("MatMul", ["f", "W"], ["y"])],
  "cnn", [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 3, 8, 8])],
  [helper.make_tensor_value_info("y", T.FLOAT, ["batch", 5])],
  [numpy_helper.from_array(K, "K"), numpy_helper.from_array(W, "W")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "cnn.onnx")
import onnxruntime as ort
s = ort.InferenceSession("cnn.onnx")
for n in (1, 3, 8):
  x = r.standard_normal((n, 3, 8, 8)).astype(np.float32)
  np.save(f"x{n}.npy", x); np.save(f"want{n}.npy", s.run(None, {"x": x})[0])
PY
  tg-trace cnn.onnx --dim batch=1..8 | tg-schedule | tg-codegen -o cnn.bin
  for n in 1 3 8; do
    tg-run cnn.bin --var batch=$n --in x=x$n.npy --out-dir r$n >/dev/null
    expect_eq "$(npy_eval r$n/y.npy "a.shape == ($n, 5) and np.allclose(a, np.load('want$n.npy'), rtol=1e-5, atol=1e-5)")" True
  done
  run_split tg-run cnn.bin --var batch=9 --in x=x8.npy
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "--var batch=9: batch must be in [1, 8]"
  # a fixed size is no variable
  tg-trace cnn.onnx --dim batch=3 | tg-schedule | tg-codegen | tg-run --in x=x3.npy --out-dir f3 >/dev/null
  expect_eq "$(npy_eval f3/y.npy "np.allclose(a, np.load('want3.npy'), rtol=1e-5, atol=1e-5)")" True
  # mistakes: one line each
  for bad in "--dim size=1..8:no input of the model has a dimension of that name (its symbolic dimensions: batch)" \
    "--dim batch=0..4:--dim batch=0..4: a size must be in [1, 2147483647]" \
    "--dim batch=5..2:--dim batch=5..2: the range is empty (LO > HI)" \
    "--dim batch:--dim batch: expected NAME=N or NAME=LO..HI"; do
    run_split tg-trace cnn.onnx ${bad%%:*}
    expect_one_line_error tg-trace "$err"
    expect_contains "$err" "${bad#*:}"
  done
  echo 'x = input("x", (2, 3))' >s.tg
  run_split tg-trace s.tg --dim n=3
  expect_one_line_error tg-trace "$err"
  expect_contains "$err" "--dim is for an ONNX model's inputs"
}

@test "ONNX sequences and optionals inside a model: built, edited, split and concatenated while importing; a sequence output is one clear line" {
  need_python
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(3)
i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
nodes = [helper.make_node("SplitToSequence", ["x", "sizes"], ["parts"], axis=1),
         helper.make_node("SequenceInsert", ["parts", "y", "zero"], ["more"]),
         helper.make_node("SequenceErase", ["more", "minus1"], ["fewer"]),
         helper.make_node("SequenceLength", ["fewer"], ["n"]),
         helper.make_node("SequenceAt", ["fewer", "minus1"], ["last"]),
         helper.make_node("ConcatFromSequence", ["fewer"], ["cat"], axis=1),
         helper.make_node("SequenceConstruct", ["y", "y"], ["pair"]),
         helper.make_node("ConcatFromSequence", ["pair"], ["stacked"], axis=0, new_axis=1)]
g = helper.make_graph(nodes, "seq",
  [helper.make_tensor_value_info("x", T.FLOAT, [2, 5]), helper.make_tensor_value_info("y", T.FLOAT, [2, 1])],
  [helper.make_tensor_value_info(n, T.FLOAT, None) for n in ("last", "cat", "stacked")] +
  [helper.make_tensor_value_info("n", T.INT64, None)],
  [i64("sizes", [2, 3]), i64("zero", 0), i64("minus1", -1)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "seq.onnx")
g.output.append(helper.make_tensor_sequence_value_info("parts", T.FLOAT, None))
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "seqout.onnx")
x = r.standard_normal((2, 5)).astype(np.float32); y = r.standard_normal((2, 1)).astype(np.float32)
np.save("x.npy", x); np.save("y.npy", y)
import onnxruntime as ort
for name, v in zip(("last", "cat", "stacked", "n"), ort.InferenceSession("seq.onnx").run(["last", "cat", "stacked", "n"], {"x": x, "y": y})):
  np.save(f"want_{name}.npy", v)
# an optional inside the model (opset 15)
g = helper.make_graph([helper.make_node("Optional", ["y"], ["opt"]),
                       helper.make_node("OptionalHasElement", ["opt"], ["has"]),
                       helper.make_node("OptionalGetElement", ["opt"], ["got"])], "opt",
  [helper.make_tensor_value_info("y", T.FLOAT, [2, 1])],
  [helper.make_tensor_value_info("has", T.BOOL, None), helper.make_tensor_value_info("got", T.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]), "opt.onnx")
PY
  tg-trace seq.onnx | tg-schedule | tg-codegen | tg-run --in x=x.npy --in y=y.npy --out-dir r >/dev/null
  for o in last cat stacked n; do
    expect_eq "$(npy_eval r/$o.npy "a.dtype == np.load('want_$o.npy').dtype and np.array_equal(a, np.load('want_$o.npy'))")" True
  done
  tg-trace opt.onnx | tg-schedule | tg-codegen | tg-run --in y=y.npy --out-dir o >/dev/null
  expect_eq "$(npy_eval o/has.npy 'a.dtype == np.bool_ and bool(a)')" True
  expect_eq "$(npy_eval o/got.npy "np.array_equal(a, np.load('y.npy'))")" True
  run_split tg-trace seqout.onnx
  expect_one_line_error tg-trace "$err"
  expect_contains "$err" "graph output 'parts' is a sequence; tg imports sequences that live inside the model"
}

@test "a strided ConvTranspose costs the taps that meet input cells, not the zero-interleaved input's" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(3)
for name, x, w, attrs in (("up", (1, 16, 8, 8), (16, 8, 2, 2), dict(strides=[2, 2])),
                          ("dcgan", (1, 8, 6, 6), (8, 4, 4, 4), dict(strides=[2, 2], pads=[1, 1, 1, 1]))):
  g = helper.make_graph([helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attrs)], name,
    [helper.make_tensor_value_info("x", T.FLOAT, list(x))], [helper.make_tensor_value_info("y", T.FLOAT, None)],
    [numpy_helper.from_array(r.standard_normal(w).astype(np.float32), "w")])
  onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), f"{name}.onnx")
  np.save(f"{name}_x.npy", r.standard_normal(x).astype(np.float32))
PY
  # 2x2 stride 2, 16 -> 8 channels, 8x8 -> 16x16: one tap per output cell, 16*8*16*16 MACs
  # (the zero-interleaved input's convolution counts 4 taps: 0.0002621 GFLOP, 0.033 ms against 0.008)
  tg-trace up.onnx | tg-schedule | tg-codegen | tg-run --in x=up_x.npy --time -o /dev/null 2>t.txt
  expect_contains "$(grep 'total' t.txt)" "(6.554e-05 GFLOP"
  # 4x4 stride 2: 4 phases x 4 channels, 2x2 taps each over 8 channels on 7x7 cells (cut to 12x12
  # after); the zero-interleaved input's convolution counts 16 taps on 14x14 cells: 0.0002007 GFLOP
  tg-trace dcgan.onnx | tg-schedule | tg-codegen | tg-run --in x=dcgan_x.npy --time -o /dev/null 2>t.txt
  expect_contains "$(grep 'total' t.txt)" "(5.018e-05 GFLOP"
}

@test "Pow by a known whole or half exponent multiplies (no exp2/log2 in the kernel) and matches numpy; a tensor exponent keeps the general path" {
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(5)
x = r.standard_normal((4, 8)).astype(np.float32)
x[0, :3] = [0.0, -2.0, 3.0]
np.save("x.npy", x)
for name, e in (("cube", 3.0), ("sq", np.array([[2.0]])), ("half", 0.5), ("inv", -2.0), ("third", 1 / 3)):
  g = helper.make_graph([helper.make_node("Pow", ["x", "e"], ["y"])], name,
    [helper.make_tensor_value_info("x", T.FLOAT, [4, 8])], [helper.make_tensor_value_info("y", T.FLOAT, None)],
    [numpy_helper.from_array(np.asarray(e, np.float32), "e")])
  onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{name}.onnx")
PY
  for m in cube sq half inv third; do
    tg-trace $m.onnx | tg-schedule | tg-codegen --emit c --name $m -o c_$m
    tg-trace $m.onnx | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir o_$m >/dev/null
  done
  for m in cube sq half inv; do
    if grep -q 'exp2\|log2' c_$m/$m.c; then echo "$m computes exp2/log2"; false; fi
  done
  grep -q 'log2' c_third/third.c # 1/3 is no whole or half number: exp2(log2|x| * y)
  "$PYTHON" -c '
import numpy as np
x = np.load("x.npy")
with np.errstate(all="ignore"):
  for m, e in (("cube", 3), ("sq", 2), ("half", 0.5), ("inv", -2), ("third", 1 / 3)):
    np.testing.assert_allclose(np.load(f"o_{m}/y.npy"), np.power(x, np.float32(e)), rtol=1e-6, atol=1e-6, equal_nan=True, err_msg=m)'
}

@test "an ONNX model's weights travel as references to the model file: small artifacts, the bytes protobuf would read, --embed-weights to carry them; a changed model is one clear line" {
  need_python
  # x @ W + b, then @ W2. W and b each carry a first raw_data that a later one overrides, as
  # protobuf reads it; W, b and W2 arrive in a second `graph` field that protobuf merges into
  # the first.
  "$PYTHON" - <<'PY'
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T
r = np.random.default_rng(1)
W = r.standard_normal((512, 256)).astype(np.float32); b = r.standard_normal(200).astype(np.float32)
W2 = r.standard_normal((200, 16)).astype(np.float32)
def varint(n):
  out = b""
  while n >= 0x80: out += bytes([n & 0x7f | 0x80]); n >>= 7
  return out + bytes([n])
def field(number, payload): return varint(number << 3 | 2) + varint(len(payload)) + payload
def tensor(a, name, junk): return field(9, junk) + numpy_helper.from_array(a, name).SerializeToString()
g = helper.make_graph(
  [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Slice", ["xw", "s", "e", "ax"], ["xs"]),
   helper.make_node("Add", ["xs", "b"], ["h"]), helper.make_node("MatMul", ["h", "W2"], ["y"])],
  "refs", [helper.make_tensor_value_info("x", T.FLOAT, [4, 512])], [helper.make_tensor_value_info("y", T.FLOAT, [4, 16])],
  [numpy_helper.from_array(np.array(v, np.int64), n) for v, n in (([0], "s"), ([200], "e"), ([1], "ax"))])
base = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
extra = field(7, field(5, tensor(W, "W", bytes(300000))) + field(5, tensor(b, "b", bytes(5000))) +
                 field(5, numpy_helper.from_array(W2, "W2").SerializeToString()))
open("m.onnx", "wb").write(base + extra)
assert len(onnx.load_from_string(base + extra).graph.initializer) == 6
x = r.standard_normal((4, 512)).astype(np.float32)
np.save("x.npy", x); np.save("want.npy", ((x @ W)[:, :200] + b) @ W2)
PY
  tg-trace m.onnx -o g.bin
  [ "$(stat -c %s g.bin)" -lt 131072 ] # W's 512 KB stayed in m.onnx
  tg-schedule g.bin | tg-codegen -o p.bin
  [ "$(stat -c %s p.bin)" -lt 131072 ]
  tg-run p.bin --in x=x.npy --out-dir out
  "$PYTHON" -c 'import numpy as np; np.testing.assert_allclose(np.load("out/y.npy"), np.load("want.npy"), rtol=1e-4, atol=1e-4)'
  # --embed-weights (or JSON) carries the bytes: the program runs without the model, bit for bit
  tg-trace --embed-weights m.onnx | tg-schedule | tg-codegen -o self.bin
  [ "$(stat -c %s self.bin)" -gt 524288 ]
  tg-trace --embed-weights=false m.onnx -o off.bin
  [ "$(stat -c %s off.bin)" -lt 131072 ]
  tg-trace m.onnx --json | tg-schedule | tg-codegen -o json.bin
  [ "$(stat -c %s json.bin)" -gt 524288 ]
  cp m.onnx m.keep && touch -d '2001-01-01' m.onnx
  run_split tg-run p.bin --in x=x.npy --out-dir out2
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "m.onnx has changed since it was traced"
  [ ! -e out2/y.npy ]
  rm m.onnx
  run_split tg-schedule g.bin -o s.bin
  expect_one_line_error tg-schedule "$err"
  expect_contains "$err" "m.onnx: cannot open"
  expect_contains "$err" "--embed-weights"
  [ ! -e s.bin ]
  tg-run self.bin --in x=x.npy --out-dir out3
  tg-run json.bin --in x=x.npy --out-dir out4
  cmp out/y.npy out3/y.npy
  cmp out/y.npy out4/y.npy
}
