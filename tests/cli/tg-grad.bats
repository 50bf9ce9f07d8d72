#!/usr/bin/env bats
# tg-grad: graph artifact -> graph with grad_NAME outputs (man/tg-grad.1).
load helpers

# loss = sum(x * x * w), so d loss / d x = 2 * x * w and d loss / d w = x * x.
PRODUCT=$'x = input("x", (2, 3))\nw = input("w", (3,))\noutput("loss", (x * x * w).sum())'

@test "tg-grad --version prints the name and version" {
  run_split tg-grad --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-grad 0.1.0"
}

@test "tg-grad --help lists the flags" {
  run_split tg-grad --help
  [ "$status" -eq 0 ]
  for flag in --wrt --loss --json -o --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-grad without --wrt is a usage error" {
  echo "$PRODUCT" >p.tg
  tg-trace p.tg -o g.bin
  run_split tg-grad g.bin
  [ "$status" -eq 2 ]
  expect_contains "$err" "--wrt is required"
}

@test "tg-grad adds one grad_NAME output per --wrt name" {
  echo "$PRODUCT" >p.tg
  run_split bash -o pipefail -c "tg-trace p.tg | tg-grad --wrt x,w --json | jq -c '[.outputs[].name]'"
  [ "$status" -eq 0 ]
  expect_eq "$out" '["loss","grad_x","grad_w"]'
}

@test "tg-grad reads a JSON graph and --wrt repeated" {
  echo "$PRODUCT" >p.tg
  tg-trace --json p.tg -o g.json
  expect_eq "$(tg-grad --wrt x --wrt w --json g.json | jq '.outputs|length')" 3
}

@test "tg-grad rejects an unknown input name" {
  echo "$PRODUCT" >p.tg
  tg-trace p.tg -o g.bin
  run_split tg-grad --wrt z g.bin -o out.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-grad: no input or state named 'z'"
  [ ! -e out.bin ]
}

@test "tg-grad rejects an unknown loss name" {
  echo "$PRODUCT" >p.tg
  tg-trace p.tg -o g.bin
  run_split tg-grad --wrt x --loss nope g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-grad: no output named 'nope'"
}

@test "tg-grad rejects a loss that is not a scalar, with tinygrad's message" {
  printf 'x = input("x", (3, 4))\noutput("y", x * 2)\n' >n.tg
  tg-trace n.tg -o g.bin
  run_split tg-grad --wrt x g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-grad: backward can only be called for scalar tensors, but it has shape (3, 4))"
  [ -z "$out" ]
}

@test "tg-grad gives zeros, and a note, for an input that does not reach the loss" {
  printf 'x = input("x", (3,))\ny = input("y", (2,))\noutput("loss", x.sum())\n' >u.tg
  tg-trace u.tg -o g.bin
  run_split tg-grad --wrt x,y g.bin -o g2.bin
  [ "$status" -eq 0 ]
  expect_eq "$err" "tg-grad: note: input 'y' does not reach the loss: its gradient is zeros"
  make_npy x.npy 'np.ones(3, np.float32)'
  make_npy y.npy 'np.ones(2, np.float32)'
  run_split bash -c "tg-schedule g2.bin | tg-codegen | tg-run --in x=x.npy --in y=y.npy --out-dir o"
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval o/grad_y.npy 'a.tolist()')" "[0.0, 0.0]"
}

@test "tg-grad rejects a non-float input" {
  printf 'n = input("n", (3,), dtype=dtypes.int32)\noutput("loss", (n * 2).sum())\n' >i.tg
  tg-trace i.tg -o g.bin
  run_split tg-grad --wrt n g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-grad: input 'n' is not a float tensor"
}

@test "tg-grad needs --loss when the graph has several outputs" {
  printf 'x = input("x", (3,))\noutput("a", x.sum())\noutput("b", x.max())\n' >two.tg
  tg-trace two.tg -o g.bin
  run_split tg-grad --wrt x g.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-grad: the graph has 2 outputs: name the loss with --loss"
  [ "$(tg-grad --wrt x --loss b --json g.bin | jq '.outputs|length')" -eq 3 ]
}

@test "tg-grad's gradients match the hand-computed ones through the pipeline" {
  echo "$PRODUCT" >p.tg
  make_npy x.npy 'np.array([[1, 2, 3], [-1, 0.5, 4]], np.float32)'
  make_npy w.npy 'np.array([2, -1, 0.25], np.float32)'
  pipeline "tg-trace p.tg | tg-grad --wrt x,w | tg-schedule | tg-codegen | tg-run --in x=x.npy --in w=w.npy --out-dir res"
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/grad_x.npy 'a.tolist()')" "[[4.0, -4.0, 1.5], [-4.0, -1.0, 2.0]]"
  expect_eq "$(npy_eval res/grad_w.npy 'a.tolist()')" "[2.0, 4.25, 25.0]"
  expect_eq "$(npy_eval res/loss.npy 'a.tolist()')" "6.0"
}

@test "tg-grad splits a max's gradient evenly among ties" {
  printf 'x = input("x", (4,))\noutput("loss", x.max())\n' >m.tg
  make_npy x.npy 'np.array([1, 3, 3, 2], np.float32)'
  pipeline "tg-trace m.tg | tg-grad --wrt x | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir res"
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/grad_x.npy 'a.tolist()')" "[0.0, 0.5, 0.5, 0.0]"
}
