#!/usr/bin/env bats
# tg-codegen --emit c: a program as a standalone C library. A C program links two exported
# libraries, runs them with no tg at run time, and must give tg-run's outputs bit for bit.
load helpers

programs() {
  cp "$ROOT/examples/demo.tg" demo.tg
  echo 'output("big", (x.reshape(4, 8, 1) * Tensor.arange(4096).reshape(1, 1, 4096)).sum(axis=1))' >>demo.tg
  # a training step: a weight state updated by SGD, a constant table, an int output
  cat >train.tg <<'TG'
Tensor.training = True
x = input("x", (16, 3))
y = input("y", (16,))
w = Tensor([[0.5], [-0.25], [1.0]]).realize()
opt = nn.optim.SGD([w], lr=0.1)
loss = ((x @ w).reshape(16) - y).square().mean()
opt.zero_grad()
loss.backward()
opt.step()
output("loss", loss)
output("hits", ((x @ w).reshape(16) > y).cast(dtypes.int32))
TG
  "$PYTHON" -c '
import numpy as np
r = np.random.default_rng(3)
for name, shape in [("x", (4, 8)), ("tx", (16, 3)), ("ty", (16,))]:
  a = r.standard_normal(shape).astype(np.float32)
  np.save(name + ".npy", a); a.tofile(name + ".bin")'
  tg-trace demo.tg | tg-schedule -o demo.sched
  tg-trace train.tg | tg-schedule -o train.sched
}

@test "tg-codegen --emit c writes NAME.h and NAME.c that compile alone as C11" {
  programs
  run_split tg-codegen demo.sched --emit c --name demo -o lib
  [ "$status" -eq 0 ]
  expect_eq "$out" ""
  expect_eq "$(ls lib)" "demo.c
demo.h"
  grep -q '^int demo_run(demo\* m, const float\* x, float\* h, float\* probs, float\* total, float\* big);$' lib/demo.h
  # no tg header, every global symbol starts with demo_
  expect_eq "$(grep '#include "' lib/demo.c)" '#include "demo.h"'
  cc -std=c11 -O2 -Wall -Werror -c lib/demo.c -o demo.o
  nm -g --defined-only demo.o | awk '{print $3}' | grep -v '^demo_' && false
  tg-codegen train.sched --emit c --name train -o lib
  cc -std=c11 -O2 -Wall -Werror -c lib/train.c -o train.o
  nm -g --defined-only train.o | awk '{print $3}' | grep -v '^train_' && false
  true
}

@test "two exported programs link into one C program and give tg-run's outputs bit for bit" {
  programs
  tg-codegen demo.sched --emit c --name demo -o lib
  tg-codegen train.sched --emit c --name train -o lib
  cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "demo.h"
#include "train.h"
static void* load(const char* path, size_t bytes) {
  void* p = malloc(bytes);
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, 1, bytes, f) != bytes) exit(2);
  fclose(f);
  return p;
}
static void save(const char* path, const void* p, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) exit(3);
  fclose(f);
}
int main(void) {
  float h[16], probs[16], total[1], big[4 * 4096], big3[4 * 4096], loss[1];
  int hits[16];
  demo* d = demo_new();
  train* t = train_new();
  if (!d || !t) return 1;
  if (demo_run(d, load("x.bin", 128), h, probs, total, big)) return 4;
  demo* d3 = demo_new(); // the split kernels on 3 threads
  if (!d3 || demo_set_threads(d3, 3) != 3 || demo_set_threads(d3, 0) != 1 || demo_set_threads(d3, 3) != 3) return 7;
  if (demo_run(d3, load("x.bin", 128), h, probs, total, big3)) return 8;
  if (train_set_threads(t, 2) != 2) return 9;
  for (int step = 0; step < 3; ++step)
    if (train_run(t, load("tx.bin", 192), load("ty.bin", 64), loss, hits)) return 5;
  size_t bytes = 0;
  const float* w = train_state(t, "w", &bytes); // a state takes its variable's name
  if (!w || bytes != 12 || train_state(t, "nope", NULL)) return 6;
  save("c_h.bin", h, sizeof h);
  save("c_probs.bin", probs, sizeof probs);
  save("c_total.bin", total, sizeof total);
  save("c_big.bin", big, sizeof big);
  save("c_big3.bin", big3, sizeof big3);
  save("c_loss.bin", loss, sizeof loss);
  save("c_hits.bin", hits, sizeof hits);
  save("c_w.bin", w, bytes);
  demo_free(d);
  demo_free(d3);
  train_free(t);
  return 0;
}
C
  # compiled as tg-run compiles kernels (clang -O2 -march=native), so the bits must agree
  clang -std=c11 -O2 -march=native -pthread -Ilib main.c lib/demo.c lib/train.c -lm -o main
  grep -q '^static void demo_part_' lib/demo.c # the big kernel splits its outer loop
  ./main
  tg-codegen demo.sched | tg-run --in x=x.npy --out-dir want_demo
  tg-codegen train.sched | tg-run --in x=tx.npy --in y=ty.npy --steps 3 --out-dir want_train --save-state w.safetensors
  "$PYTHON" - <<'PY'
import numpy as np
from safetensors.numpy import load_file
def same(got_file, want, dtype):
  got = np.fromfile(got_file, dtype=dtype)
  want = np.asarray(want).reshape(-1)
  assert got.tobytes() == want.astype(dtype).tobytes(), (got_file, got[:8], want[:8])
same("c_h.bin", np.load("want_demo/h.npy"), np.float32)
same("c_probs.bin", np.load("want_demo/probs.npy"), np.float32)
same("c_total.bin", np.load("want_demo/total.npy"), np.float32)
same("c_big.bin", np.load("want_demo/big.npy"), np.float32)
same("c_big3.bin", np.load("want_demo/big.npy"), np.float32)
same("c_loss.bin", np.load("want_train/loss.npy"), np.float32)
same("c_hits.bin", np.load("want_train/hits.npy"), np.int32)
same("c_w.bin", load_file("w.safetensors")["w"], np.float32)
PY
}

@test "a program with a symbolic variable exports it as an int parameter of NAME_run, checked against its range" {
  # an output named m (the handle's name in the header) and a variable n
  printf '%s\n' 'n = Variable("n", 1, 16).bind(4)' 'x = input("x", (n, 3))' 'w = input("w", (3, 5))' \
    'y = (x @ w).relu()' 'output("y", y)' 'output("m", y.max(0))' 'output("t", x.sum())' >k.tg
  tg-trace k.tg | tg-schedule -o k.sched
  tg-codegen k.sched --emit c --name mlp -o lib
  grep -q '^int mlp_run(mlp\* _m, const float\* x, const float\* w, float\* y, float\* m, float\* t, int n);$' lib/mlp.h
  grep -q '^// var    n: an int in \[1, 16\]' lib/mlp.h
  "$PYTHON" -c '
import numpy as np
w = np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5)
np.save("w.npy", w); w.tofile("w.bin")
for n in (3, 7):
  x = (np.arange(n * 3, dtype=np.float32).reshape(n, 3) - 5) / 3
  np.save(f"x{n}.npy", x); x.tofile(f"x{n}.bin")'
  cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "mlp.h"
static void load(const char* path, void* p, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, 1, bytes, f) != bytes) exit(2);
  fclose(f);
}
static void save(const char* path, const void* p, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) exit(3);
  fclose(f);
}
int main(void) {
  float x[16 * 3], w[15], y[16 * 5], m[5], t[1];
  char path[32];
  mlp* h = mlp_new();
  if (!h) return 1;
  load("w.bin", w, sizeof w);
  if (mlp_run(h, x, w, y, m, t, 0) != -1 || mlp_run(h, x, w, y, m, t, 17) != -1) return 4;
  for (int n = 3; n <= 7; n += 4) {
    snprintf(path, sizeof path, "x%d.bin", n);
    load(path, x, (size_t)n * 3 * sizeof(float));
    if (mlp_run(h, x, w, y, m, t, n)) return 5;
    snprintf(path, sizeof path, "c_y%d.bin", n);
    save(path, y, (size_t)n * 5 * sizeof(float));
    snprintf(path, sizeof path, "c_m%d.bin", n);
    save(path, m, sizeof m);
    snprintf(path, sizeof path, "c_t%d.bin", n);
    save(path, t, sizeof t);
  }
  mlp_free(h);
  return 0;
}
C
  clang -std=c11 -O2 -march=native -Wall -Werror -Ilib main.c lib/mlp.c -lm -o main
  ./main
  tg-codegen k.sched -o p.bin
  for n in 3 7; do
    tg-run p.bin --var n=$n --in x=x$n.npy --in w=w.npy --out-dir want$n
    for o in y m t; do
      expect_eq "$("$PYTHON" -c "import numpy as np; print(np.fromfile('c_$o$n.bin', np.float32).tobytes() == np.load('want$n/$o.npy').tobytes())")" True
    done
  done
}

@test "tg-codegen --emit c refuses parameter names C cannot take, saying how to rename" {
  printf '%s\n' 'tok = input("tok", (4,))' 'output("tok", tok + 1)' >d.tg
  tg-trace d.tg | tg-schedule -o d.sched
  run_split tg-codegen d.sched --emit c --name d -o lib
  [ "$status" -eq 1 ]
  expect_one_line_error tg-codegen "$err"
  expect_contains "$err" "an input and an output are both named 'tok'"
  expect_contains "$err" 'output("tok_out", ...)'
  printf '%s\n' 'x = input("x", (4,))' 'output("for", x + 1)' >k.tg
  tg-trace k.tg | tg-schedule -o k.sched
  run_split tg-codegen k.sched --emit c --name k -o lib
  [ "$status" -eq 1 ]
  expect_contains "$err" "cannot export 'for': it is a C or C++ keyword"
  [ ! -e lib ]
}

@test "tg-codegen --emit c refuses what it cannot export, with one clear line" {
  programs
  run_split tg-codegen demo.sched --emit c -o lib
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: --emit c needs --name NAME"
  run_split tg-codegen demo.sched --emit c --name 'my-lib' -o lib
  [ "$status" -eq 1 ]
  expect_eq "$err" "tg-codegen: --name 'my-lib' is not a C identifier"
  run_split tg-codegen demo.sched --emit c --name demo --device LLVM -o lib
  [ "$status" -eq 1 ]
  [[ "$err" == *"use --device CLANG"* ]]
  printf 'output("r", Tensor.rand(4))\n' >r.tg
  tg-trace r.tg | tg-schedule -o r.sched
  run_split tg-codegen r.sched --emit c --name r -o lib
  [ "$status" -eq 1 ]
  [[ "$err" == *"draws random numbers on the host"*"THREEFRY=1"* ]]
  [ ! -e lib ]
}

@test "the script's safetensors weights stay out of NAME.c by default (--weights FILE for unnamed ones); NAME_load reads them, checked" {
  need_python
  "$PYTHON" - <<'PY'
import numpy as np
from safetensors.numpy import save_file
r = np.random.default_rng(4)
w = {"l1.weight": r.standard_normal((32, 16)), "l1.bias": r.standard_normal(32),
     "l2.weight": r.standard_normal((4, 32)), "l2.bias": r.standard_normal(4)}
w = {k: v.astype(np.float32) for k, v in w.items()}
save_file(w, "w.safetensors")
save_file({k: v * 2 for k, v in w.items()}, "tuned.safetensors")
save_file({**w, "l1.weight": w["l1.weight"][:16]}, "shape.safetensors")
save_file({k: v for k, v in w.items() if k != "l2.bias"}, "missing.safetensors")
np.save("x.npy", r.standard_normal((2, 16)).astype(np.float32))
np.load("x.npy").tofile("x.bin")
PY
  cat >m.tg <<'TG'
class Net:
  def __init__(self):
    self.l1 = nn.Linear(16, 32)
    self.l2 = nn.Linear(32, 4)
  def __call__(self, x): return self.l2(self.l1(x).relu())
model = Net()
nn.state.load_state_dict(model, nn.state.safe_load(args["w"]))
output("y", model(input("x", (2, 16))))
TG
  tg-trace m.tg --arg w=w.safetensors | tg-schedule -o m.sched
  # safe_load's keys travel with the constants: the default needs no file
  tg-codegen m.sched --emit c --name mlp -o lib
  tg-codegen m.sched --emit c --name byfile -o lib --weights w.safetensors
  tg-codegen m.sched --emit c --name emb -o lib --embed-weights
  # the 2.7 KB of weights are in emb.c as byte lists, not in mlp.c
  expect_eq "$(grep -c 'mlp_data' lib/mlp.c)" "0"
  [ "$(grep -c 'emb_data' lib/emb.c)" -gt 0 ]
  expect_eq "$(grep -c 'mlp_load' lib/emb.h)" "0"
  grep -q '^// weight "l1.weight": F32 (32, 16)$' lib/mlp.h
  # by name or by the file's bytes: the same library
  expect_eq "$(sed 's/byfile/mlp/g; s/BYFILE/MLP/g' lib/byfile.c | cmp - lib/mlp.c && echo same)" "same"
  expect_eq "$(tg-schedule --help >/dev/null; jq -c '[.buffers[] | select(.role == "constant") | [.name, .dims]]' \
    <(tg-trace m.tg --arg w=w.safetensors | tg-schedule --json))" \
    '[["l1.weight",[32,16]],["l1.bias",[32]],["l2.weight",[4,32]],["l2.bias",[4]]]' 
  grep -q '^int mlp_load(mlp\* m, const char\* path);$' lib/mlp.h
  cat >main.c <<'C'
#include <stdio.h>
#include "mlp.h"
/* main X.bin OUT.bin FILE... : loads each FILE in turn, then runs once */
int main(int argc, char** argv) {
  float x[32], y[8];
  FILE* f = fopen(argv[1], "rb");
  if (fread(x, sizeof x, 1, f) != 1) return 9;
  fclose(f);
  mlp* m = mlp_new();
  printf("before %d\n", mlp_run(m, x, y));
  for (int a = 3; a < argc; ++a) {
    int rc = mlp_load(m, argv[a]);
    printf("load %d %s\n", rc, rc ? mlp_error(m) : "ok");
  }
  int rc = mlp_run(m, x, y);
  printf("run %d\n", rc);
  if (rc == 0) { f = fopen(argv[2], "wb"); fwrite(y, sizeof y, 1, f); fclose(f); }
  mlp_free(m);
  return 0;
}
C
  # compiled as tg-run compiles kernels, so the bits must agree
  clang -std=c11 -O2 -march=native -Wall -Werror -Ilib main.c lib/mlp.c -lm -o main
  run ./main x.bin y.bin w.safetensors
  expect_eq "$output" "$(printf 'before -2\nload 0 ok\nrun 0')"
  tg-codegen m.sched | tg-run --in x=x.npy --out-dir r >/dev/null
  expect_eq "$(npy_eval r/y.npy "np.array_equal(a, np.fromfile('y.bin', np.float32).reshape(2, 4))")" True
  # another file of the same names, dtypes and shapes: its weights, as tg-run computes them
  ./main x.bin tuned.bin tuned.safetensors >/dev/null
  tg-trace m.tg --arg w=tuned.safetensors | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir t >/dev/null
  expect_eq "$(npy_eval t/y.npy "np.array_equal(a, np.fromfile('tuned.bin', np.float32).reshape(2, 4))")" True
  # files that do not fit are refused with the weight and what differs, and change nothing
  printf 'junk' >junk.safetensors
  head -c 8 /dev/zero >empty.safetensors
  run ./main x.bin kept.bin w.safetensors shape.safetensors missing.safetensors junk.safetensors empty.safetensors \
    nothere.safetensors
  expect_eq "$output" "$(printf '%s\n' 'before -2' 'load 0 ok' "load -1 another shape than the program's: l1.weight" \
    'load -1 the file has no tensor l2.bias' \
    'load -1 not a safetensors file (shorter than 8 bytes): junk.safetensors' \
    'load -1 not a safetensors file (its header is not a JSON object): empty.safetensors' \
    'load -1 cannot open nothere.safetensors' 'run 0')"
  cmp kept.bin y.bin
  run ./main x.bin bad.bin missing.safetensors
  expect_eq "${lines[2]}" "run -2"
  [ ! -e bad.bin ]
  # a tensor of the file the program does not use is named on stderr: its values would not load
  "$PYTHON" -c 'from safetensors.numpy import load_file, save_file; import numpy as np
d = load_file("w.safetensors"); d["unused"] = np.ones(3, np.float32); save_file(d, "extra.safetensors")'
  run_split tg-codegen m.sched --emit c --name ex -o lib3 --weights extra.safetensors
  [ "$status" -eq 0 ]
  expect_contains "$err" "tg-codegen: note: --weights: 1 tensor of the file stays out of NAME_load"
  expect_contains "$err" ": unused"
  # a file the script did not load, and --weights without --emit c: one line each
  "$PYTHON" -c 'from safetensors.numpy import save_file; import numpy as np; save_file({"z": np.zeros(3, np.float32)}, "other.safetensors")'
  run_split tg-codegen m.sched --emit c --name o -o lib2 --weights other.safetensors
  expect_one_line_error tg-codegen "$err"
  expect_contains "$err" "--weights: no constant of the program is a tensor of that file"
  [ ! -e lib2/o.c ]
  run_split tg-codegen m.sched --weights w.safetensors -o p.bin
  expect_one_line_error tg-codegen "$err"
  expect_contains "$err" "--weights is for --emit c"
  # without --emit c, --embed-weights keeps the program's constants in it (no file references)
  run_split tg-codegen m.sched --embed-weights -o p.bin
  [ "$status" -eq 0 ]
  [ -s p.bin ]
  run_split tg-codegen m.sched --emit c --name both -o lib4 --embed-weights --weights w.safetensors
  [ "$status" -eq 2 ]
  [ ! -e lib4/both.c ]
}

@test "a key two safe_load files share stays in NAME.c; the other weights load by name" {
  need_python
  "$PYTHON" - <<'PY'
import numpy as np
from safetensors.numpy import save_file
r = np.random.default_rng(6)
save_file({"weight": r.standard_normal((3, 4)).astype(np.float32), "scale": np.ones(3, np.float32)}, "a.safetensors")
save_file({"weight": r.standard_normal((3, 3)).astype(np.float32)}, "b.safetensors")
PY
  cat >two.tg <<'TG'
a = nn.state.safe_load(args["a"])
b = nn.state.safe_load(args["b"])
output("y", b["weight"] @ (a["weight"] @ input("x", (4,))) * a["scale"])
TG
  tg-trace two.tg --arg a=a.safetensors --arg b=b.safetensors | tg-schedule | tg-codegen --emit c --name two -o lib
  expect_eq "$(grep -c '^// weight ' lib/two.h)" "1"
  grep -q '^// weight "scale": F32 (3)$' lib/two.h
  expect_eq "$(grep -c '^static const unsigned char two_data' lib/two.c)" "2" # both "weight"s
  "$PYTHON" -c 'import numpy as np; x = np.arange(4, dtype=np.float32) - 1.5; np.save("x.npy", x); x.tofile("x.bin")'
  cat >main.c <<'C'
#include <stdio.h>
#include "two.h"
int main(void) {
  float x[4], y[3];
  FILE* f = fopen("x.bin", "rb");
  if (fread(x, sizeof x, 1, f) != 1) return 9;
  fclose(f);
  two* m = two_new();
  if (two_load(m, "a.safetensors") || two_run(m, x, y)) return 8;
  f = fopen("y.bin", "wb");
  fwrite(y, sizeof y, 1, f);
  fclose(f);
  two_free(m);
  return 0;
}
C
  clang -std=c11 -O2 -march=native -Wall -Werror -Ilib main.c lib/two.c -lm -o main
  ./main
  tg-trace two.tg --arg a=a.safetensors --arg b=b.safetensors | tg-schedule | tg-codegen | tg-run --in x=x.npy --out-dir r >/dev/null
  expect_eq "$(npy_eval r/y.npy "np.array_equal(a, np.fromfile('y.bin', np.float32))")" True
}
