"""Checks of chapter 4's exercises (notebooks/04_shrinking.ipynb)."""

import itertools
import math
from functools import lru_cache

import numpy as np

from .. import LinearSVM, datasets
from . import close, exercise, is_number

INF = math.inf


def _liblinear_test(a, G, U, PGmax_bar, PGmin_bar):
    """The shrinking test (4.2)."""
    return (a == 0 and G > PGmax_bar) or (a == U and G < PGmin_bar)


def _greedy_test(a, G, U, PGmax_bar, PGmin_bar):
    """Shrink on the sign of the gradient alone."""
    return (a == 0 and G > 0) or (a == U and G < 0)


def _cases():
    """States a test meets: alpha at 0, free or at U, for two U (a test must read U, not assume 1);
    gradients of each sign, some equal to a bound (the test is strict); bounds finite or reset."""
    gradients = (-2.0, -1.0, -0.3, -0.1, -0.05, 0.0, 0.05, 0.1, 0.3, 1.0, 2.0)
    bounds = ((INF, -INF), (0.1, -0.1), (1.0, -INF), (INF, -1.0))
    for U in (1.0, 2.5):
        for a, G, (PGmax_bar, PGmin_bar) in itertools.product((0.0, 0.4, U), gradients, bounds):
            yield a, G, U, PGmax_bar, PGmin_bar


def _compare(answer, expected, what):
    if not callable(answer):
        return f"the answer is a function (alpha_i, G_i, U_i, PGmax_bar, PGmin_bar) -> bool: {what}"
    for case in _cases():
        got = answer(*case)
        if not isinstance(got, (bool, np.bool_)):
            return "return True (shrink) or False (keep), a bool"
        if bool(got) != expected(*case):
            a, G, U, PGmax_bar, PGmin_bar = case
            where = "at alpha_i = 0" if a == 0 else "at alpha_i = U_i" if a == U else "for a free alpha_i"
            return f"your test decides wrongly {where} (G_i = {G:+g}, U_i = {U:g}, bounds {PGmax_bar:g}, {PGmin_bar:g})"
    return None


@exercise("4.1", wrong=[_greedy_test, lambda a, G, U, PGmax_bar, PGmin_bar: False,
                        lambda a, G, U, PGmax_bar, PGmin_bar: (a == 0 and min(G, 0.0) > PGmax_bar)
                        or (a == U and max(G, 0.0) < PGmin_bar),
                        lambda a, G, U, PGmax_bar, PGmin_bar: (a == 0 and G >= PGmax_bar)
                        or (a == U and G <= PGmin_bar),
                        lambda a, G, U, PGmax_bar, PGmin_bar: (a == 0 and G > PGmax_bar)
                        or (a == 1.0 and G < PGmin_bar)])  # U_i taken as 1
def _(answer):
    return _compare(answer, _liblinear_test, "LIBLINEAR's test (4.2)")


@lru_cache(maxsize=None)
def _margins():
    X, y = datasets.make_toy()
    model = LinearSVM(C=0.1, tol=1e-6, max_iter=100_000, random_state=0).fit(X, y)
    return y * model.decision_function(X)


@exercise("4.2", wrong=[0, 2000, 1000, 1673])  # 1673: the count at C = 1 (section 4.1)
def _(answer):
    if not is_number(answer) or answer != int(answer):
        return "give a whole number of points"
    margins = _margins()
    # points within 1e-3 of the margin may fall either side at a finite tolerance: both counts are right
    low, high = np.sum(margins > 1 + 1e-3), np.sum(margins > 1 - 1e-3)
    if not low <= answer <= high:
        return "write G_i (3.4) with D_ii = 0 in terms of m_i, then ask what (4.2) becomes when both bounds tend to 0"
    return None


@lru_cache(maxsize=None)
def _work_ratio():
    X, y = datasets.make_dense(16000, 20, random_state=1)
    on = LinearSVM(C=1.0, tol=1e-2, random_state=0, trace=True).fit(X, y)
    off = LinearSVM(C=1.0, tol=1e-2, random_state=0, trace=True, shrinking=False).fit(X, y)
    return on.trace_.n_active[1:].sum() / (off.n_iter_ * len(y))


@exercise("4.3", wrong=[1.0, 0.5, 0.0])
def _(answer):
    if not is_number(answer) or not 0 < answer <= 1:
        return "give the ratio of the two totals, a number between 0 and 1"
    if not close(answer, _work_ratio(), rtol=1e-6):
        return ("sum the trace's n_active[1:] of the shrinking run and divide by the epochs of the other run "
                "times n (each fit with its own epochs)")
    return None


@exercise("4.4", wrong=[_liblinear_test, lambda a, G, U, PGmax_bar, PGmin_bar: a == 0 and G > 0])
def _(answer):
    return _compare(answer, _greedy_test, "shrink on the sign of G_i alone")
