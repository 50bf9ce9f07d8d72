#!/usr/bin/env bats
# Regressions of the structure-aware fuzzer (issue 29, scripts/fuzz_struct.py): artifacts edited
# the way a person with jq would, each replayed through the tools that come after it. A tool may
# accept an input and work, or refuse it the way every tool refuses: exit 1 or 2, one line
# `tg-TOOL: ...`, no output file. A signal, a hang, "internal error", a message of several lines,
# or a compiler error in source that tg-codegen wrote (an accepted schedule must compile) is a
# defect. tests/fuzz/struct/repro/ holds the first reproducers (numbered as in
# tests/fuzz/struct/README.md), found/ what the fuzzer found since, a directory each.
load helpers

S="$ROOT/tests/fuzz/struct"
B="$S/base"

# As the fuzzer runs them: without guard pages, which would turn a wild write into a
# clean-looking bounds report, and with a shorter limit (a hang is one of the defects).
eval "$(declare -f setup | sed '1s/^setup/helpers_setup/')"
setup() {
  helpers_setup
  unset TG_CHECK_BOUNDS
  export TG_CMD_TIMEOUT=30
}

# The last run_split was a success, or a clean refusal by TOOL that left no OUTPUT file.
# (Explicit returns: a caller's `||` turns off set -e inside.)
clean() { # tool [output-file]
  if ((status >= 124)); then # timeout(1)'s 124, or 128 + a signal
    local why="exit $status"
    ((status == 124)) && why="no exit in ${TG_CMD_TIMEOUT}s"
    ((status > 128)) && why="killed by signal $((status - 128))"
    echo "$1: $why: $err" >&2
    return 1
  fi
  case "$err" in *"internal error"* | *Sanitizer* | *"libprotobuf FATAL"* | *Assertion*)
    printf '%s: %s\n' "$1" "$err" >&2
    return 1 ;;
  esac
  ((status == 0)) && return 0
  if ((status != 1 && status != 2)); then
    echo "$1: exit $status: $err" >&2
    return 1
  fi
  if [[ $err == *$'\n'* || $err != "$1: "* ]]; then
    printf '%s: not one line "%s: ...":\n%s\n' "$1" "$1" "$err" >&2
    return 1
  fi
  if [[ -n ${2:-} && -e $2 ]]; then
    echo "$1: failed, yet left $2" >&2
    return 1
  fi
}

# Runs each COMMAND in turn, as the fuzzer runs a pipeline (a stage reads the file the one
# before wrote with -o), and checks it with clean(). The first refusal ends the replay: the
# stages after it have no input. A bounds report is a clean refusal (tg-run checks programs it
# did not compile that way), except from a `TG_CHECK_BOUNDS=1 tg-run ...` that repeats a run
# which passed without it: then the default run read or wrote out of bounds unnoticed.
# Sets $ran (commands run) and $status (the last one's).
replay() { # command...
  local cmd words tool file i # not $out: run_split sets that
  ran=0
  for cmd in "$@"; do
    read -ra words <<<"$cmd"
    tool="" file=""
    for ((i = 0; i < ${#words[@]}; i++)); do
      [[ -z $tool && ${words[i]} == tg-* ]] && tool=${words[i]}
      [[ ${words[i]} == -o ]] && file=${words[i + 1]}
    done
    run_split bash -c "$cmd"
    ran=$((ran + 1))
    clean "$tool" "$file" || { echo "  in: $cmd" >&2; return 1; }
    if [[ $cmd == TG_CHECK_BOUNDS=1\ * && $err == *"(TG_CHECK_BOUNDS)"* ]]; then
      echo "passed without guard pages, out of bounds with them: $err" >&2
      return 1
    fi
    ((status == 0)) || return 0
  done
}

# What tg-codegen accepted compiles: the replay got past it and the compile succeeded.
compiled_if_accepted() { # index of the tg-codegen command (1-based)
  ((ran <= $1 || status == 0)) || { echo "tg-codegen accepted it, then it did not compile: $err" >&2; return 1; }
}

# The rest of the pipeline after a graph in s.bin.
AFTER_SCHEDULE=("tg-codegen s.bin -o p.bin" "tg-run --compile-only p.bin")

@test "fuzz repro 1: an LLVM program with a buffer dropped from a kernel's bufs" {
  replay "tg-run $S/repro/llvm_dropbuf.json --in a=$B/matmul_a.npy --in b=$B/matmul_b.npy -o out1.npz"
}

@test "fuzz repro 2: an LLVM program whose kernel lost its symbolic vars" {
  replay "tg-run $S/repro/llvm_sym_novars.json --in a=$B/symmat_a.npy --in b=$B/symmat_b.npy -o out2.npz"
}

@test "fuzz repro 3: a GPU program with edited launch sizes (500000 and 50)" {
  for n in 500000 50; do
    replay "tg-run $S/repro/gpu_global_size_$n.json --in x=$B/softmax_x.npy -o out3_$n.npz"
  done
}

@test "fuzz repro 4: a graph whose CONST lost its arg" {
  replay "tg-schedule $S/repro/graph_const_noarg.json -o s.bin" "${AFTER_SCHEDULE[@]}"
  compiled_if_accepted 2
}

@test "fuzz repro 5: a graph with a CONTIGUOUS without sources" {
  replay "tg-schedule $S/repro/graph_contig_nosrc_min.json -o s.bin" "${AFTER_SCHEDULE[@]}"
  compiled_if_accepted 2
}

@test "fuzz repro 6: a graph whose CAST lost its arg, through tg-codegen" {
  replay "tg-schedule $S/repro/graph_cast_noarg.json -o s.bin" "${AFTER_SCHEDULE[@]}"
  compiled_if_accepted 2
}

@test "fuzz repro 7: a schedule with a CUSTOM kernel without views" {
  replay "tg-codegen $S/repro/sched_custom_noviews.json -o p.bin" "tg-run --compile-only p.bin"
  compiled_if_accepted 1
}

@test "fuzz repro 8: a schedule whose STORE has stride 0 renders C that compiles, or is refused" {
  replay "tg-codegen $S/repro/sched_store_stride0.json -o p.bin" "tg-run --compile-only p.bin"
  compiled_if_accepted 1
}

@test "fuzz repro 9: a schedule with a kernel buffer no op uses renders C that compiles, or is refused" {
  replay "tg-codegen $S/repro/sched_unused_buf.json -o p.bin" "tg-run --compile-only p.bin" \
    "tg-run p.bin --in x=$B/softmax_x.npy -o out9.npz"
  compiled_if_accepted 1
}

@test "fuzz repro 10: an ONNX node without outputs" {
  replay "tg-trace $S/repro/onnx_node_no_outputs.onnx -o g.bin" "tg-schedule g.bin -o s.bin" "${AFTER_SCHEDULE[@]}"
  compiled_if_accepted 3
}

# 11 and 12: a damaged object in the compile cache is compiled again, with one warning line,
# and the outputs are those of the first run.
damaged_cache() { # device dir-in-cache file-glob damage-command
  printf '%s\n' 'x = Tensor.arange(40).reshape(4, 10).cast(dtypes.float32) / 7' \
    'output("p", x.softmax())' 'output("s", (x @ x.T).sum(1))' >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen --device "$1" -o p.bin
  run_split tg-run p.bin
  [ "$status" -eq 0 ]
  local good="$out" f n=0
  for f in "$TG_CACHE_DIR/$2"/$3; do
    [ -f "$f" ] || continue
    bash -c "$4" _ "$f"
    n=$((n + 1))
  done
  [ "$n" -ge 1 ]
  run_split tg-run p.bin
  [ "$status" -eq 0 ]
  expect_eq "$out" "$good"
  expect_eq "$(printf '%s\n' "$err" | wc -l)" 1
  [[ $err == "tg-run: "* && $err != *"internal error"* ]]
  run_split tg-run p.bin # repaired: quiet again
  [ "$status" -eq 0 ]
  expect_eq "$out" "$good"
  expect_eq "$err" ""
}
TRUNCATE='truncate -s 4096 "$1"'
ZERO_AT_0x40='printf "\0\0\0\0" | dd of="$1" bs=1 seek=64 conv=notrunc status=none'

@test "fuzz repro 11: a cached CLANG .so cut to 4096 bytes" {
  damaged_cache CLANG clang '*.so' "$TRUNCATE"
}

@test "fuzz repro 11: a cached LLVM .so cut to 4096 bytes" {
  damaged_cache LLVM llvm '*.so' "$TRUNCATE"
}

@test "fuzz repro 11: a cached OpenCL binary cut to 4096 bytes" {
  damaged_cache GPU opencl '*.bin' "$TRUNCATE"
}

@test "fuzz repro 12: a cached CLANG .so with 4 bytes zeroed at 0x40" {
  damaged_cache CLANG clang '*.so' "$ZERO_AT_0x40"
}

@test "fuzz repro 12: a cached LLVM .so with 4 bytes zeroed at 0x40" {
  damaged_cache LLVM llvm '*.so' "$ZERO_AT_0x40"
}

@test "fuzz repro 13: a script comparing a list that holds itself" {
  replay "tg-trace $S/repro/script_selfref_eq.tg -o g.bin"
}

@test "fuzz repro 14: a program whose extents understate what its kernels touch, without guard pages" {
  for bounds in "TG_CHECK_BOUNDS=0 " ""; do # off, and unset
    rm -f out14.npz
    replay "${bounds}tg-run $S/repro/prog_extents_lie.json --in x=$B/softmax_x.npy -o out14.npz"
    if [ "$status" -eq 0 ]; then # ran: then with the right numbers (y is x's softmax)
      need_python
      "$PYTHON" -c 'import numpy as np, sys
x = np.load(sys.argv[1]); e = np.exp(x - x.max(1, keepdims=True))
sys.exit(not np.allclose(np.load("out14.npz")["y"], e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6))' "$B/softmax_x.npy"
    fi
  done
}

# What the fuzzer found since: found/NAME/ is a copy of its findings directory (the edited input,
# its .npy files, commands.txt with one command a line, README.txt saying what was edited).
@test "fuzz findings in tests/fuzz/struct/found/ replay cleanly" {
  local d failed=() cmds
  for d in "$S"/found/*/; do
    [ -f "$d/commands.txt" ] || continue
    rm -rf run && mkdir run && cp "$d"/* run/
    mapfile -t cmds < <(grep -v '^#' "$d/commands.txt" | sed '/^$/d')
    if ! (cd run && replay "${cmds[@]}"); then
      failed+=("$(basename "$d")")
    fi
  done
  [ ${#failed[@]} -eq 0 ] || { echo "failing: ${failed[*]}" >&2; return 1; }
}
