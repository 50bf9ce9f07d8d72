#!/usr/bin/env python3
"""ONNX conformance: ONNX's backend tests (Debian's libonnx-testdata) through tg: the node tests
and the model-level suites (simple, pytorch-converted, pytorch-operator; named SUITE/test_...).

Each test is a model.onnx and test_data_set_*/input_*.pb / output_*.pb tensors. The runner
converts the inputs to .npy, runs `tg-trace model.onnx | tg-schedule | tg-codegen | tg-run`,
and compares every output with the expected one (dtype, shape, values at ONNX's backend-test
tolerance: rtol 1e-3, atol 1e-7). It prints passed/total and why the others fail.

tests/onnx/passing.txt is the ratchet: a listed test that fails fails the run; a test that
passes but is not listed is reported (add it). --update rewrites the list.
"""
import argparse, collections, concurrent.futures, os, re, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parents[2]
PASSING = ROOT / "tests/onnx/passing.txt"
TINYGRAD_EXCLUDES = ROOT / "tests/onnx/tinygrad_excludes.txt"


DATA = Path("/usr/share/libonnx-testdata/data")
SUITES = ["node", "simple", "pytorch-converted", "pytorch-operator"]  # "real" needs downloads


def test_name(test_dir: Path) -> str:
  """test_abs for a node test; simple/test_sequence_model1 for a model-level one."""
  return test_dir.name if test_dir.parent.name == "node" else f"{test_dir.parent.name}/{test_dir.name}"


def run_test(test_dir: Path, bindir: Path, work: Path):
  """Returns (name, ok, reason)."""
  name = test_name(test_dir)
  model = onnx.load(str(test_dir / "model.onnx"), load_external_data=False)
  inits = {i.name for i in model.graph.initializer}
  in_names = [i.name for i in model.graph.input if i.name not in inits]
  out_names = [o.name for o in model.graph.output]
  data = sorted(test_dir.glob("test_data_set_*"))
  if not data: return name, False, "no test data"
  d = data[0]
  w = work / name.replace("/", "__")
  w.mkdir(parents=True, exist_ok=True)
  files = {}
  for i, n in enumerate(in_names):
    pb = d / f"input_{i}.pb"
    if not pb.exists(): return name, False, "missing input data"
    t = onnx.TensorProto()
    t.ParseFromString(pb.read_bytes())
    np.save(w / f"in{i}.npy", numpy_helper.to_array(t))
    files[n] = f"{w}/in{i}.npy"
  # An input the importer must know while tracing (a shape, axes, pads: "input 'N' must be a
  # constant") is bound with tg-trace --arg N=FILE.npy, as tinygrad's onnx.py reads it with .numpy().
  frozen = set()
  env = dict(os.environ, TG_CACHE_DIR=str(work / "cache"))
  for _ in range(len(files) + 1):
    trace_args = " ".join(f"--arg '{n}={files[n]}'" for n in sorted(frozen))
    run_args = " ".join(f"--in '{n}={f}'" for n, f in files.items() if n not in frozen)
    cmd = (f"{bindir}/tg-trace {test_dir}/model.onnx {trace_args} | {bindir}/tg-schedule | {bindir}/tg-codegen | "
           f"{bindir}/tg-run --out-dir {w}/out {run_args}")
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, env=env, timeout=120)
    if p.returncode == 0: break
    line = next((l for l in p.stderr.splitlines() if l.startswith("tg-")), p.stderr.strip()[:200])
    m = re.search(r"graph input '([^']*)'", line) or re.search(r"input '([^']*)' must be a constant", line)
    if not m or m.group(1) not in files or m.group(1) in frozen: return name, False, line
    frozen.add(m.group(1))
  for i, n in enumerate(out_names):
    t = onnx.TensorProto()
    t.ParseFromString((d / f"output_{i}.pb").read_bytes())
    want = numpy_helper.to_array(t)
    got_file = w / "out" / f"{n}.npy"
    if not got_file.exists(): return name, False, f"output {n} missing"
    got = np.load(got_file)
    if got.dtype != want.dtype: return name, False, f"output {n}: dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape: return name, False, f"output {n}: shape {got.shape}, expected {want.shape}"
    try:
      np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-7)
    except AssertionError:
      return name, False, f"output {n}: values differ"
  return name, True, ""


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--data", action="append", default=[], metavar="DIR",
                  help=f"a suite's folder (repeatable; default: {', '.join(SUITES)} under {DATA})")
  ap.add_argument("--bin", default=str(ROOT / "build/bin"))
  ap.add_argument("-j", type=int, default=2)
  ap.add_argument("-k", action="append", default=[], help="only tests whose name contains this")
  ap.add_argument("--update", action="store_true", help="rewrite tests/onnx/passing.txt")
  ap.add_argument("--failures", help="write each failing test and its reason to this file")
  a = ap.parse_args()
  dirs = [Path(d) for d in a.data] or [DATA / s for s in SUITES]
  tests = sorted((p.parent for d in dirs for p in d.glob("*/model.onnx")), key=test_name)
  if a.k: tests = [t for t in tests if any(k in test_name(t) for k in a.k)]
  if not tests:
    print(f"onnx: no tests under {', '.join(map(str, dirs))} (Debian's libonnx-testdata)"); sys.exit(1)
  listed = set(PASSING.read_text().split()) if PASSING.exists() else set()
  results = {}
  with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.j) as ex:
    futs = {ex.submit(run_test, t, Path(a.bin), Path(tmp)): test_name(t) for t in tests}
    for f in concurrent.futures.as_completed(futs):
      try:
        name, ok, why = f.result()
      except Exception as e:  # a model the onnx package cannot read, a timeout
        name, ok, why = futs[f], False, f"runner: {type(e).__name__}: {e}"
      results[name] = (ok, why)
  passed = sorted(n for n, (ok, _) in results.items() if ok)
  reasons = collections.Counter()
  for n, (ok, why) in results.items():
    if not ok:
      m = re.search(r"\(([A-Za-z]+)\): (.*)", why)  # "node 'n' (Op): why" -> "Op: why"
      reasons[(f"{m.group(1)}: {m.group(2)}" if m else why)[:110]] += 1
  if a.failures:
    Path(a.failures).write_text("".join(f"{n}\t{why}\n" for n, (ok, why) in sorted(results.items()) if not ok))
  regressions = sorted(n for n in listed if n in results and not results[n][0])
  new = sorted(n for n in passed if n not in listed)
  print("onnx: why the others fail (count, first line):")
  for why, c in reasons.most_common(25): print(f"  {c:4d}  {why}")
  for n in regressions: print(f"FAIL {n}: {results[n][1]}")
  if new and not a.update: print(f"onnx: {len(new)} tests pass that tests/onnx/passing.txt does not list (--update adds them)")
  if a.update and not a.k and not a.data:
    PASSING.write_text("".join(n + "\n" for n in passed))
  excludes = [l for l in TINYGRAD_EXCLUDES.read_text().splitlines() if l and not l.startswith("#")]
  tinygrad_runs = [n for n in results if not any(re.search(p, n + "_cpu") for p in excludes)]
  print(f"onnx: of the {len(tinygrad_runs)} tests tinygrad 0.9.1's ONNX backend runs, tg passes "
        f"{sum(results[n][0] for n in tinygrad_runs)}; of the other {len(results) - len(tinygrad_runs)}, "
        f"{sum(results[n][0] for n in results if n not in tinygrad_runs)}")
  print(f"onnx: {len(passed)} passed, {len(regressions)} failed ({len(passed)}/{len(results)} tests pass)")
  sys.exit(1 if regressions else 0)


if __name__ == "__main__":
  main()
