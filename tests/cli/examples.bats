#!/usr/bin/env bats
# The examples: the digits training example end to end (short), and that stopping and going
# on through a state file is the same as one longer run.
load helpers

need_sklearn() {
  need_python
  "$PYTHON" -c 'import sklearn' 2>/dev/null || skip "needs scikit-learn in $PYTHON (scripts/setup.sh)"
}

@test "examples/digits/train.sh reaches 95% test accuracy in 40 steps" {
  need_sklearn
  run_split env TG_BIN="$TG_BIN" DIGITS_DIR="$BATS_TEST_TMPDIR/d" TG_PYTHON="$PYTHON" bash "$ROOT/examples/digits/train.sh" 40
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-run: step 40/40 loss"
  acc="$(npy_eval "$BATS_TEST_TMPDIR/d/eval/test_acc.npy" 'float(a)')"
  "$PYTHON" -c "import sys; sys.exit(0 if $acc >= 0.95 else 1)" || { echo "test accuracy $acc < 0.95" >&2; return 1; }
}

@test "20 + 20 steps through --save-state/--load-state give the same weights as 40 steps" {
  need_sklearn
  "$PYTHON" "$ROOT/examples/digits/prepare.py" d >/dev/null
  tg-trace "$ROOT/examples/digits/train.tg" | tg-schedule | tg-codegen -o train.bin
  ins=(--in x=d/x_train.npy --in y=d/y_train.npy)
  tg-run train.bin "${ins[@]}" --steps 40 --save-state once.safetensors --out-dir once 2>/dev/null
  tg-run train.bin "${ins[@]}" --steps 20 --save-state twice.safetensors --out-dir first 2>/dev/null
  tg-run train.bin "${ins[@]}" --steps 20 --load-state twice.safetensors --save-state twice.safetensors --out-dir twice 2>/dev/null
  expect_eq "$(cmp once.safetensors twice.safetensors && echo same)" "same"
  expect_eq "$(cmp once/loss.npy twice/loss.npy && echo same)" "same"
  # every state has a name: the weights as nn.state.load_state_dict reads them, Adam's as
  # tinygrad's get_state_dict(opt) names them
  expect_eq "$("$PYTHON" -c 'from safetensors.numpy import load_file; print(sorted(load_file("once.safetensors")))')" \
    "['b1_t', 'b2_t', 'l1.bias', 'l1.weight', 'l2.bias', 'l2.weight', 'm.0', 'm.1', 'm.2', 'm.3', 'v.0', 'v.1', 'v.2', 'v.3']"
}

@test "the ResNet example (tinygrad's extra/models/resnet.py as a class) traces and schedules" {
  for depth in 18 50; do
    pipeline "tg-trace '$ROOT/examples/resnet/resnet.tg' --arg depth=$depth --arg batch=1 | tg-schedule --json"
    [ "$status" -eq 0 ]
    expect_eq "$(jq -c '.outputs[0].shape' <<<"$out")" "[1,1000]"
  done
}

@test "the two-device examples (data-parallel MNIST, a LLaMA block sharded) match tinygrad step for step" {
  # tinygrad 0.9.1 runs the same scripts with their shards (the differential runner's oracle)
  run_split "$PYTHON" "$ROOT/tests/diff/run.py" --snippets "$ROOT/examples/training" --bin "$TG_BIN" \
    -k 'mnist_cnn_multigpu' -k 'llama_block_sharded' --device CLANG --work "$BATS_TEST_TMPDIR/w"
  [ "$status" -eq 0 ]
  expect_contains "$out" "diff: 2 passed, 0 failed"
}

@test "examples/gpt2/decode.sh: a decode loop in the shell generates tinygrad's tokens" {
  need_python
  "$PYTHON" -c 'import tinygrad' 2>/dev/null || skip "needs tinygrad in $PYTHON (scripts/setup.sh)"
  # a 3-token prompt fed one token per call, then 8 greedy tokens: 10 tg-run calls, each at its
  # own --var start_pos with the KV caches carried through the state file
  run_split env TG_BIN="$TG_BIN" GPT2_DIR="$BATS_TEST_TMPDIR/g" \
    bash "$ROOT/examples/gpt2/decode.sh" 8 5 17 99
  [ "$status" -eq 0 ]
  expect_contains "$err" "gpt2: 10 steps in"
  tg_tokens="$out"
  [ "$(wc -w <<<"$tg_tokens")" -eq 8 ]
  run_split env CLANG=1 "$PYTHON" "$ROOT/examples/gpt2/reference.py" --logits ref.npy 8 5 17 99
  [ "$status" -eq 0 ]
  expect_eq "$tg_tokens" "$out"
  expect_eq "$(npy_eval g/step9/logits.npy "float(np.abs(a - np.load('ref.npy')).max()) < 1e-4")" True
}
