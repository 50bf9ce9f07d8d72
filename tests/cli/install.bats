#!/usr/bin/env bats
# `make install`: what it puts under DESTDIR/PREFIX, and that the installed copy works on its
# own: tools that find their libraries (and the LLVM plugin) beside themselves, man pages
# that `man` finds, bash completions made from each tool's --help.
load helpers

TOOLS=(tg-trace tg-grad tg-schedule tg-codegen tg-run)

# One install for the whole file, of the build that TG_BIN belongs to. `-o build`: install
# what is built, without rebuilding (that is `make build`'s job, before the tests).
setup_file() {
  local build log="$BATS_FILE_TMPDIR/install.log"
  build="$(cd "$TG_BIN/.." && pwd)"
  export STAGE="$BATS_FILE_TMPDIR/stage"
  export P="$STAGE/usr/local" # PREFIX's default
  # GNUInstallDirs' choice for this machine: lib, or lib64 on some distributions
  LIBDIR=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  export LIBDIR="${LIBDIR:-lib}"
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX \
    make -s --no-print-directory -C "$ROOT" -o build install BUILD="$build" DESTDIR="$STAGE" \
    >"$log" 2>&1 || { cat "$log" >&2; return 1; }
}

# The words a completion offers for a command line whose last word is being completed, one per
# line: complete_words TOOL WORD... (an empty last word completes a new one). The completion
# file is TOOL in $COMPLETIONS, the installed ones unless a test says otherwise.
complete_words() {
  local tool=$1
  shift
  bash -c 'source "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) &&
           "_${COMP_WORDS[0]//-/_}" && printf "%s\n" "${COMPREPLY[@]}"' \
    - "${COMPLETIONS:-$P/share/bash-completion/completions}/$tool" "$tool" "$@"
}

@test "make install puts the tools, their libraries, man pages and completions under DESTDIR/PREFIX" {
  expected=""
  for t in "${TOOLS[@]}"; do
    expected+="bin/$t"$'\n'"share/bash-completion/completions/$t"$'\n'"share/man/man1/$t.1"$'\n'
  done
  expected+="$LIBDIR/tg/libtg-llvm.so"$'\n'"$LIBDIR/tg/libtg-onnx.so"$'\n'"$LIBDIR/tg/libtgcore.so"$'\n'
  # the MPI transport (tg-run --dist mpi) is built where Open MPI is found, as setup.sh installs it
  if [ -e "$TG_BIN/../lib/libtg-mpi.so" ]; then
    expected+="$LIBDIR/tg/libtg-mpi.so"$'\n'
  fi
  expect_eq "$(cd "$P" && find . -type f | sed 's|^\./||' | sort)" "$(sort <<<"${expected%$'\n'}")"
  for t in "${TOOLS[@]}"; do [ -x "$P/bin/$t" ]; done
  cmp "$P/share/man/man1/tg-run.1" "$ROOT/man/tg-run.1"
}

@test "installed tools load their library from PREFIX/lib/tg, not from the build tree" {
  expect_eq "$(readelf -d "$P/bin/tg-run" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')" "\$ORIGIN/../$LIBDIR/tg"
  run_split ldd "$P/bin/tg-run"
  expect_contains "$out" "libtgcore.so => $P/bin/../$LIBDIR/tg/libtgcore.so"
  # (protobuf, for the ONNX importer, is tg-trace's alone: it costs every process start ~2 ms)
  [[ "$out" != *libprotobuf* ]]
  run_split ldd "$P/bin/tg-trace"
  expect_contains "$out" "libtg-onnx.so => $P/bin/../$LIBDIR/tg/libtg-onnx.so"
  run_split "$P/bin/tg-run" --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-run $(sed -n 's/^project(tg VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")"
}

installed_pipeline() { # device: a constant-only program (no numpy needed), run from $PWD
  local script='output("y", (Tensor.arange(6).reshape(2, 3).float() * 2 + 1).sum(axis=1))'
  [[ $PWD != "$ROOT"* ]]
  pipeline "'$P/bin/tg-trace' -e '$script' | '$P/bin/tg-schedule' | '$P/bin/tg-codegen' --device $1 \
            | '$P/bin/tg-run'"
  [ "$status" -eq 0 ] || { echo "$err" >&2; false; }
  expect_eq "$out" $'y: shape=(2,) dtype=float32\n[ 9. 27.]'
}

@test "the installed tools run a pipeline on CLANG from outside the repository" {
  installed_pipeline CLANG
}

@test "the installed tools run a pipeline on LLVM from outside the repository" {
  installed_pipeline LLVM
}

@test "installed tg-codegen --device LLVM loads the LLVM plugin installed beside libtgcore.so" {
  "$P/bin/tg-trace" -e 'output("y", Tensor.ones(4) + 1)' -o g.bin
  "$P/bin/tg-schedule" g.bin -o s.bin
  LD_DEBUG=files "$P/bin/tg-codegen" --device LLVM s.bin -o p.bin 2>ld.log
  grep -q "file=$P/bin/../$LIBDIR/tg/libtg-llvm.so .*dynamically loaded" ld.log
  run_split grep -c "$ROOT" ld.log # nothing from the repository's build
  expect_eq "$out" 0
}

@test "man finds the installed pages through MANPATH and renders each one" {
  command -v man >/dev/null || skip "needs man"
  expect_eq "$(MANPATH="$P/share/man" man -w tg-run)" "$P/share/man/man1/tg-run.1"
  for t in "${TOOLS[@]}"; do
    run_split env MANPAGER=cat MANWIDTH=80 man -l "$P/share/man/man1/$t.1"
    [ "$status" -eq 0 ]
    grep -qE "^ +$t +- " <<<"$out" # the NAME line
  done
}

@test "installed completions register a function for each tool in bash" {
  for t in "${TOOLS[@]}"; do
    expect_eq "$(bash -c 'source "$1" && complete -p "$2"' - "$P/share/bash-completion/completions/$t" "$t")" \
      "complete -F _${t//-/_} $t"
  done
}

@test "installed completions offer every long flag that the tool's --help lists" {
  for t in "${TOOLS[@]}"; do
    offered=$(complete_words "$t" --)
    for flag in $("$P/bin/$t" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
      grep -qx -- "$flag" <<<"$offered" || { echo "$t: $flag not offered" >&2; false; }
    done
  done
}

@test "tg-codegen --dev completes to --device" {
  expect_eq "$(complete_words tg-codegen --dev)" "--device"
}

@test "tg-codegen --device completes to the device names, also after --device=" {
  expect_eq "$(complete_words tg-codegen --device '' | tr '\n' ' ')" "CLANG LLVM GPU CUDA "
  expect_eq "$(complete_words tg-codegen -d C | tr '\n' ' ')" "CLANG CUDA "
  expect_eq "$(complete_words tg-codegen --device = L)" "LLVM" # bash splits --device=L at '='
}

@test "completion offers files for positionals and file options, nothing for numbers" {
  touch prog.bin prog.json
  expect_eq "$(complete_words tg-run pro | sort | tr '\n' ' ')" "prog.bin prog.json "
  expect_eq "$(complete_words tg-run --save-state prog.b)" "prog.bin"
  expect_eq "$(complete_words tg-run --in x = prog.j)" "prog.json" # NAME=FILE
  expect_eq "$(complete_words tg-run --steps '')" ""
}

@test "gen-completion.py takes new flags, CLI11 sets and listed choices from a tool's help" {
  # a stand-in tool whose help has the forms the tools may grow into
  cat >tg-new <<'EOF'
#!/bin/sh
cat <<'HELP'
A new tool.
Usage: tg-new [OPTIONS] [input]

Positionals:
  input TEXT                  artifact (default: stdin)

Options:
  -h,--help                   Print this help message and exit
  --print-after TEXT:{ast,opts,uops} ...
                              print a stage
  --emit TEXT=program         what to write: program, c
  --repeat INT:POSITIVE       launch N times
  --out-dir TEXT              write into DIR
HELP
EOF
  chmod +x tg-new
  mkdir adir && touch afile
  python3 "$ROOT/scripts/gen-completion.py" ./tg-new comp/tg-new
  COMPLETIONS=$PWD/comp
  expect_eq "$(complete_words tg-new --print-after '' | tr '\n' ' ')" "ast opts uops "
  expect_eq "$(complete_words tg-new --emit '' | tr '\n' ' ')" "program c "
  expect_eq "$(complete_words tg-new --repeat '')" ""
  expect_eq "$(complete_words tg-new --out-dir a)" "adir"
  expect_eq "$(complete_words tg-new --p)" "--print-after"
}
