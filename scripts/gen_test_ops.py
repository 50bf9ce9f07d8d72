#!/usr/bin/env python3
"""Port tinygrad 0.9.1's test/test_ops.py to .tg snippets for the differential runner.

    .venv/bin/python scripts/gen_test_ops.py [--known tests/test_ops/known_failures.txt]

Runs each TestOps method of tests/test_ops/test_ops_0.9.1.py (the file as tinygrad tagged it)
with a stand-in for torch and a recording helper_test_op / helper_test_exception: every call
becomes one snippet in tests/test_ops/snippets/, named METHOD_N. A snippet is the tinygrad
function applied to inputs of the call's shapes, with uniform(low, high) data as the test
makes it, `out` the forward result and, unless the call is forward-only, tg-grad's gradients
of the test's loss (out + 1).square().mean() for every input; tolerances are the call's.
An exception case becomes an error_ snippet: tg must raise what tinygrad raises.

What cannot be a snippet (torch in the tinygrad function, captured values that are not
literals, literal `vals` data, tests that check things themselves) is counted and listed in
tests/test_ops/unsupported.txt with the reason. Names in --known get a `# xfail:` line with
the reason recorded there (the runner then counts them as expected differences, and fails
a snippet that starts to agree).
"""
import argparse, ast, inspect, re, sys, types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tests" / "test_ops" / "test_ops_0.9.1.py"
OUT = ROOT / "tests" / "test_ops" / "snippets"


# cases tinygrad 0.9.1 itself raises on (its test is expected to fail there): tg must raise the
# same, so they are error_ snippets
RAISES_IN_TINYGRAD = {"test_einsum_23"}


class Anything:
  """torch, and whatever torch returns: callable, indexable, any attribute."""
  def __getattr__(self, name): return Anything()
  def __call__(self, *a, **k): return Anything()
  def __getitem__(self, k): return Anything()
  def __iter__(self): return iter(())
  def __bool__(self): return True


class Unsupported(Exception):
  pass


def lambdas_by_position(tree, source):
  out = []
  for node in ast.walk(tree):
    if isinstance(node, ast.Lambda):
      out.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset),
                  ast.get_source_segment(source, node)))
  return out


def literal(v, lambda_source=None):
  """Source text for a captured value: a plain literal, a tinygrad Tensor (its data as a
  literal), a lambda (its source) or a Tensor method."""
  from tinygrad import Tensor
  if isinstance(v, Tensor):
    from tinygrad import dtypes
    names = [k for k, x in vars(dtypes).items() if x == v.dtype and not k.startswith("_")]
    name = next((k for k in names if any(c.isdigit() for c in k) or k == "bool"), names[0])
    return f"Tensor({literal(v.numpy().tolist())}, dtype=dtypes.{name})"
  if callable(v) and getattr(v, "__name__", "") == "<lambda>" and lambda_source is not None:
    return lambda_source(v)
  if callable(v) and getattr(v, "__qualname__", "").startswith("Tensor."):
    return v.__qualname__
  if v is None or isinstance(v, (bool, int, float, str)):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
      return f"float('{v}')"
    return repr(v)
  if isinstance(v, (tuple, list)):
    inner = [literal(x) for x in v]
    if isinstance(v, tuple):
      return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    return "[" + ", ".join(inner) + "]"
  raise Unsupported(f"captures a {type(v).__name__}")


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--known", type=Path, default=ROOT / "tests" / "test_ops" / "known_failures.txt")
  args = ap.parse_args()
  known = {}
  if args.known.exists():
    for line in args.known.read_text().splitlines():
      if line.strip() and not line.startswith("#"):
        name, _, why = line.partition(":")
        known[name.strip()] = why.strip()

  source = SRC.read_text()
  tree = ast.parse(source)
  lams = lambdas_by_position(tree, source)

  def lambda_source(fn):
    pos = [p for p in fn.__code__.co_positions() if p[0] is not None and p[2] is not None and p[3] != p[2]]
    if not pos:
      raise Unsupported("no source position")
    line, _, col, _ = pos[0]
    best = None
    for start, end, text in lams:
      if start <= (line, col) <= end and (best is None or start > best[0]):
        best = (start, end, text)
    if best is None:
      raise Unsupported("lambda source not found")
    return best[2]

  fake_torch = Anything()
  sys.modules["torch"] = fake_torch
  import numpy as np
  ns = {"__name__": "test_ops_port"}
  code = compile(source, str(SRC), "exec")
  records, unsupported = [], []
  current = {"test": None}

  def record(kind, shps, torch_fxn, tinygrad_fxn, **kw):
    # captured loop variables change after the call: keep their values now
    fn = tinygrad_fxn if tinygrad_fxn is not None else torch_fxn
    code = getattr(fn, "__code__", None)
    cells = fn.__closure__ or () if code is not None else ()
    kw["captured"] = []
    for var, cell in zip(code.co_freevars if code is not None else (), cells):
      try:
        kw["captured"].append((var, cell.cell_contents))
      except ValueError:
        kw["captured"].append((var, None))
    records.append((current["test"], kind, shps, torch_fxn, tinygrad_fxn, kw))

  def helper_test_op(shps, torch_fxn, tinygrad_fxn=None, atol=1e-6, rtol=1e-3, grad_atol=1e-4, grad_rtol=1e-3,
                     forward_only=False, vals=None, low=-2, high=2):
    record("op", shps, torch_fxn, tinygrad_fxn, atol=atol, rtol=rtol, grad_atol=grad_atol, grad_rtol=grad_rtol,
           forward_only=forward_only, vals=vals, low=low, high=high)

  exec(code, ns)
  ns["helper_test_op"] = helper_test_op
  TestOps = ns["TestOps"]

  def helper_test_exception(self, shps, torch_fxn, tinygrad_fxn, expected, exact=False, vals=None, low=-1.5, high=1.5):
    record("error", shps, torch_fxn, tinygrad_fxn, vals=vals, low=low, high=high, expected=expected)
  TestOps.helper_test_exception = helper_test_exception

  # A test's own checks compare tinygrad with torch, which is a stand-in here: they must not stop
  # the recording of the helper_test_op calls after them (test_argmax checks first-index ties
  # before its helpers, test_cmp_lt_backwards checks that backward raises).
  def no_check(self, *args, **kwargs):
    return None
  orig_raises = TestOps.assertRaises
  def no_raises_check(self, *args, **kwargs):  # as a context manager it stays unittest's own
    if len(args) >= 2:  # assertRaises(E, fn, ...): run it, whatever it does
      try: args[1](*args[2:], **kwargs)
      except Exception: pass
      return None
    return orig_raises(self, *args, **kwargs)
  for check in ("assertEqual", "assertTrue", "assertFalse", "assertAlmostEqual", "assertIsNone", "assertIsNotNone",
                "assertListEqual", "assertTupleEqual"):
    setattr(TestOps, check, no_check)
  TestOps.assertRaises = no_raises_check
  for check in ("assert_equal", "assert_allclose", "assert_array_equal", "assert_almost_equal"):
    setattr(np.testing, check, lambda *a, **k: None)

  tests = sorted(n for n in dir(TestOps) if n.startswith("test_"))
  for name in tests:
    current["test"] = name
    before = len(records)
    try:
      getattr(TestOps(name), name)()
    except Exception as e:  # the test checks something itself, or needs real torch
      if len(records) == before:
        unsupported.append((name, f"no helper_test_op call recorded ({type(e).__name__})"))
    if len(records) == before and not any(u[0] == name for u in unsupported):
      unsupported.append((name, "checks its results itself"))

  OUT.mkdir(parents=True, exist_ok=True)
  for old in OUT.glob("*.tg"):
    old.unlink()
  counts = {}
  written = 0
  for test, kind, shps, torch_fxn, tinygrad_fxn, kw in records:
    n = counts[test] = counts.get(test, -1) + 1
    stem = f"{test}_{n}"
    raises = kind == "error" or stem in RAISES_IN_TINYGRAD
    if raises:
      stem = "error_" + stem
    try:
      fn = tinygrad_fxn if tinygrad_fxn is not None else torch_fxn
      if not callable(fn) or isinstance(fn, Anything):
        raise Unsupported("no tinygrad function")
      if getattr(fn, "__name__", "") == "<lambda>":
        text = lambda_source(fn)
      elif getattr(fn, "__qualname__", "").startswith("Tensor."):
        text = fn.__qualname__  # a method passed as is: Tensor.abs
      else:
        raise Unsupported(f"function {getattr(fn, '__qualname__', fn)!r}")
      if "torch" in text:
        raise Unsupported("the function uses torch")
      vals = kw.get("vals")
      if vals is not None:
        shps = [np.array(v).shape for v in vals]
      if shps is None:
        raise Unsupported("no shapes")
      lines = [f"# test_ops.py {test} (case {n}), tinygrad 0.9.1"]
      if kind == "op":
        lines.append(f"# tol: atol={max(kw['atol'], kw['grad_atol'] if not kw['forward_only'] else 0):g} "
                     f"rtol={max(kw['rtol'], kw['grad_rtol'] if not kw['forward_only'] else 0):g}")
      names = [f"x{i}" for i in range(len(shps))]
      dtypes_of = {}
      if vals is not None:
        # torch.tensor(vals) picks the dtype: bool, int64 or float32; tinygrad gets that array
        for nm, v in zip(names, vals):
          arr = np.array(v)
          dt = {"b": "bool", "i": "int64", "u": "int64"}.get(arr.dtype.kind, "float32")
          dtypes_of[nm] = dt
          lines.append(f"# value: {nm} = {literal(arr.astype(dt).tolist())}")
      else:
        lines.append(f"# data: uniform {kw['low']:g} {kw['high']:g}")
      grads = kind == "op" and not raises and not kw["forward_only"] and len(shps) > 0 and \
          all(dtypes_of.get(nm, "float32") == "float32" for nm in names)
      if grads:
        lines.append(f"# tg-grad: --wrt {','.join(names)} --loss loss")
      if stem in known:
        lines.append(f"# xfail: {known[stem]}")
      for var, val in kw["captured"]:
        lines.append(f"{var} = {literal(val, lambda_source)}")
      for nm, shp in zip(names, shps):
        shape = literal(tuple(shp) if isinstance(shp, (list, tuple)) else (shp,))
        dt = dtypes_of.get(nm, "float32")
        lines.append(f"{nm} = input({nm!r}, {shape}" + ("" if dt == "float32" else f", dtypes.{dt}") + ")")
      if any(word in text for word in ("rand", "multinomial", "dropout")):
        lines.append("Tensor.manual_seed(0)")  # the test's draws are unseeded; both sides seed alike
      lines.append(f"fn = {text}")
      lines.append(f"out = fn({', '.join(names)})")
      lines.append("output(\"out\", out)")
      if grads:
        lines.append("loss = (out + 1).square().mean()")
        lines.append("output(\"loss\", loss)")
      (OUT / f"{stem}.tg").write_text("\n".join(lines) + "\n")
      written += 1
    except Unsupported as e:
      unsupported.append((stem, str(e)))
  (ROOT / "tests" / "test_ops" / "unsupported.txt").write_text(
      "# test_ops.py cases the port does not run, with the reason (scripts/gen_test_ops.py)\n" +
      "".join(f"{name}: {why}\n" for name, why in unsupported))
  print(f"gen_test_ops: {written} snippets from {len(tests)} test functions; {len(unsupported)} cases unsupported")


if __name__ == "__main__":
  main()
