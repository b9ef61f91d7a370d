"""How svmlab compiles its kernels: :func:`njit`, :func:`inner` and :data:`OVERLOAD_OPTIONS`
(:func:`ready` loads a kernel ahead of its first call).

Every numba kernel of svmlab is ``@njit(cache=True)``, with this module's ``njit``: numba's, without
the C-callable wrapper. numba builds each compiled function, besides the function itself, a C
entry point (for ``cfunc`` and first-class function values, which svmlab never uses) and a Python
entry point; both are compiled into every kernel's module. Leaving out the C one
(``no_cfunc_wrapper=True``) takes about a second off a kernel solver's first fit.

A kernel that no Python code calls is compiled without the Python entry point too (:func:`inner`):
that code unboxes every argument from a Python object, and for the solvers' named tuples of
arrays (the dual state, the Q-matrix with its kernel cache) it costs about as much to compile as
the kernel itself. Such a kernel must not be called from Python: the call crashes the
interpreter, with no error to read. Call (and test) the kernel that calls it.

The loops of the two kernel solvers (``smo._advance``, ``kernel_dcd._advance``) are compiled
:func:`without_refcounts`: without numba's reference counting of arrays (its runtime, NRT). With
it, every read of an array from a named tuple, and every pass of a tuple to another function,
counts each of its arrays up and down again (the Q-matrix carries nine), and all that code is
compiled; without it, SMO's and kernel DCD's first fits compile about a second and 0.7 s less.

A function that numba first compiles for such a kernel is compiled without counting too (numba's
``nrt`` flag is inherited by a callee that does not set it), and numba keeps one compiled version
per signature, in memory and in the cache, whichever caller compiled it first. So every compiled
function under these kernels must be right both ways: it allocates no array and returns none,
not even in a tuple (the kernel cache and the Q-matrix return a column's start in the pool,
``kernel_cache.slot_view``). A function under them that must allocate (the per-thread results of a
parallel loop, the trace's rows) is compiled with ``**REFCOUNTS`` and returns no array. An inlined
helper is part of its caller's code and may return a view.

While numba compiles a kernel of svmlab, Python's cyclic garbage collector waits
(:class:`GarbageCollectionPaused`). numba makes some 400,000 objects in SMO's first fit (its IR,
types, LLVM's modules), and the collector, started by their number, walked them and everything
else alive again and again: 0.6-1.0 s of SMO's 8-12 s cold first fit, most of it in full
collections. It runs again as soon as the compilation ends; a first fit of SMO then peaks
about 50 MB higher.
"""

import gc

import numba
from numba.core import event

from ._numba_cache import lock_index_files

lock_index_files()  # several processes may fill the cache at once (svmlab._numba_cache)

OVERLOAD_OPTIONS = {"cache": True, "no_cfunc_wrapper": True}  # the jit_options of svmlab's @overload
REFCOUNTS = {"_nrt": True}  # a kernel that allocates, under a kernel compiled without_refcounts


def njit(func=None, **options):
    """numba's ``njit(**options)`` with ``no_cfunc_wrapper=True``; ``@njit(cache=True)`` as numba's."""
    jit = numba.njit(no_cfunc_wrapper=True, **options)
    return jit if func is None else jit(func)


def inner(func=None, **options):
    """``@njit(cache=True, no_cpython_wrapper=True, **options)``; ``@inner`` or ``@inner(parallel=True)``."""
    jit = njit(cache=True, no_cpython_wrapper=True, **options)
    return jit if func is None else jit(func)


def ready(kernel, *args):
    """Load ``kernel``'s machine code for a call with ``args`` (from numba's cache, or compile it)
    without running it; numba otherwise does so at the first such call in a process."""
    kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))


def without_refcounts(func):
    """``@njit(cache=True)`` without numba's reference counting, for it and for the functions first
    compiled for it (see the module's notes: none of them may allocate or return an array)."""
    return njit(func, cache=True, _nrt=False)


class GarbageCollectionPaused(event.Listener):
    """Listens to numba's compilations (the ``numba:compile`` events, nested for the functions a
    compilation compiles in turn): Python's cyclic garbage collector is off from the start of the
    outermost compilation of a function of svmlab to its end, when it was on. Other compilations
    are left alone. numba compiles on one thread at a time (its compiler lock)."""

    def __init__(self):
        self.paused = []  # one entry per compilation under way: whether its start paused the collector

    def on_start(self, ev):
        ours = ev.data["dispatcher"].py_func.__module__.startswith("svmlab.")
        pause = ours and gc.isenabled()
        if pause:
            gc.disable()
        self.paused.append(pause)

    def on_end(self, ev):
        if self.paused.pop():
            gc.enable()


event.register("numba:compile", GarbageCollectionPaused())
