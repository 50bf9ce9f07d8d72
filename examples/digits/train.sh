#!/usr/bin/env bash
# Trains a small MLP on scikit-learn's 8x8 digits with nothing but the tg tools, then measures
# its accuracy on the held-out test images:
#
#   bash examples/digits/train.sh [STEPS]        (default 150; tools from build/bin or $TG_BIN;
#                                                 the device from $TG_DEVICE, default CLANG)
#
# 1. prepare.py exports the dataset as .npy (once);
# 2. tg-trace | tg-schedule | tg-codegen turn train.tg (one Adam step) into a program;
# 3. tg-run --steps runs it STEPS times and saves the weights (safetensors);
# 4. eval.tg loads that file and computes the test accuracy through the same pipeline.
set -euo pipefail
cd "$(dirname "$0")/../.."
STEPS="${1:-150}"
BIN="${TG_BIN:-build/bin}"
WORK="${DIGITS_DIR:-build/digits}"
PY="${TG_PYTHON:-.venv/bin/python}"
DEVICE="${TG_DEVICE:-CLANG}"
mkdir -p "$WORK"
[[ -f "$WORK/y_test.npy" ]] || "$PY" examples/digits/prepare.py "$WORK"

start=$(date +%s.%N)
"$BIN/tg-trace" examples/digits/train.tg | "$BIN/tg-schedule" | "$BIN/tg-codegen" --device "$DEVICE" -o "$WORK/train.program"
"$BIN/tg-run" "$WORK/train.program" --in x="$WORK/x_train.npy" --in y="$WORK/y_train.npy" \
  --steps "$STEPS" --save-state "$WORK/weights.safetensors" --out-dir "$WORK/train"
"$BIN/tg-trace" examples/digits/eval.tg --arg weights="$WORK/weights.safetensors" | "$BIN/tg-schedule" |
  "$BIN/tg-codegen" --device "$DEVICE" | "$BIN/tg-run" --in x="$WORK/x_test.npy" --in y="$WORK/y_test.npy" --out-dir "$WORK/eval"
end=$(date +%s.%N)
"$PY" - "$WORK" "$STEPS" "$start" "$end" <<'PY'
import sys, numpy as np
work, steps, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
acc = float(np.load(f"{work}/eval/test_acc.npy"))
print(f"digits: {steps} steps, train loss {float(np.load(f'{work}/train/loss.npy')):.4f}, "
      f"test accuracy {acc * 100:.1f}% ({t1 - t0:.1f} s in all)")
PY
