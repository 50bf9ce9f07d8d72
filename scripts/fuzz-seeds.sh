#!/usr/bin/env bash
# Regenerates the fuzzers' seed corpus, tests/fuzz/corpus/<target>/, from real artifacts: a few
# scripts traced, scheduled and compiled (binary and JSON), .npy files numpy writes and
# safetensors files the safetensors package writes. Run it after an artifact version bump
# (make fuzz-seeds); the seeds are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${TG_BIN:-build/bin}"
PY="${TG_PYTHON:-.venv/bin/python}"
OUT=tests/fuzz/corpus
rm -rf "$OUT"
mkdir -p "$OUT"/{graph,schedule,program,npy,safetensors,script}

# Scripts: the demo, one of each kind of snippet, and the training step (states, assigns).
scripts=(examples/demo.tg examples/digits/train.tg)
for kind in api assign cast elem grad lang move nn optim reduce setitem state; do
  scripts+=("$(ls tests/diff/snippets/${kind}_*.tg | head -1)")
done
scripts+=(tests/diff/snippets/reduce_*.tg tests/diff/snippets/rand_basic.tg tests/diff/snippets/tggrad_pool_pad_flip_views.tg)
for s in "${scripts[@]}"; do
  name="$(basename "$s" .tg)"
  cp "$s" "$OUT/script/$name.tg"
  # the training script needs its data; snippets that fail to trace are seeds for the script only
  "$BIN/tg-trace" "$s" -o "$OUT/graph/$name.bin" 2>/dev/null || { rm -f "$OUT/graph/$name.bin"; continue; }
  "$BIN/tg-trace" "$s" --json -o "$OUT/graph/$name.json"
  "$BIN/tg-schedule" "$OUT/graph/$name.bin" -o "$OUT/schedule/$name.bin"
  "$BIN/tg-schedule" "$OUT/graph/$name.bin" --json -o "$OUT/schedule/$name.json"
  for dev in CLANG GPU; do
    "$BIN/tg-codegen" --device "$dev" "$OUT/schedule/$name.bin" -o "$OUT/program/$name-$dev.bin"
    "$BIN/tg-codegen" --device "$dev" "$OUT/schedule/$name.bin" --json -o "$OUT/program/$name-$dev.json"
  done
done

"$PY" - "$OUT" <<'PY'
import sys, numpy as np
from safetensors.numpy import save_file
out = sys.argv[1]
arrays = {
    "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
    "f16": np.array([1.5, -2, np.inf], np.float16),
    "i64": np.array([[-1], [2**40]], np.int64),
    "u8": np.arange(5, dtype=np.uint8),
    "bool": np.array([True, False]),
    "scalar": np.float64(3.25),
    "empty": np.zeros((0, 3), np.int32),
    "fortran": np.asfortranarray(np.arange(12, dtype=np.int16).reshape(3, 4)),
    "bigendian": np.arange(3, dtype=">i4"),
}
for name, a in arrays.items():
    np.save(f"{out}/npy/{name}.npy", a)
with open(f"{out}/npy/v2.npy", "wb") as f:
    np.lib.format.write_array(f, arrays["f32"], version=(2, 0))
save_file({k: np.ascontiguousarray(v) for k, v in arrays.items() if k not in ("fortran", "bigendian")},
          f"{out}/safetensors/mixed.safetensors", metadata={"format": "np"})
save_file({"w": np.ones((4, 4), np.float32)}, f"{out}/safetensors/one.safetensors")
PY
# Large seeds slow every execution down more than they add coverage.
find "$OUT" -type f -size +48k -delete
du -sh "$OUT"/*
