"""svmlab: how Support Vector Machines are actually solved.

The library behind the book's chapters: one definition of the SVM problem
(:mod:`svmlab.objective`, :class:`SVMProblem`), solvers as numba kernels
(:mod:`svmlab.solvers`), estimators with scikit-learn's conventions (:class:`LinearSVM`,
:class:`KernelSVM`, and for regression :class:`LinearSVR`, :class:`KernelSVR`, whose problem is
defined in :mod:`svmlab.regression` and :class:`SVRProblem`), shipped data (:mod:`svmlab.datasets`)
and pure plotting functions (:mod:`svmlab.plots`).

``import svmlab`` is cheap: the names below are loaded on first use, nothing is compiled and
matplotlib is not imported.
"""

from importlib import import_module

from ._numba_cache import ensure_cache

__version__ = "0.1.0"
ensure_cache()

_LAZY = {
    "LinearSVM": "estimators",
    "KernelSVM": "estimators",
    "LinearSVR": "regressors",
    "KernelSVR": "regressors",
    "ConvergenceWarning": "estimators",
    "NotFittedError": "estimators",
    "DataConversionWarning": "validation",
    "SVMProblem": "problem",
    "SVRProblem": "problem",
    "Trace": "trace",
}
__all__ = list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
