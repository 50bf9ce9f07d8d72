#!/usr/bin/env bats
# tg-trace: .tg script -> graph artifact (man/tg-trace.1).
load helpers

@test "tg-trace --version prints the name and version" {
  run_split tg-trace --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-trace 0.1.0"
}

@test "tg-trace --help lists the flags" {
  run_split tg-trace --help
  [ "$status" -eq 0 ]
  for flag in --json -o -e --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-trace rejects an unknown flag with exit 2" {
  run_split tg-trace --no-such-flag
  [ "$status" -eq 2 ]
  expect_contains "$err" "no-such-flag"
}

@test "tg-trace --json writes JSON that jq parses" {
  echo "$MATMUL" >m.tg
  run_split tg-trace --json m.tg
  [ "$status" -eq 0 ]
  jq -e . <<<"$out" >/dev/null
}

@test "tg-trace -e traces code given on the command line" {
  run_split tg-trace --json -e 'Tensor.ones(2, 3) + 1'
  [ "$status" -eq 0 ]
  jq -e . <<<"$out" >/dev/null
}

@test "tg-trace reads the script from stdin with no file and with -" {
  echo "$CHAIN" >c.tg
  tg-trace --json c.tg >file.json
  tg-trace --json <c.tg >stdin.json
  tg-trace --json - <c.tg >dash.json
  jq -e . file.json >/dev/null
  jq -e . stdin.json >/dev/null
  jq -e . dash.json >/dev/null
}

@test "tg-trace -o writes the artifact to a file and nothing to stdout" {
  echo "$CHAIN" >c.tg
  run_split tg-trace c.tg -o g.bin
  [ "$status" -eq 0 ]
  [ -s g.bin ]
  [ -z "$out" ]
}

@test "tg-trace binary and JSON artifacts schedule the same" {
  echo "$SOFTMAX" >s.tg
  tg-trace s.tg -o g.bin
  tg-trace --json s.tg -o g.json
  a=$(tg-schedule --json g.bin | jq '.kernels|length')
  b=$(tg-schedule --json g.json | jq '.kernels|length')
  expect_eq "$a" "$b"
}

@test "tg-trace binary output differs from its JSON form" {
  echo "$CHAIN" >c.tg
  tg-trace c.tg -o g.bin
  run jq -e . g.bin
  [ "$status" -ne 0 ]
}

@test "tg-trace refuses to write binary to a terminal" {
  command -v script >/dev/null || skip "needs script(1)"
  echo "$CHAIN" >c.tg
  run_split script -qec "tg-trace c.tg" /dev/null
  [ "$status" -eq 1 ] || [ "$status" -eq 2 ]
  expect_contains "$out" "tg-trace: "
}

@test "tg-trace --json to a terminal is allowed" {
  command -v script >/dev/null || skip "needs script(1)"
  echo "$CHAIN" >c.tg
  run_split script -qec "tg-trace --json c.tg" /dev/null
  [ "$status" -eq 0 ]
  expect_contains "$out" "{"
}

@test "tg-trace reports a script error as FILE:LINE: Type: message, exit 1" {
  printf 'x = Tensor.arange(6)\ny = x.reshape(-1, -1)\n' >bad.tg
  run_split tg-trace bad.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: bad.tg:2: RuntimeError: only one dimension can be inferred using -1, getting (-1, -1)"
  [ -z "$out" ]
}

@test "tg-trace reports tinygrad's exception type (AssertionError) and message" {
  printf 'a = input("a", (2, 3))\nb = input("b", (4, 5))\n\nc = a @ b\n' >mm.tg
  run_split tg-trace mm.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: mm.tg:4: AssertionError: Input Tensor shapes (2, 3) and (4, 5) cannot be multiplied (3 != 4)"
}

@test "tg-trace reports a script error read from stdin with its line" {
  printf 'x = Tensor.ones(2, 3)\n\nx.permute(0, 0)\n' >p.tg
  run_split tg-trace <p.tg
  [ "$status" -eq 1 ]
  expect_one_line_error tg-trace "$err"
  expect_contains "$err" ":3: RuntimeError: order is not a valid permutation, getting (0, 0)"
}

@test "tg-trace reports a syntax error with the file and line, exit 1" {
  printf 'x = Tensor.ones(2)\ny = (x + \n' >syn.tg
  run_split tg-trace syn.tg
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-trace: syn.tg:"
  [ -z "$out" ]
}

@test "tg-trace leaves no output file when the script fails" {
  printf 'x = Tensor.arange(6)\nx.reshape(-1, -1)\n' >bad.tg
  run_split tg-trace bad.tg -o g.bin
  [ "$status" -eq 1 ]
  [ ! -e g.bin ]
  run_split tg-trace --json bad.tg -o g.json
  [ "$status" -eq 1 ]
  [ ! -e g.json ]
}

@test "tg-trace on a missing script file fails naming the file" {
  run_split tg-trace no-such-script.tg
  [ "$status" -ne 0 ]
  expect_contains "$err" "no-such-script.tg"
  [ -z "$out" ]
}

@test "tg-trace script without output() yields output 'out' from the last expression" {
  run_split tg-trace --json -e $'a = Tensor.ones(3)\na * 2'
  [ "$status" -eq 0 ]
  expect_contains "$out" '"out"'
}

@test "tg-trace keeps the names given to output()" {
  run_split tg-trace --json -e $'x = input("x", (2, 2))\noutput("first", x + 1)\noutput("second", x * 3)'
  [ "$status" -eq 0 ]
  expect_contains "$out" '"first"'
  expect_contains "$out" '"second"'
  expect_contains "$out" '"x"'
}

@test "tg-trace accepts the language subset: def, lambda, for, if, tuple unpacking" {
  cat >lang.tg <<'TG'
def affine(t, w, b):
  return t * w + b
act = lambda t: t.relu()
x = input("x", (2, 3))
y = x
for i in range(2):
  y = affine(y, 0.5, i)
if len(x.shape) == 2:
  y = act(y)
a, b = y, y.sum(axis=1)
output("a", a)
output("b", b)
TG
  run_split tg-trace --json lang.tg
  [ "$status" -eq 0 ]
  jq -e . <<<"$out" >/dev/null
}

@test "tg-trace --arg NAME=VALUE sets args[NAME] (repeatable, last wins)" {
  run_split tg-trace --json --arg a=1 --arg b=x=y --arg a=2 -e 'print(args["a"], args["b"], len(args)); Tensor([1.0])'
  [ "$status" -eq 0 ]
  expect_eq "$err" "2 x=y 2"
  run_split tg-trace --json -e 'print(args); Tensor([1.0])'
  [ "$status" -eq 0 ]
  expect_eq "$err" "{}"
}

@test "tg-trace rejects --arg without NAME= with exit 2" {
  run_split tg-trace --arg novalue -e '1'
  [ "$status" -eq 2 ]
  expect_contains "$err" "expected NAME=VALUE, got 'novalue'"
}

@test "tg-trace loads a .safetensors file written by the safetensors package" {
  need_python
  "$PYTHON" -c 'import safetensors' 2>/dev/null || skip "needs the safetensors package"
  "$PYTHON" -c "import numpy as np; from safetensors.numpy import save_file
save_file({'w': np.arange(6, dtype=np.float32).reshape(2, 3), 'i': np.array([7, -8], dtype=np.int64)}, 'w.safetensors')"
  echo 'sd = nn.state.safe_load(args["weights"])
output("w", sd["w"].sum(0))
output("i", sd["i"])' >load.tg
  pipeline "tg-trace --arg weights=w.safetensors load.tg | tg-schedule | tg-codegen | tg-run --out-dir res"
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/w.npy 'a.tolist()')" "[3.0, 5.0, 7.0]"
  expect_eq "$(npy_eval res/i.npy 'a.dtype.name + " " + str(a.tolist())')" "int64 [7, -8]"
}

@test "tg-trace safe_save writes what the safetensors package reads; computed tensors are refused" {
  run_split tg-trace --json -e 'nn.state.safe_save({"a": Tensor([[1.5, 2.0]]), "z": Tensor.zeros(3, dtype=dtypes.int32)}, "o.safetensors"); Tensor([1.0])'
  [ "$status" -eq 0 ]
  if [[ -x $PYTHON ]] && "$PYTHON" -c 'import safetensors' 2>/dev/null; then
    expect_eq "$("$PYTHON" -c "from safetensors.numpy import load_file; d = load_file('o.safetensors'); print(d['a'].tolist(), d['z'].dtype, d['z'].tolist())")" "[[1.5, 2.0]] int32 [0, 0, 0]"
  fi
  run_split tg-trace --json -e 'x = Tensor([1.0, 2.0])
nn.state.safe_save({"y": x * 2}, "p.safetensors")'
  [ "$status" -eq 1 ]
  expect_one_line_error tg-trace "$err"
  expect_contains "$err" "<expr>:2: RuntimeError: safe_save: tensor 'y' is computed"
  expect_contains "$err" "tg-run --out-dir"
  [ ! -e p.safetensors ]
}

@test "tg-trace safe_load of a corrupt file is a one-line error naming the file" {
  printf '\x10\x00\x00\x00\x00\x00\x00\x00{"w": [1, 2' >bad.safetensors
  run_split tg-trace --json -e 'nn.state.safe_load("bad.safetensors")'
  [ "$status" -eq 1 ]
  expect_one_line_error tg-trace "$err"
  expect_contains "$err" "bad.safetensors: not a valid safetensors file"
  run_split tg-trace --json -e 'nn.state.safe_load("missing.safetensors")'
  [ "$status" -eq 1 ]
  expect_contains "$err" "missing.safetensors"
}

@test "tg-trace binds what an import names, and an import of a name tg lacks is an ImportError at its line" {
  printf 'from tinygrad.nn import Linear\nfrom tinygrad.nn.optim import Adam\nfrom tinygrad.nn.state import get_parameters as params\nl = Linear(2, 3)\nopt = Adam(params(l))\noutput("n", Tensor([len(params(l))]))\n' >i.tg
  run_split bash -c "tg-trace i.tg | tg-schedule | tg-codegen | tg-run"
  [ "$status" -eq 0 ]
  expect_contains "$out" "[2]"
  printf 'x = 1\nfrom tinygrad import Tensor, TinyJitX\n' >bad.tg
  run_split tg-trace bad.tg
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: bad.tg:2: ImportError: cannot import name 'TinyJitX' from 'tinygrad' (tg does not provide it)"
}

@test "tg-trace refuses a binary file in one line, without echoing its bytes" {
  make_npy a.npy 'np.ones(3, np.float32)'
  run_split tg-trace a.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: a.npy: a .npy array, not a .tg script (tg-run binds arrays: --in NAME=a.npy)"
  printf 'x\000\377y' >model.onnx
  run_split tg-trace model.onnx
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-trace: model.onnx: a binary file (an .onnx model? weights?), not a .tg script"
  [ -z "$out" ]
}

@test "tg-trace says why a tensor's values cannot be read while tracing" {
  printf 'x = Tensor([1, 2])\nv = x.numpy()\n' >v.tg
  run_split tg-trace v.tg
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-trace: v.tg:2: RuntimeError: a tensor's values are not known while tracing"
}
