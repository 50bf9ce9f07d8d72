#!/usr/bin/env bash
# A GPT-2-style decode loop in the shell: decode.tg (one step: a token in, the next one out) is
# compiled once, then each tg-run call is one position, --var start_pos=P, with the weights and
# the per-layer KV caches carried from call to call through a state file:
#
#   bash examples/gpt2/decode.sh [N] [TOKEN...]     (N new tokens, default 8, after the prompt,
#                                                   default 5 17 99; ids 0..127, 32 in all;
#                                                   tools from build/bin or $TG_BIN, the
#                                                   device from $TG_DEVICE, default CLANG)
#
# It prints the N generated ids; $GPT2_DIR/step<P>/ holds each step's next.npy and logits.npy.
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-8}"
shift || true
PROMPT=("$@")
[[ ${#PROMPT[@]} -gt 0 ]] || PROMPT=(5 17 99)
BIN="${TG_BIN:-build/bin}"
WORK="${GPT2_DIR:-build/gpt2}"
DEVICE="${TG_DEVICE:-CLANG}"
mkdir -p "$WORK"
rm -f "$WORK/state.safetensors"

# A (1, 1) int32 .npy of one id. Its 128-byte header is fixed text, so printf writes it: no
# Python start per token, and the loop needs nothing but the tools. The id is little-endian.
tok_npy() { # FILE ID
  local header="{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }"
  printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "$header" >"$1"
  printf '%b' "$(printf '\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24 & 255)))" >>"$1"
}
# The id in a one-element int32 .npy that tg-run wrote: its last four bytes, little-endian.
npy_id() { od -An -t d4 -j $(($(wc -c <"$1") - 4)) "$1" | tr -d ' '; }

start=$(date +%s.%N)
"$BIN/tg-trace" examples/gpt2/decode.tg | "$BIN/tg-schedule" | "$BIN/tg-codegen" --device "$DEVICE" -o "$WORK/decode.program"
tok="${PROMPT[0]}"
generated=()
for ((p = 0; p < ${#PROMPT[@]} + N - 1; p++)); do
  tok_npy "$WORK/tok.npy" "$tok"
  load=()
  [[ $p -eq 0 ]] || load=(--load-state "$WORK/state.safetensors") # the first call draws the weights
  "$BIN/tg-run" "$WORK/decode.program" --var start_pos=$p --in tok="$WORK/tok.npy" "${load[@]}" \
    --save-state "$WORK/state.safetensors" --out-dir "$WORK/step$p"
  next="$(npy_id "$WORK/step$p/next.npy")"
  if ((p + 1 < ${#PROMPT[@]})); then
    tok="${PROMPT[p + 1]}" # still reading the prompt: its next token, not the model's
  else
    tok="$next"
    generated+=("$next")
  fi
done
end=$(date +%s.%N)
echo "${generated[*]}"
awk -v n="$p" -v t0="$start" -v t1="$end" 'BEGIN { printf "gpt2: %d steps in %.2f s\n", n, t1 - t0 }' >&2
