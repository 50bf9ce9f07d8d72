#!/usr/bin/env python3
"""Checks that lib/'s imports point one way: a file in lib/<layer>/ may include headers of its
own layer and of the layers before it in LAYERS, never of a later one (docs/architecture.md,
"Layers"). Prints each include that points up and exits 1 if there is one.
  python scripts/check_layers.py [--root DIR]
"""
import argparse, pathlib, re, sys

# Lowest first. io (artifacts, host buffers, files) sits above codegen because artifacts hold
# schedules and programs; nn's state files and launch's inputs use it.
LAYERS = ["util", "dtype", "shape", "ops", "lazy", "random", "tensor", "grad", "schedule", "codegen", "render",
          "runtime", "device", "dist", "io", "nn", "launch", "onnx", "script"]


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parents[1]))
  lib = pathlib.Path(ap.parse_args().root) / "lib"
  rank = {name: i for i, name in enumerate(LAYERS)}
  bad, files = [], 0
  for f in sorted(lib.rglob("*")):
    if f.suffix not in (".h", ".cpp"): continue
    files += 1
    layer = f.relative_to(lib).parts[0]
    if layer not in rank:
      bad.append(f"{f.relative_to(lib.parent)}: layer '{layer}' is not in scripts/check_layers.py's LAYERS")
      continue
    for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
      m = re.match(r'\s*#\s*include\s+"([a-z_0-9]+)/', line)
      if m and m.group(1) in rank and rank[m.group(1)] > rank[layer]:
        bad.append(f"{f.relative_to(lib.parent)}:{n}: {layer} includes {m.group(1)}/, a layer above it")
  for b in bad: print(b)
  print(f"check_layers: {files} files, {len(bad)} problems")
  sys.exit(1 if bad else 0)


if __name__ == "__main__":
  main()
