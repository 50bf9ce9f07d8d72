#!/usr/bin/env python3
"""Differential tests: every tests/diff/snippets/*.tg runs in tinygrad 0.9.1 (the oracle) and
through the tg pipeline, and the two must agree.

    .venv/bin/python tests/diff/run.py [-k PATTERN] [-j N] [--oracle-only] [-v]

Phase 1 (oracle) runs every selected snippet in ONE Python process with tinygrad 0.9.1
(CLANG device; its default random generator, or THREEFRY=1 for a snippet with a `# threefry` line). `input(name, shape, dtype)` makes deterministic data seeded by
the name and saves it as NAME.npy in the snippet's work dir; `output(name, t)` records
t.numpy(); with no output() call the last top-level expression statement's value is the
output "out"; an exception records its type name, message and the snippet line.

Phase 2 runs tg-trace SNIPPET | tg-schedule | tg-codegen --device DEVICE |
tg-run --in NAME=NAME.npy ... --out-dir out/ for each snippet (-j N at once) and compares
output names, shapes, dtypes and values (floats: allclose, atol=1e-6 rtol=1e-5 unless the
snippet says `# tol: atol=.. rtol=..`; float16 defaults to 1e-3/1e-3; ints and bools
exactly), or for a snippet that raises, the exception type, message and line that tg-trace
prints as `tg-trace: FILE:LINE: Type: message`.

A snippet with a header `# tg-grad: --wrt x[,y] [--loss NAME]` is piped through tg-grad with
those flags after tg-trace; the oracle makes those inputs with requires_grad=True, calls
backward() on the variable NAME (else the last expression) and records each input's .grad as
the output grad_NAME.

A snippet with `# setup: PYTHON` header lines (joined in order) runs that code first, before
both sides, with `np`, `Tensor`, `dtypes`, `nn` and `work` (the snippet's work dir, a str) in
scope: it makes files the snippet reads, e.g. a .safetensors written by the `safetensors`
package. Every snippet sees `args = {"work": WORKDIR}` (tg-trace gets `--arg work=WORKDIR`).

Snippets whose name starts with `error_` must raise in tinygrad; all others must not.
Prints one line per failing snippet, then `diff: N passed, N failed`. Exit status 1 when
anything failed. See docs/testing.md.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "tests" / "diff" / "snippets"  # --snippets DIR: another folder of them
DEFAULT_TOL = {"float16": (1e-3, 1e-3)}  # dtype name -> (atol, rtol); others below
FLOAT_TOL = (1e-6, 1e-5)
PIPELINE_TIMEOUT_S = float(os.environ.get("TG_DIFF_TIMEOUT", "120"))  # per snippet, all four stages

# tinygrad reads these when it is imported. Its device switches are plain environment names
# (PYTHON, GPU, LLVM, ...) that build tools also use for other things (make's PYTHON=path), so
# every one but CLANG is dropped: the oracle always runs tinygrad's CLANG device.
for _dev in ("PYTHON", "GPU", "LLVM", "CUDA", "NV", "AMD", "METAL", "HSA", "QCOM", "DISK", "NPY"):
    os.environ.pop(_dev, None)
# Random numbers come from tinygrad's default generator (numpy's default_rng) unless a snippet
# has a `# threefry` header: then both sides run with THREEFRY=1.
os.environ.pop("THREEFRY", None)
os.environ["CLANG"] = "1"
# tg-run puts every host buffer against a guard page: a kernel that reads or writes outside its
# buffers fails its snippet with a report instead of passing by luck (TG_CHECK_BOUNDS=0: off).
os.environ.setdefault("TG_CHECK_BOUNDS", "1")


@dataclass
class OracleResult:
    outputs: dict = field(default_factory=dict)  # name -> np.ndarray, in output order
    inputs: list = field(default_factory=list)  # input names, in declaration order
    error: tuple | None = None  # (type name, message, line or None)
    harness_error: str | None = None  # the snippet itself is broken


@dataclass
class Snippet:
    name: str
    path: Path
    work: Path
    tol: tuple | None
    expect_error: bool
    grad_args: list | None = None  # `# tg-grad: FLAGS`: piped through tg-grad with FLAGS
    setup: str | None = None  # `# setup: PYTHON` lines: run before both sides
    threefry: bool = False  # `# threefry`: THREEFRY=1 on both sides
    uniform: tuple | None = None  # `# data: uniform LOW HIGH`: float inputs in [LOW, HIGH)
    values: dict = field(default_factory=dict)  # `# value: NAME = LITERAL`: that input's data


def parse_setup(text: str):
    lines = re.findall(r"^#\s*setup:\s?(.*)$", text, re.M)
    return "\n".join(lines) if lines else None


def parse_grad_args(text: str):
    m = re.search(r"^#\s*tg-grad:\s*(.*)$", text, re.M)
    return m.group(1).split() if m else None


def grad_flag(args: list, flag: str):
    """The value of --FLAG V or --FLAG=V in a `# tg-grad:` header, or None."""
    for k, a in enumerate(args):
        if a == flag and k + 1 < len(args):
            return args[k + 1]
        if a.startswith(flag + "="):
            return a[len(flag) + 1:]
    return None


def parse_uniform(text: str):
    m = re.search(r"^#\s*data:\s*uniform\s+(\S+)\s+(\S+)\s*$", text, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def parse_values(text: str):
    # literals, where float('inf') / float('nan') may stand for a number
    env = {"__builtins__": {}, "float": float}
    return {m.group(1): eval(m.group(2), env)
            for m in re.finditer(r"^#\s*value:\s*(\w+)\s*=\s*(.*)$", text, re.M)}


def parse_tol(text: str):
    m = re.search(r"^#\s*tol:\s*(.*)$", text, re.M)
    if not m:
        return None
    vals = dict(re.findall(r"(atol|rtol)\s*=\s*([0-9.eE+-]+)", m.group(1)))
    return float(vals.get("atol", FLOAT_TOL[0])), float(vals.get("rtol", FLOAT_TOL[1]))


def select(patterns: list[str]) -> list[Path]:
    paths = sorted(SNIPPETS.glob("*.tg"))
    if not patterns:
        return paths
    def hit(p: Path):
        for pat in patterns:
            if any(c in pat for c in "*?["):
                if fnmatch.fnmatch(p.stem, pat):
                    return True
            elif pat in p.stem:
                return True
        return False
    return [p for p in paths if hit(p)]


# ---------------------------------------------------------------------------------- oracle

def make_input_data(np, name: str, shape, dtype, snip=None):
    """Deterministic data for input(name, shape, dtype): seeded by the name alone; a snippet's
    `# value: NAME = LITERAL` gives it literally, `# data: uniform LOW HIGH` floats in that range."""
    if dtype.fmt is None:
        raise _Harness(f"input({name!r}): numpy has no dtype for {dtype}")
    dtype_name = np.dtype(dtype.fmt).name
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if snip is not None and name in snip.values:
        data = np.array(snip.values[name]).astype(dtype_name)
        if data.shape != shape:
            raise _Harness(f"input({name!r}): # value has shape {data.shape}, not {shape}")
        return data
    if snip is not None and snip.uniform is not None and dtype_name in ("float16", "float32", "float64"):
        return rng.uniform(snip.uniform[0], snip.uniform[1], size=shape).astype(dtype_name)
    if dtype_name == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype_name.startswith("uint"):
        return rng.integers(0, 20, size=shape).astype(dtype_name)
    if dtype_name.startswith("int"):
        return rng.integers(-10, 10, size=shape).astype(dtype_name)
    if dtype_name in ("float16", "float32", "float64"):
        return rng.standard_normal(size=shape).astype(dtype_name)
    raise _Harness(f"input({name!r}): no data for dtype {dtype_name}")


class _LastExpr(ast.NodeTransformer):
    """Wraps each top-level expression statement `e` as `__tg_expr__(e)`."""

    def visit_Module(self, node):
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, ast.Expr):
                call = ast.Call(ast.Name("__tg_expr__", ast.Load()), [stmt.value], [])
                node.body[i] = ast.copy_location(ast.Expr(ast.copy_location(call, stmt.value)), stmt)
        return ast.fix_missing_locations(node)


def run_oracle(snip: Snippet) -> OracleResult:
    import numpy as np
    from tinygrad import Tensor, dtypes, nn
    import math

    res = OracleResult()
    last = []
    made = {}  # input name -> its Tensor

    from tinygrad.shape.symbolic import Node, Variable, sym_infer

    def at_values(shape):
        # a symbolic dimension (Variable("i", 1, 10).bind(3)) at the values its variables are bound to
        return tuple(sym_infer(d, {v: v.val for v in d.vars()}) if isinstance(d, Node) else d for d in shape)

    def to_numpy(t, what):
        if not isinstance(t, Tensor):
            raise _Harness(f"{what} is a {type(t).__name__}, not a Tensor")
        # tinygrad reads a symbolic tensor back as its tests do: reshaped to the bound values (tg's
        # tg-run evaluates the shape at them)
        return t.reshape(at_values(t.shape)).numpy() if any(isinstance(d, Node) for d in t.shape) else t.numpy()

    def input_(name, shape, dtype=dtypes.float32, requires_grad=False):
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        data = make_input_data(np, name, at_values(shape), dtype, snip)
        np.save(snip.work / f"{name}.npy", data)
        res.inputs.append(name)
        wrt = (grad_flag(snip.grad_args, "--wrt") or "").split(",") if snip.grad_args is not None else []
        t = made[name] = Tensor(data, dtype=dtype, requires_grad=True if name in wrt else requires_grad)
        # an input of a symbolic shape is its data reshaped to it, as tinygrad's symbolic tests do
        return t.reshape(shape) if any(isinstance(d, Node) for d in shape) else t

    def output(name, t):
        res.outputs[name] = to_numpy(t, f"output {name!r}")

    def expr(v):
        last[:] = [v]
        return v

    def state(name_or_dict, tensor=None):
        # tg's state(): realize() under a name; the name only matters to tg-run's state files
        ts = list(name_or_dict.values()) if isinstance(name_or_dict, dict) else [tensor]
        for t in ts:
            t.realize()
        return None if isinstance(name_or_dict, dict) else tensor

    if snip.setup is not None:
        try:
            exec(compile(snip.setup, f"{snip.path} (setup)", "exec"),
                 {"np": np, "Tensor": Tensor, "dtypes": dtypes, "nn": nn, "work": str(snip.work)})
        except Exception as e:
            res.harness_error = f"setup failed: {type(e).__name__}: {e}"
            return res

    src = snip.path.read_text()
    try:
        code = compile(_LastExpr().visit(ast.parse(src, str(snip.path))), str(snip.path), "exec")
    except SyntaxError as e:
        res.harness_error = f"not valid Python: {e}"
        return res
    env = {"Tensor": Tensor, "dtypes": dtypes, "nn": nn, "math": math, "Variable": Variable, "input": input_, "args": {"work": str(snip.work)},
           "output": output, "state": state, "__tg_expr__": expr, "__name__": "__tg__"}
    Tensor.training = False
    Tensor.no_grad = False
    from tinygrad.helpers import THREEFRY
    THREEFRY.value = int(snip.threefry)  # tensor.py reads it on each rand()
    try:
        exec(code, env)
        if not res.outputs:
            if not last:
                raise _Harness("no output() call and no expression statement")
            res.outputs["out"] = to_numpy(last[0], "the last expression")
    except _Harness as e:
        res.harness_error = str(e)
    except Exception as e:  # the snippet's own error: what tg must reproduce
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == str(snip.path):
                line = frame.lineno
        res.error = (type(e).__name__, str(e), line)
        res.outputs = {}
        return res
    if snip.grad_args is not None and not res.error:
        # what tg-grad adds: d loss / d NAME from tinygrad's backward(), as grad_NAME
        try:
            loss_name = grad_flag(snip.grad_args, "--loss")
            wrt = (grad_flag(snip.grad_args, "--wrt") or "").split(",")
            loss = env[loss_name] if loss_name else last[0]
            tensors = {}
            for name in wrt:
                t = made.get(name)
                if t is None:
                    raise _Harness(f"tg-grad: no input {name!r} in the snippet")
                tensors[name] = t
            loss.backward()
            for name, t in tensors.items():
                if t.grad is None:
                    raise _Harness(f"tg-grad: input {name!r} has no gradient in tinygrad")
                res.outputs[f"grad_{name}"] = t.grad.numpy()
        except _Harness as e:
            res.harness_error = str(e)
        except Exception as e:
            res.harness_error = f"backward() in tinygrad: {type(e).__name__}: {e}"
    return res


class _Harness(Exception):
    pass


# -------------------------------------------------------------------------------------- tg

# An empty message prints as Python does: the type alone ("AssertionError").
TG_ERROR = re.compile(r"^tg-trace: .*?:(\d+): ([A-Za-z_][A-Za-z0-9_.]*)(?:: (.*))?$", re.S)


@dataclass(frozen=True)
class Target:
    """Where tg runs a snippet: a device, and whether tg-run only compiles (no outputs to compare)."""
    device: str = "CLANG"
    compile_only: bool = False

    @staticmethod
    def parse(text: str) -> "Target":  # "LLVM", or "CUDA:compile"
        name, _, mode = text.partition(":")
        if mode not in ("", "compile"):
            raise SystemExit(f"diff: bad --device entry {text!r} (NAME or NAME:compile)")
        return Target(name, mode == "compile")

    def __str__(self) -> str:
        return self.device + (":compile" if self.compile_only else "")


def run_pipeline(snip: Snippet, oracle: OracleResult, bindir: Path, target: Target):
    """Returns (per-stage (name, returncode, stderr) list, out dir)."""
    out = snip.work / ("out" if target == Target() else f"out-{target.device}")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    ins = []
    for name in oracle.inputs:
        ins += ["--in", f"{name}={snip.work / (name + '.npy')}"]
    stages = [
        ("tg-trace", [str(bindir / "tg-trace"), str(snip.path.relative_to(ROOT) if snip.path.is_relative_to(ROOT)
                                                    else snip.path), "--arg", f"work={snip.work}"]),
        *([("tg-grad", [str(bindir / "tg-grad"), *snip.grad_args])] if snip.grad_args is not None else []),
        ("tg-schedule", [str(bindir / "tg-schedule")]),
        ("tg-codegen", [str(bindir / "tg-codegen"), "--device", target.device]),
        ("tg-run", [str(bindir / "tg-run"), "--compile-only"] if target.compile_only else
         [str(bindir / "tg-run"), *ins, "--out-dir", str(out)]),
    ]
    env = dict(os.environ)
    if snip.threefry:
        env["THREEFRY"] = "1"
    env.setdefault("TG_CACHE_DIR", str(ROOT / "build" / "diff" / "cache"))
    procs, errs = [], []
    prev = subprocess.DEVNULL
    try:
        for name, argv in stages:
            err = tempfile.TemporaryFile()
            p = subprocess.Popen(argv, stdin=prev, stdout=subprocess.PIPE if name != "tg-run" else subprocess.DEVNULL,
                                 stderr=err, cwd=ROOT, env=env)
            if prev is not subprocess.DEVNULL:
                prev.close()  # the next stage owns it now
            prev = p.stdout if p.stdout is not None else subprocess.DEVNULL
            procs.append((name, p))
            errs.append(err)
    except OSError as e:
        for _, p in procs:
            p.kill()
        return [(stages[len(procs)][0], 127, f"cannot start: {e}")], out
    results = []
    deadline = time.monotonic() + PIPELINE_TIMEOUT_S
    for (name, p), err in zip(procs, errs):
        try:
            rc = p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for _, q in procs:
                q.kill()
            p.wait()
            rc = f"timeout after {PIPELINE_TIMEOUT_S:g}s"
        err.seek(0)
        results.append((name, rc, err.read().decode(errors="replace")))
        err.close()
    (out.parent / f"stderr-{target.device}.txt").write_text("".join(f"== {n} (rc={rc})\n{e}" for n, rc, e in results))
    return results, out


def first_line(text: str) -> str:
    text = text.strip()
    return text.splitlines()[0] if text else "(no message)"


def compare(snip: Snippet, oracle: OracleResult, bindir: Path, target: Target) -> str | None:
    """Runs tg on the snippet; returns None when it agrees with the oracle, else the reason."""
    import numpy as np

    stages, out = run_pipeline(snip, oracle, bindir, target)
    failed = next(((n, rc, e) for n, rc, e in stages if rc != 0), None)
    if target.compile_only:  # the snippet's kernels must compile; a snippet meant to raise is the front end's
        if oracle.error or failed is None:
            return None
        return f"{failed[0]} failed (rc={failed[1]}): {first_line(failed[2])}"

    if oracle.error:
        etype, emsg, eline = oracle.error
        want = f"{etype}: {emsg}" + (f" (line {eline})" if eline else "")
        if failed is None:
            return f"tinygrad raises {want}; tg succeeded"
        name, rc, err = failed
        # (after a traceback, the error is the line that starts with the tool's name)
        text = err.strip()
        text = text[text.find("tg-trace: "):] if "tg-trace: " in text else text
        m = TG_ERROR.match(text) if name == "tg-trace" else None
        if not m:
            return f"tinygrad raises {want}; {name} exited {rc}: {first_line(err)}"
        got_line, got_type, got_msg = int(m.group(1)), m.group(2), (m.group(3) or "").strip()
        if (got_type, got_msg) != (etype, emsg.strip()):
            return f"tinygrad raises {etype}: {emsg}; tg-trace says {got_type}: {got_msg}"
        if eline is not None and got_line != eline:
            return f"error on line {got_line}, tinygrad's is on line {eline}"
        if rc != 1:
            return f"tg-trace exited {rc} on a script error, expected 1"
        return None

    if failed is not None:
        name, rc, err = failed
        return f"{name} {'exited ' + str(rc) if isinstance(rc, int) else rc}: {first_line(err)}"
    got_names = sorted(p.stem for p in out.glob("*.npy"))
    want_names = sorted(oracle.outputs)
    if got_names != want_names:
        return f"outputs {got_names}, tinygrad has {want_names}"
    for name in want_names:
        want = oracle.outputs[name]
        try:
            got = np.load(out / f"{name}.npy", allow_pickle=False)
        except Exception as e:
            return f"{name}: unreadable {name}.npy: {e}"
        if got.shape != want.shape:
            return f"{name}: shape {got.shape}, tinygrad {want.shape}"
        if got.dtype != want.dtype:
            return f"{name}: dtype {got.dtype}, tinygrad {want.dtype}"
        if np.issubdtype(want.dtype, np.floating):
            atol, rtol = snip.tol or DEFAULT_TOL.get(want.dtype.name, FLOAT_TOL)
            close = np.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
            if not close.all():
                bad = int((~close).sum())
                idx = tuple(int(i) for i in np.argwhere(~close)[0])
                return (f"{name}: {bad}/{want.size} values differ beyond atol={atol:g} rtol={rtol:g}, "
                        f"first at {idx}: tg {got[idx]}, tinygrad {want[idx]}")
        elif not np.array_equal(got, want):
            bad = int((got != want).sum())
            idx = tuple(int(i) for i in np.argwhere(got != want)[0])
            return f"{name}: {bad}/{want.size} values differ, first at {idx}: tg {got[idx]}, tinygrad {want[idx]}"
    return None


# ------------------------------------------------------------------------------------ main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", action="append", default=[], metavar="PATTERN",
                    help="only snippets whose name contains PATTERN (or matches it as a glob); repeatable")
    ap.add_argument("-j", type=int, default=2, metavar="N", help="tg pipelines to run at once (default 2)")
    ap.add_argument("--oracle-only", action="store_true", help="only check that every snippet runs in tinygrad")
    ap.add_argument("--snippets", type=Path, default=None, metavar="DIR",
                    help="run the snippets in DIR (default tests/diff/snippets), e.g. tests/test_ops/snippets")
    ap.add_argument("--bin", type=Path, default=ROOT / "build" / "bin", help="where the tg tools are")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "diff", help="work dirs (default build/diff)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print a line for passing snippets too")
    ap.add_argument("--device", default=os.environ.get("TG_DEVICE", "CLANG"), metavar="LIST",
                    help="devices tg runs every snippet on, comma-separated; NAME:compile only compiles its "
                         "kernels there (tg-run --compile-only); default $TG_DEVICE or CLANG")
    args = ap.parse_args(argv)
    targets = [Target.parse(t) for t in args.device.split(",") if t]
    if args.snippets is not None:
        global SNIPPETS
        SNIPPETS = args.snippets.resolve()

    paths = select(args.k)
    if not paths:
        print(f"diff: no snippet matches {args.k}", file=sys.stderr)
        print("diff: 0 passed, 0 failed")
        return 1

    snippets = []
    for p in paths:
        work = args.work / p.stem
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        text = p.read_text()
        snippets.append(Snippet(p.stem, p, work, parse_tol(text), p.stem.startswith("error_"), parse_grad_args(text),
                                parse_setup(text), re.search(r"^#\s*threefry\s*$", text, re.M) is not None,
                                parse_uniform(text), parse_values(text)))

    failures: dict[str, str] = {}
    oracle: dict[str, OracleResult] = {}
    for s in snippets:
        r = oracle[s.name] = run_oracle(s)
        if r.harness_error:
            failures[s.name] = f"harness: {r.harness_error}"
        elif s.expect_error and not r.error:
            failures[s.name] = "harness: an error_ snippet that tinygrad runs without raising"
        elif not s.expect_error and r.error:
            failures[s.name] = f"harness: tinygrad raised {r.error[0]}: {r.error[1]} (name it error_* if meant)"
        elif args.verbose and args.oracle_only:
            what = f"raises {r.error[0]}: {r.error[1]}" if r.error else \
                ", ".join(f"{k}{tuple(v.shape)}:{v.dtype}" for k, v in r.outputs.items())
            print(f"ok   {s.name}: {what}")

    # Every (snippet, target) is one test; a failed oracle fails the snippet on every target.
    results: dict[tuple[str, Target], str | None] = {}
    for s in snippets:
        for t in targets:
            results[(s.name, t)] = failures.get(s.name)
    if not args.oracle_only:
        todo = [(s, t) for s in snippets if s.name not in failures for t in targets]
        with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
            for (s, t), reason in zip(todo, pool.map(lambda st: compare(st[0], oracle[st[0].name], args.bin, st[1]),
                                                     todo)):
                results[(s.name, t)] = reason
                if args.verbose and not reason:
                    print(f"ok   {s.name} [{t}]")

    # A snippet marked `# xfail: REASON` documents a known difference from tinygrad: it counts
    # as passing only while it still differs, so a fix (or a regression) is noticed. Compile-only
    # targets compare nothing, so the mark does not apply there.
    xfails = 0
    for s in snippets:
        reason = re.search(r"^#\s*xfail:\s*(.*)$", s.path.read_text(), re.M)
        if not reason or args.oracle_only:
            continue
        for t in targets:
            if t.compile_only:
                continue
            if results[(s.name, t)]:
                xfails += 1
                print(f"xfail {s.name} [{t}]: {reason.group(1).strip()} ({results[(s.name, t)]})")
                results[(s.name, t)] = None
            else:
                results[(s.name, t)] = "marked xfail but now agrees with tinygrad: remove the mark"
    for (name, t), reason in results.items():
        if reason:
            print(f"FAIL {name} [{t}]: {reason}")
    if len(targets) > 1:
        for t in targets:
            bad = sum(1 for (n, u), r in results.items() if u == t and r)
            print(f"diff [{t}]: {len(snippets) - bad} passed, {bad} failed")
    failed = sum(1 for r in results.values() if r)
    passed = len(results) - failed
    where = "" if targets == [Target()] else " on " + ", ".join(map(str, targets))
    print(f"diff: {passed} passed, {failed} failed" + (f" ({xfails} expected differences)" if xfails else "") + where)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
