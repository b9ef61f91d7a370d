"""Solver families, one a module. Each exposes ``start(problem, stop, buffers, rng, alpha0, **options)``,
a state the driver :mod:`svmlab.solvers.slices` advances in slices (``state.result()`` is a
:class:`SolverResult`); a solver not yet sliced exposes ``solve(...) -> SolverResult``, the
whole run in one call.

The estimators pick a solver by name from :data:`LINEAR` or :data:`KERNEL`; a solver module
is imported only when it is first used, so ``import svmlab`` compiles nothing.
"""

from collections import namedtuple
from dataclasses import dataclass
from importlib import import_module

import numpy as np

# name -> (module, function, the estimator parameters the solver takes as keyword options)
LINEAR = {
    "subgradient": ("subgradient", "start", ()),
    "dual_gradient": ("dual_gradient", "start_linear", ()),
    "dcd": ("dcd", "start", ("shrinking", "order", "stopping")),
    "sdca": ("sdca", "start", ("order", "output", "smoothing", "batch_size", "accelerated")),
    "pegasos": ("pegasos", "start", ("batch_size", "output", "projection")),
}
# regression: start(dcd_svr.Problem, Stop, buffers, rng, **options)
LINEAR_REGRESSION = {
    "dcd": ("dcd_svr", "start", ("shrinking", "order")),
}
KERNEL = {
    "dual_gradient": ("dual_gradient", "start_kernel", ()),
    "smo": ("smo", "solve", ("shrinking", "selection", "cache_size")),
    "dcd": ("kernel_dcd", "solve", ("shrinking", "cache_size")),
}


@dataclass
class SolverResult:
    """What a solver returns: the dual variables (LIBLINEAR units), the primal vector w
    (length d + 1 with the bias feature's weight last; None for kernel solvers), the bias
    when it is free, the epochs run, and whether ``tol`` was met."""

    alpha: np.ndarray
    w: np.ndarray | None
    b: float
    n_iter: int
    converged: bool


def get(table, name, params):
    """The function registered under ``name`` in ``table``, with its options taken
    from ``params`` (an estimator's get_params()) as keyword arguments."""
    module, function, option_names = table[name]
    solve = getattr(import_module(f"{__name__}.{module}"), function)
    return solve, {key: params[key] for key in option_names}


KernelProblem = namedtuple("KernelProblem", "X kernel y Ci code free")
KernelProblem.__doc__ = """One binary kernel problem: the samples X, the kernel (kernels.make_kernel),
labels y in {-1, +1}, the penalties C_i, the loss code and whether the bias is free."""


def starter(table, name):
    """The function that makes the state of the solver registered under ``name``: the registered
    ``start...`` itself, or for a registered ``solve...`` its module's ``start...`` twin if it has
    one (``start`` for ``solve``); None for a solver that runs in one call only."""
    module, function, _ = table[name]
    return getattr(import_module(f"{__name__}.{module}"), function.replace("solve", "start"), None)
