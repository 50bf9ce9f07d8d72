#!/usr/bin/env bats
# The house's rules that a machine can check: lib/'s imports point one way
# (docs/architecture.md, "Layers"; scripts/check_layers.py).
load helpers

@test "lib/'s imports point one way, down the layers" {
  run_split "$PYTHON" "$ROOT/scripts/check_layers.py"
  echo "$out"
  [ "$status" -eq 0 ]
  [[ "$out" == *"0 problems"* ]]
}

@test "the layer check names an include that points up, and a layer it does not know" {
  mkdir -p fake/lib/dtype fake/lib/codegen fake/lib/attic
  printf '#include "codegen/kernel.h"\n' >fake/lib/dtype/dtype.h
  printf '#include "dtype/dtype.h"\n' >fake/lib/codegen/kernel.h
  printf '\n' >fake/lib/attic/old.cpp
  run_split "$PYTHON" "$ROOT/scripts/check_layers.py" --root fake
  [ "$status" -eq 1 ]
  [[ "$out" == *"lib/dtype/dtype.h:1: dtype includes codegen/, a layer above it"* ]]
  [[ "$out" == *"lib/attic/old.cpp: layer 'attic' is not in scripts/check_layers.py's LAYERS"* ]]
  [[ "$out" == *"2 problems"* ]]
}
