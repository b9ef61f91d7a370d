"""Compile time: the first fit of each solver, cold (empty numba cache) and warm (cache filled).

Run from the repository root:  python -m benchmarks.bench_compile [--quick] [--only smo,dcd]

Each cold fit runs in a fresh Python process with an empty, private NUMBA_CACHE_DIR, so that
every kernel it needs is compiled; the warm fit then runs in another fresh process on the cache
the cold one filled (it loads the kernels from disk). A fit is toy data (200 x 2), max_iter=5.
The target of issue 14: every solver's cold first fit <= 5 s, all eight together <= 30 s.

Besides the times, each cold process records numba's compile events (``numba:compile``): the
number of compiled functions and signatures, and the functions that took longest, so that the
time can be cut where it goes; and how much of the fit was spent in LLVM (its optimisation and
machine code: numba's ``numba:llvm_lock`` timer). The rest is numba's own work in Python (typing,
inlining, lowering to LLVM's IR), which only fewer and smaller compiled functions cut; of it, the
table shows the inlining of ``inline="always"`` functions, which copies and translates the callee
again at every call site (timed around numba's ``InlineWorker.inline_function``: numba has no
event for it). A last row times numba's own start-up (its first compilation in a fresh process,
of a function of one line), which every cold fit includes. ``--quick`` skips the warm runs and the
per-function listing. The table is printed and written to ``benchmarks/results/compile.md``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from tqdm import tqdm

from benchmarks.report import write_markdown

SOLVERS = {"LinearSVM dcd": ("LinearSVM", "dcd"), "subgradient": ("LinearSVM", "subgradient"),
           "dual_gradient": ("LinearSVM", "dual_gradient"), "sdca": ("LinearSVM", "sdca"),
           "pegasos": ("LinearSVM", "pegasos"), "KernelSVM smo": ("KernelSVM", "smo"),
           "KernelSVM dcd": ("KernelSVM", "dcd"), "KernelSVM dual_gradient": ("KernelSVM", "dual_gradient")}

# What runs in the fresh process: import, one fit, the compile events as JSON on the last line.
CHILD = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
import numba
from numba.core import event
from numba.core.inline_closurecall import InlineWorker
import svmlab
from svmlab import datasets
t_import = time.perf_counter() - t0
estimator, solver = sys.argv[1], sys.argv[2]
X, y = datasets.make_toy(200)
model = getattr(svmlab, estimator)(solver=solver, max_iter=5, fit_intercept=solver != "dcd" or estimator == "LinearSVM")
in_llvm = []
inlining, depth = [0.0], [0]
inline = InlineWorker.inline_function
def timed_inline(*args, **kwargs):  # numba's inlining of an inline="always" call (it has no event)
    depth[0] += 1
    t = time.perf_counter()
    try:
        return inline(*args, **kwargs)
    finally:
        depth[0] -= 1
        inlining[0] += (time.perf_counter() - t) if depth[0] == 0 else 0.0
InlineWorker.inline_function = timed_inline
with event.install_recorder("numba:compile") as rec, event.install_timer("numba:llvm_lock", in_llvm.append), \
        warnings.catch_warnings():
    warnings.simplefilter("ignore")
    t1 = time.perf_counter()
    model.fit(X, y)
    t_fit = time.perf_counter() - t1
starts = {}
compiled = []
for ts, ev in rec.buffer:
    key = (ev.data["dispatcher"].py_func.__module__ + "." + ev.data["dispatcher"].py_func.__qualname__,
           str(ev.data["args"]))
    if ev.is_start:
        starts[key] = ts
    else:
        compiled.append((key[0], key[1], ts - starts.pop(key, ts)))
print(json.dumps(dict(import_s=t_import, fit_s=t_fit, llvm_s=sum(in_llvm), inline_s=inlining[0], compiled=compiled)))
"""


# numba's own start-up, which every cold first fit above includes: the first compilation in a fresh
# process (its type registries and LLVM are set up then), of a function of one line
FIRST = r"""
import time
import numpy as np
from numba import njit
t0 = time.perf_counter()
njit(lambda a: a.sum())(np.ones(3))
print(time.perf_counter() - t0)
"""


def numba_start_up():
    """Seconds of numba's first compilation in a fresh process (:data:`FIRST`)."""
    out = subprocess.run([sys.executable, "-c", FIRST], check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def first_fit(estimator, solver, cache_dir):
    """Import and first-fit seconds of one solver in a fresh process, and its compile events."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", CHILD, estimator, solver], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def signatures(compiled):
    """Per compiled function, the number of signatures compiled for it."""
    per = {}
    for name, _, _ in compiled:
        per[name] = per.get(name, 0) + 1
    return per


def main(quick, only):
    names = [n for n in SOLVERS if not only or any(o == n or n.endswith(" " + o) or n == o for o in only)]
    rows, details = [], []
    total_cold = total_llvm = total_inline = 0.0
    for name in tqdm(names, desc="first fits", unit="solver"):
        estimator, solver = SOLVERS[name]
        with tempfile.TemporaryDirectory(prefix="svmlab-bench-compile-") as cache:
            cold = first_fit(estimator, solver, cache)
            warm = None if quick else first_fit(estimator, solver, cache)
        total_cold += cold["fit_s"]
        total_llvm += cold["llvm_s"]
        total_inline += cold["inline_s"]
        per = signatures(cold["compiled"])
        rows.append([name, f"{cold['fit_s']:.1f} s", f"{cold['llvm_s']:.1f} s", f"{cold['inline_s']:.1f} s",
                     "-" if warm is None else f"{warm['fit_s']:.2f} s",
                     str(len(per)), str(len(cold["compiled"])), "yes" if cold["fit_s"] <= 5 else "NO"])
        details.append((name, sorted(cold["compiled"], key=lambda c: -c[2])[:8]))
    met = "-" if len(names) < len(SOLVERS) else "yes" if total_cold <= 30 else "NO"  # the target is for all eight
    rows.append(["all together", f"{total_cold:.1f} s", f"{total_llvm:.1f} s", f"{total_inline:.1f} s", "", "", "",
                 met])
    rows.append(["(numba's start-up, in each of the above)", f"{numba_start_up():.1f} s", "", "", "", "", "", ""])
    header = ["solver", "first fit, cold", "of which in LLVM", "of which inlining", "warm", "functions", "signatures",
              "<= 5 s"]
    sections = [("First fit of each solver (toy 200 x 2, max_iter=5), fresh process", header, rows)]
    if not quick:
        for name, top in details:
            sections.append((f"{name}: slowest compilations (seconds include callees compiled for the first time)",
                             ["function", "signature", "s"],
                             [[f, (s[:70] + "...") if len(s) > 70 else s, f"{t:.2f}"] for f, s, t in top]))
    write_markdown("compile", __doc__.splitlines()[0], sections)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="cold fits only, no per-function listing")
    parser.add_argument("--only", default="", help="comma-separated solver names, e.g. smo,sdca")
    args = parser.parse_args()
    main(args.quick, [o for o in args.only.split(",") if o])
