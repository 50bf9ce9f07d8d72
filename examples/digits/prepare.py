"""Exports scikit-learn's 8x8 digits as .npy files for the training example.

    .venv/bin/python examples/digits/prepare.py DIR

writes DIR/x_train.npy (1437, 64) float32 in [0, 1], DIR/y_train.npy (1437,) int32 and the
same for the 360 test images: a fixed, stratified 80/20 split (random_state=0).
"""
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/digits")
out.mkdir(parents=True, exist_ok=True)
digits = load_digits()
x = (digits.data / 16.0).astype(np.float32)
y = digits.target.astype(np.int32)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0, stratify=y)
for name, a in [("x_train", x_train), ("y_train", y_train), ("x_test", x_test), ("y_test", y_test)]:
    np.save(out / f"{name}.npy", np.ascontiguousarray(a))
print(f"digits: {len(x_train)} training and {len(x_test)} test images in {out}")
