"""Solver families, one a module. Each exposes ``start(problem, stop, buffers, rng, alpha0, **options)``,
a state the driver :mod:`svmlab.solvers.slices` advances in slices (``state.result()`` is a
:class:`SolverResult`); the registry names it (``start_kernel``, ``start_regression`` where a
module has several), and :func:`starter` imports it.

The estimators pick a solver by name from :data:`LINEAR` or :data:`KERNEL` (and
:data:`LINEAR_REGRESSION`, :data:`KERNEL_REGRESSION`); a solver module is imported only when
it is first used, so ``import svmlab`` compiles nothing. The registry declares each solver's
options once (an :class:`Option`: name, default, check) and what it requires of the other
parameters (:class:`Requires`); :func:`check` is what ``fit`` asks before it touches the data.
"""

import warnings
from collections import namedtuple
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from typing import Callable, NamedTuple

import numpy as np

from ..validation import check_bool, n_jobs_threads, non_negative_number, one_of, positive_int, positive_number


class Option(NamedTuple):
    """An estimator parameter a solver takes: its name, the estimator's default, and its check
    ``check(value, name)``, which returns the value the solver takes or raises ValueError saying
    what is allowed (:mod:`svmlab.validation`)."""

    name: str
    default: object
    check: Callable


class Requires(NamedTuple):
    """What a solver needs of the estimator's parameters (``holds(params)``), and why: the error
    message's end after ``solver=<name>``."""

    holds: Callable
    reason: str


class Solver(NamedTuple):
    """A registered solver: its module, the function the estimators call, its options and what
    it requires."""

    module: str
    function: str
    options: tuple = ()
    requires: tuple = ()


def _choice(accepted):
    return partial(one_of, accepted=accepted)


# The choices in the order of the solvers' codes (the index of a choice is its code).
ORDERS = ("permutation", "cyclic", "random")  # of the coordinates within an epoch
SVR_ORDERS = ("permutation", "cyclic")
STOPPINGS = ("pg", "dw")
OUTPUTS = ("last", "average", "random")
SELECTIONS = ("second_order", "max_violating", "random")

# Each option once: the estimator parameter, its default, its check.
SHRINKING = Option("shrinking", True, check_bool)
ORDER = Option("order", "permutation", _choice(ORDERS))
SVR_ORDER = Option("order", "permutation", _choice(SVR_ORDERS))
STOPPING = Option("stopping", "pg", _choice(STOPPINGS))
BATCH_SIZE = Option("batch_size", 1, positive_int)
OUTPUT = Option("output", "last", _choice(OUTPUTS))
SMOOTHING = Option("smoothing", 0.0, non_negative_number)
ACCELERATED = Option("accelerated", False, check_bool)
PROJECTION = Option("projection", True, check_bool)
SELECTION = Option("selection", "second_order", _choice(SELECTIONS))
CACHE_SIZE = Option("cache_size", 200, positive_number)
N_JOBS = Option("n_jobs", None, n_jobs_threads)  # the threads that compute kernel columns

# What solvers require of the other parameters.
HINGE_ONLY = Requires(lambda p: p["loss"] == "hinge",
                      "supports loss='hinge' only; for the squared hinge use solver='sdca' or 'dcd'.")
SMOOTHED_HINGE = Requires(lambda p: p["smoothing"] == 0 or p["loss"] == "hinge",
                          "needs loss='hinge' for smoothing > 0 (it smooths the hinge; the squared hinge is smooth "
                          "already), or smoothing=0.")
SMOOTH_FOR_ASDCA = Requires(lambda p: not p["accelerated"] or p["smoothing"] > 0,
                            "needs a smooth loss for accelerated=True (ASDCA): use loss='hinge' with smoothing > 0 "
                            "(e.g. smoothing=0.1).")
FREE_BIAS = Requires(lambda p: p["fit_intercept"],
                     "needs the free bias (fit_intercept=True): without it there is no equality constraint to keep, "
                     "so use solver='dcd' for fit_intercept=False.")
NO_BIAS = Requires(lambda p: not p["fit_intercept"],
                   "solves the dual without a bias: single-coordinate steps cannot keep the equality constraint of a "
                   "free bias. Use fit_intercept=False, or solver='smo'.")

# name -> Solver(module, function, options, requires)
LINEAR = {
    "subgradient": Solver("subgradient", "start"),
    "dual_gradient": Solver("dual_gradient", "start_linear"),
    "dcd": Solver("dcd", "start", (SHRINKING, ORDER, STOPPING)),
    "sdca": Solver("sdca", "start", (ORDER, OUTPUT, SMOOTHING, BATCH_SIZE, ACCELERATED),
                   (SMOOTHED_HINGE, SMOOTH_FOR_ASDCA)),
    "pegasos": Solver("pegasos", "start", (BATCH_SIZE, OUTPUT, PROJECTION), (HINGE_ONLY,)),
}
# regression: start(dcd_svr.Problem, Stop, buffers, rng, **options)
LINEAR_REGRESSION = {
    "dcd": Solver("dcd_svr", "start", (SHRINKING, SVR_ORDER)),
}
KERNEL = {
    "dual_gradient": Solver("dual_gradient", "start_kernel"),
    "smo": Solver("smo", "start", (SHRINKING, SELECTION, CACHE_SIZE, N_JOBS), (FREE_BIAS,)),
    "dcd": Solver("kernel_dcd", "start", (SHRINKING, CACHE_SIZE, N_JOBS), (NO_BIAS,)),
}
# regression: start_regression(KernelRegressionProblem, Stop, buffers, rng, alpha0, **options)
KERNEL_REGRESSION = {
    "smo": Solver("smo", "start_regression", (SHRINKING, CACHE_SIZE, N_JOBS)),
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


def options(table, name, params):
    """The options of the solver ``name`` of ``table``, each checked: a ValueError names the
    solver, the parameter, its value and what is allowed."""
    checked = {}
    for option in table[name].options:
        try:
            checked[option.name] = option.check(params[option.name], option.name)
        except ValueError as error:
            raise ValueError(f"solver={name!r}: {error}") from None
    return checked


def check(table, name, params):
    """What ``fit`` checks of the solver ``name`` of ``table`` before it touches the data: its
    options (:func:`options`) and what it requires of the other parameters; and it warns of
    the options of the table's other solvers set away from their defaults, which this one ignores.
    Returns the checked options, the keyword arguments of the solver's ``start``."""
    checked = options(table, name, params)
    for rule in table[name].requires:
        if not rule.holds(params):
            raise ValueError(f"solver={name!r} {rule.reason}")
    _warn_ignored(table, name, params)
    return checked


def _warn_ignored(table, name, params):
    """A UserWarning naming the options of ``table``'s other solvers that ``params`` sets away
    from their defaults: the solver ``name`` ignores them."""
    taken = [option.name for option in table[name].options]
    ignored = [f"{option.name}={params[option.name]!r}" for option in _declared(table)
               if option.name not in taken and not _equal(params[option.name], option.default)]
    if ignored:
        warnings.warn(f"solver={name!r} ignores {', '.join(ignored)}; it takes "
                      f"{', '.join(taken) or 'no options'}.", UserWarning, stacklevel=4)


def _equal(value, default):
    """Whether an option's value is its default: by value, so that 0 and 0.0, or np.int64(1)
    and 1, are one setting (an array or a value that cannot be compared is not the default)."""
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _declared(table):
    """Every option of the solvers of ``table``, once each, in the registry's order."""
    return list({option.name: option for solver in table.values() for option in solver.options}.values())


KernelProblem = namedtuple("KernelProblem", "X kernel y Ci code free")
KernelProblem.__doc__ = """One binary kernel problem: the samples X, the kernel (kernels.make_kernel),
labels y in {-1, +1}, the penalties C_i, the loss code and whether the bias is free."""

KernelRegressionProblem = namedtuple("KernelRegressionProblem", "X kernel z Ci epsilon")
KernelRegressionProblem.__doc__ = """One kernel epsilon-SVR problem (L1 loss, free bias): the samples X, the
kernel, the targets z, the penalties C_i and the tube's half-width epsilon."""


def starter(table, name):
    """The registered ``start...`` function of the solver ``name`` of ``table``, which makes its
    state (imported on first use)."""
    solver = table[name]
    return getattr(import_module(f"{__name__}.{solver.module}"), solver.function)
