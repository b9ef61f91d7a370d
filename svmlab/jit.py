"""How svmlab compiles its kernels: :func:`njit`, :func:`inner` and :data:`OVERLOAD_OPTIONS`.

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
"""

import numba

OVERLOAD_OPTIONS = {"cache": True, "no_cfunc_wrapper": True}  # the jit_options of svmlab's @overload


def njit(func=None, **options):
    """numba's ``njit(**options)`` with ``no_cfunc_wrapper=True``; ``@njit(cache=True)`` as numba's."""
    jit = numba.njit(no_cfunc_wrapper=True, **options)
    return jit if func is None else jit(func)


def inner(func=None, **options):
    """``@njit(cache=True, no_cpython_wrapper=True, **options)``; ``@inner`` or ``@inner(parallel=True)``."""
    jit = njit(cache=True, no_cpython_wrapper=True, **options)
    return jit if func is None else jit(func)
