#!/usr/bin/env bats
# tg-run: program artifact -> tensors (man/tg-run.1).
load helpers

program() { # script text -> p.bin
  printf '%s\n' "$1" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen -o p.bin
}

values() { # text -> the numbers in it, one per line, brackets and commas dropped
  tr -d '[],' <<<"$1" | tr -s ' \n' '\n\n' | sed '/^$/d'
}

cache_files() { find "$1" -type f 2>/dev/null | sort; }

@test "tg-run --version prints the name and version" {
  run_split tg-run --version
  [ "$status" -eq 0 ]
  expect_eq "$out" "tg-run 0.1.0"
}

@test "tg-run --help lists the flags" {
  run_split tg-run --help
  [ "$status" -eq 0 ]
  for flag in --in --out-dir --help --version; do expect_contains "$out" "$flag"; done
}

@test "tg-run rejects an unknown flag with exit 2" {
  run_split tg-run --no-such-flag
  [ "$status" -eq 2 ]
}

@test "tg-run rejects --in without NAME=FILE with exit 2" {
  program "$CHAIN"
  run_split tg-run p.bin --in just-a-name
  [ "$status" -eq 2 ]
}

@test "tg-run prints each output's name, shape and dtype, then its values" {
  program 'output("y", Tensor.arange(6).reshape(2, 3))'
  run_split tg-run p.bin
  [ "$status" -eq 0 ]
  expect_eq "$(head -1 <<<"$out")" "y: shape=(2, 3) dtype=int32"
  expect_eq "$(values "$(tail -n +2 <<<"$out")" | tr '\n' ' ')" "0 1 2 3 4 5 "
}

@test "tg-run prints floats, 1-d shapes and several outputs in order" {
  program $'output("a", Tensor([0.5, 1.5, -2.0]))\noutput("b", Tensor.ones(2, 2).sum())'
  run_split tg-run p.bin
  [ "$status" -eq 0 ]
  grep -qx 'a: shape=(3,) dtype=float32' <<<"$out"
  grep -qx 'b: shape=() dtype=float32' <<<"$out"
  [ "$(grep -n '^a: ' <<<"$out" | cut -d: -f1)" -lt "$(grep -n '^b: ' <<<"$out" | cut -d: -f1)" ]
  expect_contains "$out" "0.5"
  expect_contains "$out" "-2."
  expect_contains "$out" "4."
}

@test "tg-run names an output without output() 'out'" {
  program $'x = Tensor.ones(3)\nx * 2'
  run_split tg-run p.bin
  [ "$status" -eq 0 ]
  expect_eq "$(head -1 <<<"$out")" "out: shape=(3,) dtype=float32"
}

@test "tg-run --out-dir writes NAME.npy for every output" {
  program $'output("a", Tensor.arange(4))\noutput("b", Tensor.ones(2, 3) * 2.5)'
  run_split tg-run p.bin --out-dir res
  [ "$status" -eq 0 ]
  [ -f res/a.npy ] && [ -f res/b.npy ]
  expect_eq "$(head -c 6 res/a.npy | tail -c 5)" "NUMPY"
  need_python
  expect_eq "$(npy_eval res/a.npy 'a.dtype, a.shape, a.tolist()')" "int32 (4,) [0, 1, 2, 3]"
  expect_eq "$(npy_eval res/b.npy 'a.dtype, a.shape, float(a.sum())')" "float32 (2, 3) 15.0"
}

@test "tg-run binds --in NAME=FILE.npy and computes with it" {
  make_npy x.npy 'np.arange(32, dtype=np.float32).reshape(4, 8)'
  program "$CHAIN"
  run_split tg-run p.bin --in x=x.npy --out-dir res
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/y.npy 'np.allclose(a, np.maximum((np.arange(32, dtype=np.float32).reshape(4, 8) + 1) * 2 - np.arange(32, dtype=np.float32).reshape(4, 8) / 4, 0))')" "True"
}

@test "tg-run takes several --in flags" {
  make_npy a.npy 'np.ones((4, 8), np.float32)'
  make_npy b.npy 'np.full((8, 3), 2, np.float32)'
  program "$MATMUL"
  run_split tg-run p.bin --in a=a.npy --in b=b.npy --out-dir res
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/c.npy 'a.shape, a.tolist()[0]')" "(4, 3) [16.0, 16.0, 16.0]"
}

@test "tg-run reads the program from stdin and from -" {
  program 'output("y", Tensor.arange(3))'
  run_split tg-run <p.bin
  [ "$status" -eq 0 ]
  expect_eq "$(head -1 <<<"$out")" "y: shape=(3,) dtype=int32"
  run_split tg-run - <p.bin
  [ "$status" -eq 0 ]
  expect_eq "$(head -1 <<<"$out")" "y: shape=(3,) dtype=int32"
}

@test "tg-run reads the JSON form of a program" {
  printf '%s\n' 'output("y", Tensor.arange(3) * 2)' | tg-trace | tg-schedule | tg-codegen --json -o p.json
  run_split tg-run p.json
  [ "$status" -eq 0 ]
  expect_eq "$(values "$(tail -n +2 <<<"$out")" | tr '\n' ' ')" "0 2 4 "
}

@test "tg-run: a missing input is an error naming it" {
  program "$CHAIN"
  run_split tg-run p.bin
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "input 'x'"
  [ -z "$out" ]
}

@test "tg-run: an input of the wrong shape is an error naming it" {
  make_npy x.npy 'np.zeros((3, 8), np.float32)'
  program "$CHAIN"
  run_split tg-run p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: input 'x': expected shape (4, 8), got (3, 8)"
}

@test "tg-run: an input of the wrong dtype is an error naming it" {
  make_npy x.npy 'np.zeros((4, 8), np.float64)'
  program "$CHAIN"
  run_split tg-run p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "tg-run: input 'x': "
  expect_contains "$err" "float32"
  expect_contains "$err" "float64"
}

@test "tg-run: an unreadable .npy is an error naming the input" {
  echo "not a numpy file" >x.npy
  program "$CHAIN"
  run_split tg-run p.bin --in x=x.npy
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "tg-run: input 'x': "
}

@test "tg-run: a missing .npy file is an error naming the input" {
  program "$CHAIN"
  run_split tg-run p.bin --in x=does-not-exist.npy
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-run: input 'x': "
}

@test "tg-run writes no output files when an input is wrong" {
  make_npy x.npy 'np.zeros((3, 8), np.float32)'
  program $'x = input("x", (4, 8))\noutput("a", Tensor.ones(2))\noutput("y", x + 1)'
  run_split tg-run p.bin --in x=x.npy --out-dir res
  [ "$status" -eq 1 ]
  expect_eq "$(find res -type f 2>/dev/null | wc -l)" 0
}

@test "tg-run given a schedule names both kinds" {
  printf '%s\n' "$MATMUL" >m.tg
  tg-trace m.tg | tg-schedule -o s.bin
  run_split tg-run s.bin
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: expected a program (from tg-codegen), got a schedule (from tg-schedule)"
}

@test "tg-run given a graph names both kinds" {
  printf '%s\n' "$MATMUL" >m.tg
  tg-trace --json m.tg -o g.json
  run_split tg-run g.json
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: expected a program (from tg-codegen), got a graph (from tg-trace)"
}

@test "tg-run rejects garbage and truncated programs in one line, exit 1" {
  run_split tg-run <<<"garbage"
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  program "$SOFTMAX"
  head -c $(($(stat -c %s p.bin) / 2)) p.bin >half.bin
  run_split tg-run half.bin
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  [ -z "$out" ]
}

@test "tg-run caches compiled kernels in \$TG_CACHE_DIR and reuses them" {
  program 'output("y", Tensor.arange(12).reshape(3, 4).sum(axis=1))'
  tg-run p.bin >first.txt
  first=$(cache_files "$TG_CACHE_DIR")
  [ -n "$first" ]
  tg-run p.bin >second.txt
  expect_eq "$(cache_files "$TG_CACHE_DIR")" "$first"
  expect_eq "$(cat second.txt)" "$(cat first.txt)"
}

@test "tg-run's cache falls back to \$XDG_CACHE_HOME/tg" {
  program 'output("y", Tensor.arange(5) + 1)'
  unset TG_CACHE_DIR
  XDG_CACHE_HOME="$BATS_TEST_TMPDIR/xdg" tg-run p.bin >/dev/null
  [ -n "$(cache_files "$BATS_TEST_TMPDIR/xdg/tg")" ]
}

@test "tg-run's cache falls back to ~/.cache/tg" {
  program 'output("y", Tensor.arange(5) + 2)'
  unset TG_CACHE_DIR
  mkdir home
  HOME="$BATS_TEST_TMPDIR/home" tg-run p.bin >/dev/null
  [ -n "$(cache_files "$BATS_TEST_TMPDIR/home/.cache/tg")" ]
}

# A state counted up by one per step, and a loss output.
COUNTER=$'c = Tensor.zeros(3).contiguous().realize()\nc += 1\noutput("loss", c.sum())\noutput("c", c)'

@test "tg-run --steps runs the step N times over the same states" {
  program "$COUNTER"
  run_split tg-run p.bin --steps 5 --out-dir res
  [ "$status" -eq 0 ]
  need_python
  expect_eq "$(npy_eval res/c.npy "a.tolist()")" "[5.0, 5.0, 5.0]"
}

@test "tg-run --steps prints a progress line with the loss to stderr" {
  program "$COUNTER"
  run_split tg-run p.bin --steps 4 --log-every 2
  [ "$status" -eq 0 ]
  expect_eq "$(printf '%s\n' "$err" | sed 's/ (.*//')" $'tg-run: step 1/4 loss 3.\ntg-run: step 2/4 loss 6.\ntg-run: step 4/4 loss 12.'
  expect_contains "$out" "loss: shape=() dtype=float32"
}

@test "tg-run --save-state then --load-state continues where it stopped" {
  need_python
  program "$COUNTER"
  run_split tg-run p.bin --steps 2 --save-state s.safetensors
  [ "$status" -eq 0 ]
  run_split tg-run p.bin --steps 3 --load-state s.safetensors --save-state s.safetensors --out-dir res
  [ "$status" -eq 0 ]
  expect_eq "$(npy_eval res/c.npy 'a.tolist()')" "[5.0, 5.0, 5.0]"
  expect_eq "$("$PYTHON" -c 'from safetensors.numpy import load_file; print({k: v.tolist() for k, v in load_file("s.safetensors").items()})')" "{'c': [5.0, 5.0, 5.0]}"
}

@test "tg-run --load-state errors name the file and the state" {
  program "$COUNTER"
  run_split tg-run p.bin --load-state nope.safetensors
  [ "$status" -eq 1 ]
  expect_one_line_error tg-run "$err"
  expect_contains "$err" "nope.safetensors"
  program $'c = Tensor.zeros(2).contiguous().realize()\nc += 1\noutput("c", c)'
  cp p.bin two.bin
  program "$COUNTER"
  run_split tg-run p.bin --save-state s.safetensors
  run_split tg-run two.bin --load-state s.safetensors
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: --load-state s.safetensors: state 'c': expected shape (2,), got (3,)"
}

@test "tg-run refuses state files for a program without states" {
  program "$MATMUL"
  run_split tg-run p.bin --save-state s.safetensors
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: the program has no states to load or save (a script makes one with realize())"
  [ ! -e s.safetensors ]
}

@test "tg-run --loss must name an output" {
  program "$COUNTER"
  run_split tg-run p.bin --steps 2 --loss nope
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: no output named 'nope' for --loss"
}

@test "tg-run splits big kernels across TG_THREADS threads with the same bytes" {
  need_python
  make_npy a.npy 'np.sin(np.arange(256 * 128, dtype=np.float32)).reshape(256, 128)'
  make_npy b.npy 'np.cos(np.arange(128 * 96, dtype=np.float32)).reshape(128, 96)'
  program $'a = input("a", (256, 128))\nb = input("b", (128, 96))\noutput("c", a @ b)'
  TG_THREADS=1 tg-run p.bin --in a=a.npy --in b=b.npy --out-dir one
  TG_THREADS=3 tg-run p.bin --in a=a.npy --in b=b.npy --out-dir three
  cmp one/c.npy three/c.npy
  expect_eq "$(tg-trace k.tg | tg-schedule | tg-codegen --json | jq '.kernels[0].global_size[0] > 1 and .kernels[0].work == 256 * 128 * 96')" "true"
}

@test "tg-run --steps 3 draws the random numbers a three-iteration loop draws" {
  # both of tinygrad's generators: numpy's default_rng (a seed state) and THREEFRY=1 (a counter)
  for threefry in 0 1; do
    export THREEFRY=$threefry
    program $'Tensor.manual_seed(11)\nw = Tensor.ones(6).contiguous().realize()\nw.assign(w + Tensor.rand(6))\noutput("w", w)'
    run_split tg-run p.bin --steps 3
    [ "$status" -eq 0 ]
    stepped="$out"
    program $'Tensor.manual_seed(11)\nw = Tensor.ones(6)\nfor i in range(3):\n  w = w + Tensor.rand(6)\noutput("w", w)'
    run_split tg-run p.bin
    [ "$status" -eq 0 ]
    expect_eq "$stepped" "$out"
  done
}

@test "tg-run --save-state keeps the random generator's place: 2 + 1 steps draw what 3 steps draw" {
  for threefry in 0 1; do
    export THREEFRY=$threefry
    program $'Tensor.manual_seed(3)\nw = Tensor.zeros(5).contiguous().realize()\nw.assign(w + Tensor.rand(5) + Tensor.randn(5))\noutput("w", w)'
    run_split tg-run p.bin --steps 3
    [ "$status" -eq 0 ]
    three="$out"
    tg-run p.bin --steps 2 --save-state s.safetensors >/dev/null
    run_split tg-run p.bin --steps 1 --load-state s.safetensors
    [ "$status" -eq 0 ]
    expect_eq "$out" "$three"
  done
}
@test "tg-run --out-dir writes all outputs or none" {
  printf '%s\n' "output('a', Tensor.ones(2))" "output('b', Tensor.ones(3) * 2)" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen -o p.bin
  mkdir -p out/b.npy # the second output cannot be written: it is a folder
  run_split tg-run p.bin --out-dir out
  [ "$status" -eq 1 ]
  expect_contains "$err" "b.npy: is a directory"
  [ ! -e out/a.npy ]
  expect_eq "$(ls -A out)" "b.npy" # and no temporary is left
  rmdir out/b.npy
  tg-run p.bin --out-dir out
  [ -f out/a.npy ] && [ -f out/b.npy ]
}

@test "tg-run fails when its printed outputs cannot be written" {
  printf '%s\n' "output('a', Tensor.ones(2))" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen -o p.bin
  run_split bash -c "tg-run p.bin > /dev/full"
  [ "$status" -eq 1 ]
  expect_contains "$err" "tg-run: cannot write the outputs to stdout"
}

@test "tg-run names the folder it cannot create" {
  printf '%s\n' "output('a', Tensor.ones(2))" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen -o p.bin
  touch file
  run_split tg-run p.bin --out-dir file/sub
  [ "$status" -eq 1 ]
  expect_contains "$err" "--out-dir file/sub: cannot create the folder"
  [[ $err != *"internal error"* ]]
}

@test "a damaged compile-cache entry is rebuilt, on every host device" {
  printf '%s\n' "x = input('x', (4,))" "output('y', x * 3)" >k.tg
  "$PYTHON" -c "import numpy as np; np.save('x.npy', np.arange(4, dtype=np.float32))"
  for d in CLANG LLVM; do
    tg-trace k.tg | tg-schedule | tg-codegen --device "$d" -o "p-$d.bin"
    tg-run "p-$d.bin" --in x=x.npy >/dev/null
    for so in "$TG_CACHE_DIR"/*/*.so; do : >"$so"; done # truncated to nothing
    run_split tg-run "p-$d.bin" --in x=x.npy
    [ "$status" -eq 0 ]
    expect_contains "$out" "[0. 3. 6. 9.]"
    for so in "$TG_CACHE_DIR"/*/*.so; do head -c 100 /bin/ls >"$so"; done # not an object
    run_split tg-run "p-$d.bin" --in x=x.npy
    [ "$status" -eq 0 ]
    expect_contains "$out" "[0. 3. 6. 9.]"
  done
}

@test "temporaries a killed compile left in the cache are swept on the next compile" {
  printf '%s\n' "output('y', Tensor.ones(4) * 3)" >k.tg
  tg-trace k.tg | tg-schedule | tg-codegen -o p.bin
  tg-run p.bin >/dev/null # creates the cache folder
  dir="$(dirname "$(find "$TG_CACHE_DIR" -name '*.so' | head -1)")"
  rm -f "$dir"/*.so
  # a dead process's (PIDs stop below 2^22), an hour old; a live one's (this shell), as old
  touch -d '1 hour ago' "$dir/.tmp-2147483000-0.so" "$dir/.tmp-$$-0.so"
  touch -d '2 days ago' "$dir/.tmp-$$-1.so"
  tg-run p.bin >/dev/null
  [ ! -e "$dir/.tmp-2147483000-0.so" ]
  [ -e "$dir/.tmp-$$-0.so" ]
  [ ! -e "$dir/.tmp-$$-1.so" ]
}

@test "many tg-run processes share one cold compile cache safely" {
  printf '%s\n' "x = input('x', (4,))" "output('y', (x * 3).sum())" >k.tg
  "$PYTHON" -c "import numpy as np; np.save('x.npy', np.arange(4, dtype=np.float32))"
  for d in CLANG LLVM; do
    tg-trace k.tg | tg-schedule | tg-codegen --device "$d" -o "p-$d.bin"
    # 3>&-: a background job holding Bats' fd 3 would keep the test from ending; wait for these
    # jobs only (a bare `wait` would also wait for Bats' own BATS_TEST_TIMEOUT watchdog)
    pids=()
    for i in 1 2 3 4 5 6; do
      tg-run "p-$d.bin" --in x=x.npy >"out-$d-$i.txt" 2>"err-$d-$i.txt" 3>&- &
      pids+=($!)
    done
    wait "${pids[@]}"
    for i in 1 2 3 4 5 6; do
      expect_eq "$(cat "out-$d-$i.txt")" $'y: shape=() dtype=float32\n18.'
      expect_eq "$(cat "err-$d-$i.txt")" ""
    done
  done
  [ -z "$(find "$TG_CACHE_DIR" -name '.tmp-*')" ]
}

@test "tg-run -o FILE.npz writes every output into one archive np.load reads" {
  printf 'x = input("x", (2, 3))\noutput("y", x * 2)\noutput("n", (x > 0).sum())\noutput("m", x.max(axis=0))\n' >o.tg
  "$PYTHON" -c 'import numpy as np; np.save("x.npy", np.arange(-3, 3, dtype=np.float32).reshape(2, 3))'
  tg-trace o.tg | tg-schedule | tg-codegen -o o.prog
  run_split tg-run o.prog --in x=x.npy -o out.npz
  [ "$status" -eq 0 ]
  expect_eq "$out" ""
  tg-run o.prog --in x=x.npy --out-dir want
  "$PYTHON" - <<'PY'
import numpy as np, zipfile
z = np.load("out.npz")
assert sorted(z.files) == ["m", "n", "y"], z.files
for k in z.files:
  w = np.load(f"want/{k}.npy")
  assert z[k].dtype == w.dtype and z[k].shape == w.shape and z[k].tobytes() == w.tobytes(), k
assert zipfile.ZipFile("out.npz").testzip() is None  # CRCs check
PY
  run_split tg-run o.prog --in x=x.npy -o out.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: -o out.npy: outputs go into one .npz file (or --out-dir DIR for .npy files)"
  run_split tg-run o.prog --in x=x.npy -o out.npz --out-dir d
  [ "$status" -eq 2 ]
}

@test "tg-run --cast converts float64 and int inputs as numpy's astype; without it, one clear line" {
  printf 'x = input("x", (4,))\noutput("y", x * 3 + 1)\n' >c.tg
  "$PYTHON" -c '
import numpy as np
v = np.array([0.1, -2.5, 1e-8, 65504.7])
np.save("f64.npy", v); np.save("f32.npy", v.astype(np.float32)); np.save("i64.npy", np.array([1, -2, 3, 2**40]))
np.save("i64_as_f32.npy", np.array([1, -2, 3, 2**40]).astype(np.float32))'
  tg-trace c.tg | tg-schedule | tg-codegen -o c.prog
  run_split tg-run c.prog --in x=f64.npy
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-run: input 'x': expected dtype float32, got float64 (--cast converts it)"
  for src in f64:f32 i64:i64_as_f32; do
    tg-run c.prog --in x=${src%%:*}.npy --cast --out-dir got
    tg-run c.prog --in x=${src##*:}.npy --out-dir want
    cmp got/y.npy want/y.npy
  done
}
