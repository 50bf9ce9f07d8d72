# Shared set-up for the CLI tests: the tools come from build/bin, every test gets a scratch
# directory (cwd) and its own compile cache.
ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
TG_BIN="${TG_BIN:-$ROOT/build/bin}"
export PATH="$TG_BIN:$PATH"
PYTHON="${TG_PYTHON:-.venv/bin/python}"
[[ $PYTHON == /* ]] || PYTHON="$ROOT/$PYTHON" # make passes it relative to the top

# Host kernels run with their buffers against guard pages: an out-of-bounds access fails the
# test with a report (docs/testing.md, TG_CHECK_BOUNDS).
export TG_CHECK_BOUNDS="${TG_CHECK_BOUNDS:-1}"

# Each tool call gets a time limit (TG_CMD_TIMEOUT seconds, default 60), so that a hung
# tool fails its test instead of hanging the suite: the tools are functions that run the
# binaries under timeout(1), exported so that `bash -c` pipelines use them too.
export TG_CMD_TIMEOUT="${TG_CMD_TIMEOUT:-60}"
for tool in tg-trace tg-grad tg-schedule tg-codegen tg-run; do
  eval "$tool() { timeout -k 5 \"\$TG_CMD_TIMEOUT\" \"$TG_BIN/$tool\" \"\$@\"; }"
  export -f "$tool"
done

setup() {
  cd "$BATS_TEST_TMPDIR" || return 1
  export TG_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
  unset XDG_CACHE_HOME
}

# status/output of a command with stdout and stderr kept apart: $status, $out, $err.
run_split() {
  "$@" >"$BATS_TEST_TMPDIR/.out" 2>"$BATS_TEST_TMPDIR/.err" && status=0 || status=$?
  out="$(cat "$BATS_TEST_TMPDIR/.out")"
  err="$(cat "$BATS_TEST_TMPDIR/.err")"
}

# A shell pipeline, with pipefail, via run_split.
pipeline() { run_split bash -o pipefail -c "$1"; }

# The expected text, printed when it differs.
expect_eq() { # actual expected
  if [[ "$1" != "$2" ]]; then
    printf 'expected: %s\n     got: %s\n' "$2" "$1" >&2
    return 1
  fi
}

expect_contains() { # haystack needle
  if [[ "$1" != *"$2"* ]]; then
    printf 'expected to contain: %s\n                got: %s\n' "$2" "$1" >&2
    return 1
  fi
}

# One line, starting with the tool's name.
expect_one_line_error() { # tool text
  expect_eq "$(printf '%s\n' "$2" | wc -l)" 1
  expect_contains "$2" "$1: "
  [[ "$2" == "$1: "* ]]
}

need_python() {
  [[ -x $PYTHON ]] && "$PYTHON" -c 'import numpy' 2>/dev/null || skip "needs $PYTHON with numpy (scripts/setup.sh)"
}

# make_npy FILE 'numpy expression', e.g. make_npy x.npy 'np.ones((4, 8), np.float32)'
make_npy() {
  need_python
  "$PYTHON" -c "import numpy as np; np.save('$1', $2)"
}

# npy_eval FILE 'expression over a' prints the expression's value for the array a.
npy_eval() {
  "$PYTHON" -c "import numpy as np; a = np.load('$1'); print($2)"
}

# Short programs used by several files.
MATMUL=$'a = input("a", (4, 8))\nb = input("b", (8, 3))\noutput("c", a @ b)'
SOFTMAX=$'x = input("x", (4, 8))\noutput("p", x.softmax())'
CHAIN=$'x = input("x", (4, 8))\noutput("y", ((x + 1) * 2 - x / 4).relu())'
