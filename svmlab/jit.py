"""How svmlab compiles a kernel that only other kernels call (:func:`inner`).

Every numba kernel of svmlab is ``@njit(cache=True)``. numba also builds each kernel a Python
entry point, the code that unboxes every argument from a Python object; for the solvers' named
tuples of arrays (the dual state, the Q-matrix with its kernel cache) it costs about as much to
compile as the kernel itself. A kernel that no Python code calls is compiled without one
(``no_cpython_wrapper=True``), which shortens a solver's first fit. Such a kernel must not be
called from Python: the call crashes the interpreter, with no error to read. Call (and test)
the kernel that calls it.
"""

from numba import njit


def inner(func=None, **options):
    """``@njit(cache=True, no_cpython_wrapper=True, **options)``; ``@inner`` or ``@inner(parallel=True)``."""
    jit = njit(cache=True, no_cpython_wrapper=True, **options)
    return jit if func is None else jit(func)
