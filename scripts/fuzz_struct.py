#!/usr/bin/env python3
"""Structure-aware fuzzer: edits real artifacts the way a person with jq would and runs the
whole downstream pipeline on whatever a tool accepts (issue 29).

libFuzzer (scripts/fuzz.sh) flips bytes under one reader; the defects it cannot see are the
ones where a reader accepts an edited artifact and a later tool, the compiler or a kernel then
falls over. This fuzzer makes seeds from a few real programs with build/bin (JSON at every
stage, programs for CLANG, LLVM and GPU, ONNX models from onnx.helper), applies one to three
field-level edits per case (drop a key, null, retype, resize or reorder a list, extreme
numbers, a value copied from a like field elsewhere) and runs every later stage:

  graph    -> tg-schedule -> tg-codegen -> tg-run --compile-only -> tg-run --in ... -o out.npz
  schedule ->                tg-codegen -> ...
  program  ->                              tg-run --compile-only -> tg-run ...
  onnx     -> tg-trace model.onnx -> tg-schedule -> ...

A finding is anything but a success or a clean refusal (exit 1 or 2, one line `tg-TOOL: ...`):
a signal or exit >= 128, a timeout, "internal error"/sanitizer/assertion text, a messy
message, an output file left by a failed run, a compiler error in source that tg-codegen wrote
(every accepted schedule must compile), or a run that passes by default but reads or writes
past a buffer under TG_CHECK_BOUNDS=1. Findings are saved once per signature (tool, kind, first
stderr line with numbers and names blanked) under OUT/findings/struct-TARGET/ with a repro.sh.
Every case is reproducible: `--seed S --case N` replays case N verbosely.

Python 3 stdlib only (the ONNX seeds use .venv's onnx package when it is there).
"""
import argparse, copy, hashlib, json, os, random, re, shutil, signal, struct, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("graph", "schedule", "program", "onnx")
STAGE_TIMEOUT = 20  # seconds per tool run: longer is a hang
HOST = ("CLANG", "LLVM")
TOOLS = ("tg-trace", "tg-grad", "tg-schedule", "tg-codegen", "tg-run")

# Seed programs: name -> (script, {input: (shape, dtype)}). Between them: a matmul, a
# reduction chain, a symbolic variable, a random state with an assign, a conv with pads and an
# int cast, and (below) a gradient graph.
SCRIPTS = {
  "demo": ((ROOT / "examples/demo.tg").read_text(), {"x": ((4, 8), "float32")}),
  "matmul": ('a = input("a", (8, 16))\nb = input("b", (16, 4))\noutput("c", a @ b)\n',
             {"a": ((8, 16), "float32"), "b": ((16, 4), "float32")}),
  "softmax": ('x = input("x", (4, 10))\noutput("p", x.softmax())\noutput("m", x.max(1))\n',
              {"x": ((4, 10), "float32")}),
  "symbolic": ('n = Variable("n", 1, 8).bind(3)\na = input("a", (n, 4))\nb = input("b", (4, 5))\n'
               'y = (a @ b).relu()\noutput("y", y)\noutput("m", y.max(0))\noutput("t", a.sum())\n',
               {"a": ((3, 4), "float32"), "b": ((4, 5), "float32")}),
  "state": ('Tensor.manual_seed(3)\nx = input("x", (4, 4))\nw = Tensor.rand(4, 4).realize()\n'
            'w.assign(w + x * 0.1)\noutput("y", (x @ w).sum(1))\n', {"x": ((4, 4), "float32")}),
  "conv": ('x = input("x", (1, 2, 6, 6))\nw = Tensor.arange(36).reshape(2, 2, 3, 3).cast(dtypes.float32) / 10\n'
           'i = input("i", (8,), dtypes.int32)\n'
           'output("c", x.conv2d(w, padding=1).max_pool2d().pad(((0, 0), (0, 0), (1, 0), (0, 2))))\n'
           'output("k", (i.cast(dtypes.float16) * 2).cast(dtypes.float32).cumsum())\n',
           {"x": ((1, 2, 6, 6), "float32"), "i": ((8,), "int32")}),
  "grad": ('x = input("x", (4, 10))\noutput("loss", x.softmax().square().sum())\n', {"x": ((4, 10), "float32")}),
}

# ONNX seed models, built by .venv's onnx.helper (opset 13); inputs saved next to them.
ONNX_MAKER = r'''
import sys, os, numpy as np, onnx
from onnx import helper as h, numpy_helper as nh, TensorProto as T
out, rng = sys.argv[1], np.random.default_rng(0)
def save(name, nodes, ins, outs, inits):
  g = h.make_graph(nodes, name, [h.make_tensor_value_info(n, T.FLOAT, s) for n, s in ins],
                   [h.make_tensor_value_info(n, T.FLOAT, None) for n in outs],
                   [nh.from_array(np.asarray(a), n) for n, a in inits.items()])
  os.makedirs(f"{out}/{name}", exist_ok=True)
  onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), f"{out}/{name}/model.onnx")
  for n, s in ins: np.save(f"{out}/{name}/{n}.npy", rng.standard_normal(s).astype(np.float32))
N, f32, i64 = h.make_node, np.float32, np.int64
save("mlp", [N("MatMul", ["x", "W"], ["h"]), N("Add", ["h", "b"], ["hb"]), N("Relu", ["hb"], ["r"]),
             N("Softmax", ["r"], ["y"], axis=-1)], [("x", (2, 4))], ["y"],
     {"W": rng.standard_normal((4, 3)).astype(f32), "b": np.ones(3, f32)})
save("conv", [N("Conv", ["x", "W"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1], kernel_shape=[3, 3]),
              N("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]), N("Flatten", ["p"], ["y"])],
     [("x", (1, 2, 5, 5))], ["y"], {"W": rng.standard_normal((3, 2, 3, 3)).astype(f32)})
save("shape", [N("Reshape", ["x", "s"], ["r"]), N("Transpose", ["r"], ["t"], perm=[1, 0]),
               N("Gather", ["t", "idx"], ["g"], axis=0), N("ReduceMean", ["g"], ["m"], axes=[1], keepdims=0),
               N("Cast", ["m"], ["c16"], to=T.FLOAT16), N("Cast", ["c16"], ["y"], to=T.FLOAT)],
     [("x", (2, 3, 4))], ["y"], {"s": np.array([6, 4], i64), "idx": np.array([0, 2], i64)})
save("gemm", [N("Gemm", ["x", "B"], ["g"], transB=1, alpha=0.5), N("Greater", ["g", "z"], ["gt"]),
              N("Where", ["gt", "g", "z"], ["w"]), N("Concat", ["w", "x"], ["c"], axis=1),
              N("Slice", ["c", "st", "en"], ["s"]), N("Unsqueeze", ["s", "ax"], ["y"])],
     [("x", (3, 4))], ["y"], {"B": rng.standard_normal((5, 4)).astype(f32), "z": np.zeros(1, f32),
      "st": np.array([0, 1], i64), "en": np.array([2, 7], i64), "ax": np.array([0], i64)})
'''

# ---------------------------------------------------------------------------------- running

def write_npy(path, shape, dtype, rng):
  """A C-order little-endian .npy (format 1.0), so the fuzzer needs no numpy."""
  n = 1
  for d in shape: n *= d
  descr, fmt, vals = {"float32": ("<f4", "f", [rng.uniform(-2, 2) for _ in range(n)]),
                      "int32": ("<i4", "i", [rng.randrange(-9, 10) for _ in range(n)])}[dtype]
  header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
  header += " " * (63 - (10 + len(header)) % 64) + "\n"
  Path(path).write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
                         + struct.pack("<%d%s" % (n, fmt), *vals))

def snapshot_tools(bindir, tmp):
  """A copy of the tools and their libraries (LD_LIBRARY_PATH beats their RUNPATH), so that a
  rebuild while the fuzzer runs does not show up as findings; waits for a build to settle."""
  libdir = bindir.parent / "lib"
  files = [bindir / t for t in TOOLS] + (sorted(libdir.glob("lib*.so*")) if libdir.exists() else [])
  for _ in range(60):
    before = [(p.stat().st_mtime, p.stat().st_size) for p in files]
    time.sleep(2)
    if before == [(p.stat().st_mtime, p.stat().st_size) for p in files]: break
  for p in files: shutil.copy2(p, tmp / "tools" / ("lib" if p.parent == libdir else "bin"))
  return tmp / "tools" / "bin", tmp / "tools" / "lib"

class Runner:
  """Runs the tools in a case directory with relative file names, so a saved command replays."""
  def __init__(self, bindir, tmp):
    (tmp / "tools" / "bin").mkdir(parents=True)
    (tmp / "tools" / "lib").mkdir()
    self.bindir, libdir = snapshot_tools(bindir, tmp)
    self.env = dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    self.env.pop("TG_CHECK_BOUNDS", None)  # the default run is the one a user gets
    self.env.pop("XDG_CACHE_HOME", None)
    self.env.update(TG_CACHE_DIR=str(tmp / "cache"), POCL_CACHE_DIR=str(tmp / "pocl-cache"))

  def __call__(self, argv, cwd, extra_env=None):
    env = dict(self.env, **(extra_env or {}))
    # own session: a timeout kills the tool and the compilers it started
    p = subprocess.Popen([str(self.bindir / argv[0])] + argv[1:], cwd=cwd, env=env, start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
      err = p.communicate(timeout=STAGE_TIMEOUT)[1]
      timed_out = False
    except subprocess.TimeoutExpired:
      os.killpg(p.pid, signal.SIGKILL)
      err, timed_out = p.communicate()[1], True
    return p.returncode, err.decode(errors="replace"), timed_out

# what tg never says itself: its own catch-all, protobuf's and the sanitizers' reports, glibc's heap checks
BAD = re.compile(r"internal error|libprotobuf FATAL|Sanitizer|runtime error:|Assertion|terminate called|"
                 r"free\(\)|malloc\(\)|double free|corrupted (size|double|top|unsorted)|stack smashing|std::")
COMPILER = re.compile(r"error:|undeclared identifier|too many arguments|too few arguments|redefinition|"
                      r"build failed|clang failed|LLVM failed: .*:\d+:\d+")

def judge(tool, rc, err, timed_out, out_file, must_compile):
  """(kind, stderr line for the signature) when this run is a finding, else None."""
  lines = err.rstrip("\n").split("\n") if err.strip() else []
  first = lines[0] if lines else ""
  if timed_out: return "hang", f"no exit after {STAGE_TIMEOUT}s"
  if rc < 0 or rc >= 128: return f"signal {-rc if rc < 0 else rc - 128}", first
  m = BAD.search(err)
  if m: return "internal", next(l for l in lines if m.group(0) in l)
  if rc == 0: return None
  if COMPILER.search(err):  # a compiler's diagnostics are many lines by nature
    return ("compile", next((l for l in lines if "error" in l), first)) if must_compile else None
  if rc not in (1, 2): return f"exit {rc}", first
  if len(lines) != 1 or not first.startswith(tool + ": "):
    if first.startswith(tool + ": ") and first.count("'") % 2:  # one class, whichever field it was
      return "message", "a quoted value in the message holds a line break"
    return "message", first or "(empty stderr)"
  if out_file and out_file.exists(): return "partial-output", first
  return None

def signature(tool, kind, line):
  line = re.sub(r"/\S+", "PATH", line)            # temp and cache paths
  line = re.sub(r"'[^']*'|\"[^\"]*\"", "'X'", line)  # names of kernels, inputs, buffers
  line = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", line)
  return f"{tool} [{kind}] {line.strip()[:160]}"

# ---------------------------------------------------------------------------------- seeds

def make_seeds(run, sdir, rng):
  """{target: [(name, file, {input: npy file}, device)]} from the scripts and ONNX models."""
  seeds = {t: [] for t in TARGETS}
  def ok(argv, cwd):
    rc, err, to = run(argv, cwd)
    if rc != 0: print(f"fuzz_struct: seed step {' '.join(argv)} failed: {err.strip()[:200]}", file=sys.stderr)
    return rc == 0
  graphs = []
  for name, (script, ins) in SCRIPTS.items():
    d = sdir / name
    d.mkdir(parents=True)
    (d / "s.tg").write_text(script)
    npys = {n: str(d / f"{n}.npy") for n in ins}
    for n, (shape, dt) in ins.items(): write_npy(npys[n], shape, dt, rng)
    trace = ["tg-trace", "s.tg", "--json", "-o", "graph.json"]
    if name == "grad":
      trace = ["tg-trace", "s.tg", "-o", "g0.bin"]
      if not ok(trace, d): continue
      trace = ["tg-grad", "g0.bin", "--wrt", "x", "--json", "-o", "graph.json"]
    if ok(trace, d): graphs.append((name, d, npys))
  odir = sdir / "onnx"
  py = next((p for p in (os.environ.get("TG_PYTHON"), ROOT / ".venv/bin/python") if p and Path(p).exists()), None)
  made = py and subprocess.run([str(py), "-c", ONNX_MAKER, str(odir)], capture_output=True).returncode == 0
  if not made:  # no onnx package: a few of ONNX's node tests, compiled but not run (no .npy)
    for t in ("test_add", "test_matmul_2d", "test_softmax_axis_1", "test_conv_with_strides_padding", "test_gather_0"):
      src = Path("/usr/share/libonnx-testdata/data/node") / t / "model.onnx"
      if src.exists(): (odir / t).mkdir(parents=True); shutil.copy(src, odir / t / "model.onnx")
  for d in sorted(odir.glob("*")) if odir.exists() else []:
    npys = {p.stem: str(p) for p in d.glob("*.npy")}
    seeds["onnx"].append((d.name, str(d / "model.onnx"), npys, "CLANG"))
    if ok(["tg-trace", "model.onnx", "--json", "-o", "graph.json"], d): graphs.append(("onnx-" + d.name, d, npys))
  for name, d, npys in graphs:
    seeds["graph"].append((name, str(d / "graph.json"), npys, None))
    if not ok(["tg-schedule", "graph.json", "--json", "-o", "schedule.json"], d): continue
    seeds["schedule"].append((name, str(d / "schedule.json"), npys, None))
    for dev in ("CLANG", "LLVM", "GPU"):
      if ok(["tg-codegen", "--device", dev, "schedule.json", "--json", "-o", f"program-{dev}.json"], d):
        seeds["program"].append((f"{name}-{dev}", str(d / f"program-{dev}.json"), npys, dev))
  return seeds

# ---------------------------------------------------------------------------------- JSON edits

SKIP_KEYS = {"format", "version"}  # the readers' first checks; libFuzzer covers them
NUMBERS = [-1, 2**31 - 1, 2**31, 2**32, 2**40, 2**63 - 1, -2**63, 2**64]
STRINGS = ["", "x", "a b", "\n", "x\u0001y", "\u007f", "\u00e9", "a" * 4096, "nan", "-inf", "n[1-8]",
           "(n[1-8]*2)", "n[0-2147483647]", "(1+m[2-3])", "BinaryOps.ADD", "LoadOps.VIEW", "float16", "core_end"]
DELETE = object()

def jq_path(path):
  return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if re.fullmatch(r"[A-Za-z_]\w*", p) else f"[{json.dumps(p)}]")
                 for p in path) or "."

def walk(v, path=()):
  yield path, v
  items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
  for k, c in items:
    if not (path == () and k in SKIP_KEYS): yield from walk(c, path + (k,))

def field_of(path):
  """Which field a path is an instance of: its last key and the list levels below it
  (.nodes[3].src[0] and .nodes[5].src[1] are both ("src", 1))."""
  i = max((i for i, p in enumerate(path) if isinstance(p, str)), default=-1)
  return (path[i] if i >= 0 else "", len(path) - i - 1)

def retype(v, rng):
  if isinstance(v, bool): return rng.choice([int(v), "true", None])
  if isinstance(v, (int, float)): return rng.choice([str(v), [v], {}, True, v + 0.5])
  if isinstance(v, str): return rng.choice([int((re.sub(r"\D", "", v) or "0")[:18]), [v], {}, False])
  if isinstance(v, list): return rng.choice([{}, str(v)[:40], v[0] if v else 0, [v]])
  if isinstance(v, dict): return rng.choice([[], "x", 0, list(v.values())[:1]])
  return rng.choice([0, "", [], {}])

def resize(v, rng):
  v = copy.deepcopy(v)
  i = rng.randrange(len(v)) if v else 0
  op = rng.choice(["truncate", "empty", "dup", "extend", "remove", "reverse", "shuffle", "swap"] if v else ["extend"])
  if op == "truncate": v = v[:i]
  elif op == "empty": v = []
  elif op == "dup": v.insert(i, copy.deepcopy(v[i]))
  elif op == "extend": v += [copy.deepcopy(rng.choice(v)) if v else 0 for _ in range(rng.choice([1, 2, 7]))]
  elif op == "remove": del v[i]
  elif op == "reverse": v.reverse()
  elif op == "shuffle": rng.shuffle(v)
  else:
    j = rng.randrange(len(v)); v[i], v[j] = v[j], v[i]
  return v

def json_edit(tree, rng):
  """One edit: (path, new value or DELETE), as `del(PATH)` or `PATH = VALUE` in jq."""
  nodes = [(p, v) for p, v in walk(tree) if p]
  path, v = rng.choice(nodes)
  alike = [c for p, c in nodes if field_of(p) == field_of(path) and c != v]
  ops = ["drop", "null", "retype"] + ["splice"] * 4 * bool(alike)
  if isinstance(v, bool): ops += ["flip"] * 3
  elif isinstance(v, (int, float)): ops += ["number"] * 6
  elif isinstance(v, str): ops += ["string"] * 2
  elif isinstance(v, list): ops += ["list"] * 5
  op = rng.choice(ops)
  if op == "drop": return path, DELETE
  if op == "null": return path, None
  if op == "retype": return path, retype(v, rng)
  if op == "splice": return path, copy.deepcopy(rng.choice(alike))
  if op == "flip": return path, not v
  if op == "number":  # half small steps, which more often pass the readers' checks, half extremes
    near = [v + 1, v - 1, 0, 1, 2, v * 2, -v, v // 2 if isinstance(v, int) else v / 2]
    return path, rng.choice(near if rng.random() < 0.5 else NUMBERS + [v * 10])
  if op == "string":
    others = [c for _, c in nodes if isinstance(c, str) and len(c) < 64]
    return path, rng.choice([rng.choice(STRINGS), rng.choice(others or STRINGS), v + "\u0000"[:rng.randrange(2)] + "_2"])
  return path, resize(v, rng)

def get(tree, path):
  for p in path: tree = tree[p]
  return tree

def apply(tree, path, new):
  parent = tree
  for p in path[:-1]: parent = parent[p]
  if new is DELETE: del parent[path[-1]]
  else: parent[path[-1]] = new

def describe(path, new):
  if new is DELETE: return f"del({jq_path(path)})"
  text = json.dumps(new)
  return f"{jq_path(path)} = {text if len(text) <= 120 else text[:117] + '...'}"

def mutate_json(data, rng):
  tree, edits, touched_src = json.loads(data), [], False
  for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
    path, new = json_edit(tree, rng)
    old = get(tree, path)
    # A third of the value edits go to every like field with that value (a node's shape, its
    # view's, the named buffer's), as `walk(...)` would: the fields the readers check against
    # each other change together, and the edit gets past them to the later tools.
    same = [p for p, v in walk(tree) if p and p != path and field_of(p) == field_of(path) and v == old]
    if new is not DELETE and same and rng.random() < 0.33:
      for p in same: apply(tree, p, copy.deepcopy(new))
      edits.append(f"every {field_of(path)[0]} equal to {json.dumps(old)[:60]}, {len(same) + 1} in all:")
    apply(tree, path, new)
    edits.append(describe(path, new))
    # an edited program kernel source may fail to compile; tg-codegen's own must not
    touched_src |= path[0] == "kernels" and (len(path) <= 2 or path[2] == "src")
  return json.dumps(tree, indent=1).encode(), edits, touched_src

# ---------------------------------------------------------------------------------- protobuf edits
# ONNX's messages as far as the fuzzer descends: field -> name, or (name, message) for a submessage.
PB = {
  "Model": {1: "ir_version", 8: ("opset_import", "OpSet"), 7: ("graph", "Graph"), 2: "producer_name", 5: "model_version"},
  "OpSet": {1: "domain", 2: "version"},
  "Graph": {1: ("node", "Node"), 2: "name", 5: ("initializer", "Tensor"), 11: ("input", "ValueInfo"),
            12: ("output", "ValueInfo"), 13: ("value_info", "ValueInfo")},
  "Node": {1: "input", 2: "output", 3: "name", 4: "op_type", 7: "domain", 5: ("attribute", "Attr")},
  "Attr": {1: "name", 20: "type", 2: "f", 3: "i", 4: "s", 5: ("t", "Tensor"), 6: ("g", "Graph"), 7: "floats", 8: "ints",
           9: "strings", 14: ("tp", "Type")},
  "Tensor": {1: "dims", 2: "data_type", 4: "float_data", 7: "int64_data", 8: "name", 9: "raw_data", 14: "data_location"},
  "ValueInfo": {1: "name", 2: ("type", "Type")},
  "Type": {1: ("tensor_type", "TensorType"), 4: ("sequence_type", "Type"), 9: ("optional_type", "Type")},
  "TensorType": {1: "elem_type", 2: ("shape", "Shape")},
  "Shape": {1: ("dim", "Dim")},
  "Dim": {1: "dim_value", 2: "dim_param", 3: "denotation"},
}

def pb_varint(buf, i):
  v = shift = 0
  while True:
    b = buf[i]; i += 1
    v |= (b & 0x7F) << shift; shift += 7
    if b < 0x80: return v, i

def pb_parse(buf, msg):
  """A message as a list of [field, wire type, value]; value is an int, bytes or a sub-list."""
  out, i = [], 0
  while i < len(buf):
    key, i = pb_varint(buf, i)
    f, wt = key >> 3, key & 7
    if wt == 0: v, i = pb_varint(buf, i)
    elif wt == 1: v, i = buf[i:i + 8], i + 8
    elif wt == 5: v, i = buf[i:i + 4], i + 4
    elif wt == 2:
      n, i = pb_varint(buf, i)
      v, i = buf[i:i + n], i + n
      sub = PB.get(msg, {}).get(f)
      if isinstance(sub, tuple):
        try: v = pb_parse(v, sub[1])
        except (ValueError, IndexError): pass  # not a message after all: kept as bytes
    else: raise ValueError(f"wire type {wt}")
    if i > len(buf): raise ValueError("cut short")
    out.append([f, wt, v])
  return out

def pb_enc_varint(v):
  v &= (1 << 64) - 1
  out = bytearray()
  while True:
    out.append((v & 0x7F) | (0x80 if v > 0x7F else 0)); v >>= 7
    if not v: return bytes(out)

def pb_encode(fields):
  out = bytearray()
  for f, wt, v in fields:
    out += pb_enc_varint(f << 3 | wt)
    if wt == 0: out += pb_enc_varint(v)
    elif wt == 2:
      b = pb_encode(v) if isinstance(v, list) else v
      out += pb_enc_varint(len(b)) + b
    else: out += v
  return bytes(out)

def pb_walk(fields, msg, path="model"):
  """(readable path, msg.field label, parent list, index) of every field, depth first."""
  seen = {}
  for i, (f, wt, v) in enumerate(fields):
    spec = PB.get(msg, {}).get(f, f"#{f}")
    name, sub = spec if isinstance(spec, tuple) else (spec, None)
    seen[f] = seen.get(f, -1) + 1
    here = f"{path}.{name}[{seen[f]}]"
    yield here, f"{msg}.{name}", fields, i
    if isinstance(v, list): yield from pb_walk(v, sub, here)

def pb_edit(model, rng):
  sites = list(pb_walk(model, "Model"))
  where, label, parent, i = rng.choice(sites)
  f, wt, v = parent[i]
  alike = [s[2][s[3]] for s in sites if s[1] == label and s[2][s[3]] != parent[i]]  # whole [field, wire, value]
  strings = [s[2][s[3]][2] for s in sites if isinstance(s[2][s[3]][2], bytes) and len(s[2][s[3]][2]) < 40]
  ops = ["drop", "dup", "wire"] + ["splice"] * 3 * bool(alike)
  ops += {0: ["varint"] * 5, 5: ["float"] * 2, 2: ["bytes"] * 4 if isinstance(v, bytes) else ["clear", "reorder", "reorder"]}.get(wt, [])
  op = rng.choice(ops)
  if op == "drop": del parent[i]; return f"drop {where}"
  if op == "dup": parent.insert(i, copy.deepcopy(parent[i])); return f"duplicate {where}"
  if op == "splice": parent[i] = copy.deepcopy(rng.choice(alike)); return f"{where} = a copy of another {label}"
  if op == "wire":  # a varint where bytes belong and back: a parse error, which must be clean
    parent[i][1:] = [2, b"7"] if wt == 0 else [0, 7]; return f"{where}: wire type {parent[i][1]}"
  if op == "varint":
    parent[i][2] = rng.choice([0, 1, 2**64 - 1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, v + 1, (v - 1) % 2**64,
                               v * 10, rng.randrange(22), 12345])
    return f"{where} = {parent[i][2]}"
  if op == "float":
    parent[i][2] = struct.pack("<f", rng.choice([float("nan"), float("inf"), -0.0, 1e30, -1.0])); return f"{where} = float"
  if op == "bytes":
    parent[i][2] = rng.choice([b"", b"\n", b"a\x01b", b"\x00", b"\xff\xfe", b"x" * 5000, v + b"_2", rng.choice(strings or [b""])])
    return f"{where} = {parent[i][2][:40]!r}"
  if op == "clear": parent[i][2] = []; return f"{where} = empty message"
  if len(v) < 2: return f"{where}: unchanged"
  a, b = rng.sample(range(len(v)), 2)
  v[a], v[b] = v[b], v[a]
  return f"{where}: its fields {a} and {b} swapped"

def mutate_onnx(data, rng):
  model, edits = pb_parse(data, "Model"), []
  for _ in range(rng.choice([1, 1, 2, 3])): edits.append(pb_edit(model, rng))
  return pb_encode(model), edits, False

# ---------------------------------------------------------------------------------- cases

def stages(target, inp, npys, device):
  """The commands after the edited artifact, each reading the one before's -o file."""
  out = []
  if target == "onnx": out.append(["tg-trace", inp, "-o", "g.bin"]); inp = "g.bin"
  if target in ("onnx", "graph"): out.append(["tg-schedule", inp, "-o", "s.bin"]); inp = "s.bin"
  if target != "program": out.append(["tg-codegen", "--device", device, inp, "-o", "p.bin"]); inp = "p.bin"
  out.append(["tg-run", "--compile-only", inp])
  if npys: out.append(["tg-run", inp] + [a for n in sorted(npys) for a in ("--in", f"{n}={n}.npy")] + ["-o", "out.npz"])
  return out

def run_case(ctx, target, seeds, n, verbose=False):
  """Case n of target: (stages passed, stages in all, finding dict or None)."""
  rng = random.Random(f"{ctx.seed}:{target}:{n}")
  name, path, npys, seed_device = rng.choice(seeds)
  mutated, edits, touched_src = (mutate_onnx if target == "onnx" else mutate_json)(Path(path).read_bytes(), rng)
  device = seed_device or rng.choice(["CLANG", "CLANG", "CLANG", "LLVM", "GPU"])
  case = ctx.tmp / "case"
  shutil.rmtree(case, ignore_errors=True)
  case.mkdir()
  inp = "model.onnx" if target == "onnx" else "input.json"
  (case / inp).write_bytes(mutated)
  for k, f in npys.items(): shutil.copy(f, case / f"{k}.npy")
  must_compile = target != "program" or not touched_src
  info = dict(target=target, seed_name=name, case=n, edits=edits, input=inp, npys=sorted(npys), commands=[])
  if verbose: print(f"case {n}: seed {name}, device {device}\n  " + "\n  ".join(edits))
  todo = stages(target, inp, npys, device)
  # the whole pipeline, for commands.txt: once fixed, a replay goes past where this case stopped
  info["pipeline"] = [" ".join(map(shell_quote, argv)) for argv in todo]
  if npys and device in HOST: info["pipeline"].append("TG_CHECK_BOUNDS=1 " + info["pipeline"][-1])
  for i, argv in enumerate(todo):
    runs = [({}, argv)]
    while runs:
      env, argv = runs.pop(0)
      out = case / argv[argv.index("-o") + 1] if "-o" in argv else None
      if out and out.exists(): out.unlink()  # what a run before left is not this run's
      rc, err, timed_out = ctx.run(argv, case, env)
      info["commands"].append("".join(f"{k}={v} " for k, v in env.items()) + " ".join(map(shell_quote, argv)))
      if verbose: print(f"$ {info['commands'][-1]}\n  exit {rc}{' (timeout)' if timed_out else ''} {err.strip()[:600]}")
      found = judge(argv[0], rc, err, timed_out, out, must_compile)
      if not found and env and rc != 0 and "TG_CHECK_BOUNDS" in err:
        found = ("bounds", err.strip().split("\n")[0])  # silent by default, caught by the guard pages
      if found:
        info.update(kind=found[0], stderr=err, signature=signature(argv[0], *found))
        return i, len(todo), info
      if rc != 0: return i, len(todo), None
      # A run that passed: again with the guard pages, where they exist (host devices).
      if not env and argv[0] == "tg-run" and "--compile-only" not in argv and device in HOST:
        runs.append(({"TG_CHECK_BOUNDS": "1"}, argv))
  return len(todo), len(todo), None

def shell_quote(a):
  return a if re.fullmatch(r"[\w@%+=:,./-]+", a) else "'" + a.replace("'", "'\\''") + "'"

def save_finding(out_root, info, seed, bindir):
  """OUT/findings/struct-T/HASH/: the input and its .npy files, commands.txt (the pipeline, one
  command a line, what tests/cli/fuzz_regressions.bats replays from tests/fuzz/struct/found/),
  README.txt (edits, commands run, stderr) and repro.sh (the commands run, in a scratch dir)."""
  d = out_root / "findings" / f"struct-{info['target']}" / hashlib.sha1(info["signature"].encode()).hexdigest()[:12]
  if d.exists(): return None
  d.mkdir(parents=True)
  for f in [info["input"]] + [f"{k}.npy" for k in info["npys"]]: shutil.copy(Path(info["case_dir"]) / f, d / f)
  head = [info["signature"], f"seed program {info['seed_name']}; fuzz_struct.py --target {info['target']} "
          f"--seed {seed} --case {info['case']}", "edits (jq, or protobuf fields for onnx):"] + ["  " + e for e in info["edits"]]
  (d / "commands.txt").write_text("\n".join(info["pipeline"]) + "\n")
  (d / "README.txt").write_text("\n".join(head + ["commands:"] + ["  " + c for c in info["commands"]]
                                          + ["stderr of the last:", info["stderr"]]) + "\n")
  (d / "repro.sh").write_text("#!/usr/bin/env bash\n" + "".join(f"# {l}\n" for l in head)
    + "# runs commands.txt in a scratch directory with its own compile cache, tools from $TG_BIN\n"
    + f'here="$(cd "$(dirname "$0")" && pwd)" work="$(mktemp -d)"\nexport PATH="${{TG_BIN:-{bindir}}}:$PATH" '
    + 'TG_CACHE_DIR="$work/cache"\nunset TG_CHECK_BOUNDS\ncp "$here"/* "$work"/ && cd "$work" || exit 1\nset -ex\n'
    + "\n".join(info["commands"]) + "\n")
  (d / "repro.sh").chmod(0o755)
  return d

class Ctx:
  def __init__(self, seed, tmp, run): self.seed, self.tmp, self.run = seed, tmp, run

def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--target", default="all", choices=TARGETS + ("all",), help="what to edit (default: each in turn)")
  ap.add_argument("--seconds", type=float, default=60, help="time per target (default 60)")
  ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock, printed)")
  ap.add_argument("--bin", default=str(ROOT / "build/bin"), help="the tools (default build/bin)")
  ap.add_argument("--out", default=str(ROOT / "build-fuzz"), help="findings go to OUT/findings/struct-TARGET/")
  ap.add_argument("--case", type=int, default=None, help="replay this one case of --target, printing every step")
  a = ap.parse_args()
  seed = a.seed if a.seed is not None else int(time.time()) % 100000
  targets = TARGETS if a.target == "all" else (a.target,)
  bindir = Path(a.bin).resolve()
  if not (bindir / "tg-run").exists(): sys.exit(f"fuzz_struct: no {bindir}/tg-run (make build)")
  tmp = Path(tempfile.mkdtemp(prefix="tg-fuzz-struct-"))
  try:
    ctx = Ctx(seed, tmp, Runner(bindir, tmp))
    seeds = make_seeds(ctx.run, tmp / "seeds", random.Random(seed))
    if a.case is not None:
      info = run_case(ctx, targets[0], seeds[targets[0]], a.case, verbose=True)[2]
      print(f"finding: {info['signature']}" if info else "no finding")
      return 1 if info else 0
    print(f"fuzz_struct: seed {seed}, seeds " + ", ".join(f"{t} {len(seeds[t])}" for t in targets), file=sys.stderr)
    failed = False
    for t in targets:
      start = last = time.time()
      cases = accepted = through = 0
      found = {}  # signature -> count
      while seeds[t] and time.time() - start < a.seconds:
        passed, stage_count, info = run_case(ctx, t, seeds[t], cases)
        cases += 1
        accepted += passed > 0
        through += passed == stage_count
        if info:
          info["case_dir"] = str(tmp / "case")
          if info["signature"] not in found:
            d = save_finding(Path(a.out), info, seed, bindir)
            print(f"  {'new' if d else 'known'} finding: {info['signature']}" + (f"\n    {d}/repro.sh" if d else ""), file=sys.stderr)
          found[info["signature"]] = found.get(info["signature"], 0) + 1
        if time.time() - last >= 30:
          last = time.time()
          print(f"  struct-{t}: {last - start:.0f}s  {cases} cases  {accepted} accepted  {through} ran through  {len(found)} findings", file=sys.stderr)
      print(f"fuzz-{'struct-' + t:<12} {a.seconds:g}s  {cases} executions  accepted {accepted}  ran through {through}  seeds {len(seeds[t])}  findings {len(found)}",
            flush=True)
      failed |= bool(found) or not seeds[t]
    return 1 if failed else 0
  finally:
    shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
  sys.exit(main())
