"""A trace's ``time`` is the solver's seconds: the clock starts once the run's code is in memory.

In a process's first traced fit, numba loads each kernel's machine code from its cache (or
compiles it) at the kernel's first call, 11-15 ms a kernel on the project's machine: more than
the epochs of a short run. A run whose clock started before its kernels were loaded counted that
as solver time, and bent the per-second curves of the chapters' races. The test is on the order
of events, not on their duration: in a fresh process, no machine code is loaded between a run's
clock start and its last record, for every solver.
"""

import textwrap

from tests import child

FITS = """
from svmlab import LinearSVM, KernelSVM, LinearSVR, KernelSVR
models = [LinearSVM(solver=s, max_iter=5, trace=True) for s in ("dcd", "sdca", "pegasos", "subgradient",
                                                                "dual_gradient")]
models += [KernelSVM(solver=s, max_iter=5, trace=True, fit_intercept=s != "dcd") for s in ("smo", "dcd", "dual_gradient")]
models += [KernelSVM(solver="smo", max_iter=5, trace=True, n_jobs=2), LinearSVR(max_iter=5, trace=True),
           KernelSVR(max_iter=5, trace=True)]
"""

WATCH = """
import time, warnings
from numba.core.dispatcher import Dispatcher
from svmlab import datasets, trace

loaded = []  # (when, kernel): each time machine code was loaded or compiled for a new signature
compile_ = Dispatcher.compile

def compile(self, sig):
    before = len(self.overloads)
    entry = compile_(self, sig)
    if len(self.overloads) > before:
        loaded.append((time.perf_counter(), self.py_func.__qualname__))
    return entry

Dispatcher.compile = compile
runs = []  # (clock start, its last record) of each traced run
to_trace = trace.Recorder.to_trace

def ended(self, *args, **kwargs):
    runs.append((self.buffers.clock[0], self.buffers.clock[2]))
    return to_trace(self, *args, **kwargs)

trace.Recorder.to_trace = ended
X, y = datasets.make_toy(60)
warnings.simplefilter("ignore")
for model in models:
    model.fit(X, y)
    start, end = runs[-1]
    late = sorted({name for when, name in loaded if start < when < end})
    print(type(model).__name__, model.solver, getattr(model, "n_jobs", 1), "loaded while timed:", late)
"""


def test_no_code_is_loaded_while_a_run_is_timed():
    out = child.run(textwrap.dedent(FITS) + textwrap.dedent(WATCH), timeout=300)
    lines = out.splitlines()
    assert len(lines) == 11, out
    assert all(line.endswith("loaded while timed: []") for line in lines), out
