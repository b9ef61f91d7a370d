"""svmlab/jit.py's rules. A kernel compiled without a Python entry point (``@inner``) is called only
by compiled code: a call from Python would crash the interpreter instead of raising, so a test
reads the sources and finds no Python-level code of svmlab naming an ``@inner`` kernel. The
kernels compiled without reference counting, and the functions under them, free what they
allocate. Python's garbage collector waits while numba compiles a kernel of svmlab, and only then."""

import ast
import gc
import pathlib

import numba
import pytest
from numba.core import event
from numba.core.runtime import _nrt_python, rtsys

import svmlab
from svmlab import datasets, jit  # noqa: F401 - jit registers its listener of numba's compilations

PACKAGE = pathlib.Path(svmlab.__file__).parent
COMPILED = {"njit", "inner", "without_refcounts", "overload", "intrinsic"}  # decorators whose functions numba compiles


def _decorator_names(node):
    names = set()
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _inner_kernels(tree):
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and "inner" in _decorator_names(node)}


def _python_level_names(tree):
    """The names read by code that runs in Python: everything outside compiled functions (an
    overload's implementations, its nested lambdas, are compiled too)."""
    found = []

    def visit(node, compiled):
        if isinstance(node, ast.FunctionDef):
            compiled = compiled or bool(_decorator_names(node) & COMPILED)
        if isinstance(node, ast.Name) and not compiled:
            found.append((node.id, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, compiled)

    visit(tree, False)
    return found


def test_no_python_code_calls_an_inner_kernel():
    trees = {path: ast.parse(path.read_text()) for path in PACKAGE.rglob("*.py")}
    inner = set().union(*(_inner_kernels(tree) for tree in trees.values()))
    assert {"_search_low", "_get", "_reconstruct"} <= inner  # the scan sees the decorator
    offenders = [f"{path.relative_to(PACKAGE)}:{line} {name}" for path, tree in trees.items()
                 for name, line in _python_level_names(tree) if name in inner]
    assert not offenders, f"Python code names kernels compiled without a Python entry point: {offenders}"


def test_the_scan_finds_a_python_call():
    """The scan itself: a Python function (and a lambda in it) naming an @inner kernel is found."""
    tree = ast.parse("@inner\ndef k(x):\n    return x\n\ndef calibrate(x):\n    return best(lambda: k(x))\n")
    assert _inner_kernels(tree) == {"k"}
    assert ("k", 6) in _python_level_names(tree)


def test_every_kernel_compiles_through_svmlab_jit():
    """svmlab.jit.njit leaves out numba's C-callable wrapper; a module importing numba's own njit
    would compile that wrapper into each of its kernels, silently lengthening a first fit."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "jit.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            imports_njit = isinstance(node, ast.ImportFrom) and any(a.name == "njit" for a in node.names)
            if imports_njit and node.module == "numba":
                offenders.append(str(path.relative_to(PACKAGE)))
            if isinstance(node, ast.Attribute) and node.attr == "njit" and getattr(node.value, "id", "") == "numba":
                offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders, f"modules compiling with numba's njit instead of svmlab.jit.njit: {offenders}"


def _fits():
    """Fits of the two kernel solvers compiled without reference counting, on the paths where
    functions with counting run under them (a trace's rows, two threads' loops) and on the
    regression Q-matrix, and a warm start; small, and compiled by the warm-up but for two threads."""
    X, y = datasets.make_toy(400, random_state=0)
    warm = svmlab.KernelSVM(solver="smo", max_iter=20, warm_start=True)
    return [lambda: svmlab.KernelSVM(solver="smo", max_iter=20, cache_size=0.5).fit(X, y),
            lambda: svmlab.KernelSVM(solver="smo", max_iter=20, trace=True).fit(X, y),
            lambda: svmlab.KernelSVM(solver="smo", max_iter=20, n_jobs=2).fit(X, y),
            lambda: svmlab.KernelSVM(solver="dcd", fit_intercept=False, max_iter=5, trace=True).fit(X, y),
            lambda: svmlab.KernelSVR(max_iter=20).fit(X, X[:, 0]),
            lambda: svmlab.KernelSVR(max_iter=20, trace=True).fit(X, X[:, 0]),
            lambda: warm.set_params(C=warm.C * 2).fit(X, y)]


@pytest.mark.filterwarnings("ignore::svmlab.ConvergenceWarning")
def test_kernel_solvers_without_refcounts_release_every_array():
    """jit.py's rule for the kernels compiled without reference counting: what they and the
    functions under them allocate is freed (numba's own counts of allocations balance over repeated
    fits). A function with counting that returned an array to one without would leak it here; one
    without counting may not return a bare array (numba refuses it when it compiles)."""
    fits = _fits()
    _nrt_python.memsys_enable_stats()
    try:
        for _ in range(2):  # compiled, and whatever is made once made, before counting
            for fit in fits:
                fit()
        gc.collect()
        before = rtsys.get_allocation_stats()
        for fit in fits:
            fit()
        gc.collect()
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    assert after.alloc > before.alloc  # the two-thread and trace paths allocate: the counts move
    assert after.alloc - after.free == before.alloc - before.free
    assert after.mi_alloc - after.mi_free == before.mi_alloc - before.mi_free


def _probe(module):
    """A new function of ``module`` for numba to compile (not cached: it compiles every time)."""
    def probe(x):
        return x + 1.0
    probe.__module__ = module
    return probe


class _CollectorSeen(event.Listener):
    """Whether the collector was on at the start and at the end of each compilation, as numba tells
    it to its listeners in the order they were registered: svmlab.jit's first (at import)."""

    def __init__(self):
        self.seen = []

    def on_start(self, ev):
        self.seen.append(("start", ev.data["dispatcher"].py_func.__module__, gc.isenabled()))

    def on_end(self, ev):
        self.seen.append(("end", ev.data["dispatcher"].py_func.__module__, gc.isenabled()))


def test_the_collector_waits_while_numba_compiles_a_kernel_of_svmlab():
    probe = _CollectorSeen()
    with event.install_listener("numba:compile", probe):
        assert numba.njit(_probe("svmlab.probe"))(1.0) == 2.0
        assert gc.isenabled()  # on again after the compilation
        numba.njit(_probe("elsewhere"))(1.0)
    assert probe.seen == [("start", "svmlab.probe", False), ("end", "svmlab.probe", True),
                          ("start", "elsewhere", True), ("end", "elsewhere", True)]


def test_the_collector_stays_as_the_caller_left_it():
    """Off before the compilation: still off after it. On, and the compilation fails: on again."""
    gc.disable()
    try:
        numba.njit(_probe("svmlab.probe"))(1.0)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(numba.TypingError):
        numba.njit(_probe("svmlab.probe"))("text")
    assert gc.isenabled()
