"""Kernel dual coordinate descent without a bias (Welt Xing (2021); book chapter 5, Algorithm 5.2).

Without a bias the dual has no equality constraint, and one variable at a time suffices:
minimise f(alpha) = 1/2 alpha' Q-bar alpha - e' alpha over 0 <= alpha_i <= U_i by

    alpha_i <- min(max(alpha_i - G_i / Q-bar_ii, 0), U_i),   G <- G + (alpha_i^new - alpha_i) Q-bar_:i

in a random order each epoch. With a kernel there is no w to keep (Welt Xing's point): the
gradient G itself is maintained, one column of Q per change, from the same LRU
:mod:`kernel cache <svmlab.solvers.kernel_cache>` as SMO (200 MB). Where Q-bar_ii = 0 (a zero
kernel column) f is linear in alpha_i and the step goes to the end of the box.

Shrinking (``shrinking=True``) is LIBLINEAR's: a variable at a bound whose gradient pushes it
out of the box by more than the largest projected gradient of the previous epoch leaves the
active set; the gradient is rebuilt on the whole set when the active one is solved.
Stops when max PG - min PG over an epoch is at most ``tol`` (LIBLINEAR's rule), or after
``max_iter`` epochs; the trace is recorded every ``k`` epochs. A run advances in slices of
epochs through :func:`svmlab.solvers.slices.run` (Ctrl-C between slices; the iterates do not
depend on the slicing), on the :mod:`Q-matrix <svmlab.solvers.qmatrix>` and the shared
:mod:`dual state <svmlab.solvers.dual_state>` of SMO.

``fit_intercept=True`` is refused: a free bias adds sum_i y_i alpha_i = 0, which
single-coordinate steps cannot keep (use ``solver="smo"``).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..kernel_rows import prepare
from ..validation import check_bool, positive_number
from . import SolverResult
from .dcd import shuffle
from . import qmatrix, slices
from .dual_state import due, new_scratch, new_state, reconstruct_gradient, record, set_alpha, update_gradient_bar
from .kernel_cache import fit_to_active, new_generation, opened
from .qmatrix import q_column


def solve(X, kernel, y, Ci, code, free, tol, max_iter, rng, buf, shrinking, cache_size):
    """Run the kernel; see the module docstring."""
    if free:
        raise ValueError("solver='dcd' solves the dual without a bias: single-coordinate steps cannot keep the "
                         "equality constraint of a free bias. Use fit_intercept=False, or solver='smo'.")
    n = y.shape[0]
    kr = prepare(X, kernel)
    shrinking, seed = check_bool(shrinking, "shrinking"), int(rng.integers(2 ** 31))
    sc = new_scratch(kr, n, buf.rows.shape[0])
    with opened(n, positive_number(cache_size, "cache_size")) as cache:
        prob = Problem(qmatrix.classification(cache, kr, y), np.full(n, -1.0), Ci, code)
        run = slices.run(_Run(prob, Rule(tol, max_iter, shrinking, seed), buf, sc), "dcd")
    return SolverResult(run.st.alpha, None, 0.0, int(run.loop[EPOCH]), bool(run.loop[CONVERGED]))


Problem = namedtuple("Problem", "Q p Ci code")
Problem.__doc__ = "min 1/2 alpha' (Q + D) alpha + p' alpha over 0 <= alpha <= U(Ci, code)."
Rule = namedtuple("Rule", "tol max_iter shrinking seed")
ACTIVE, EPOCH, CONVERGED = range(3)  # a run's integer counters; its float ones: the PG bounds of the last epoch


class _Run:
    """A kernel DCD run as a state that :func:`svmlab.solvers.slices.run` advances by at most
    ``budget`` epochs a slice; slicing leaves the iterates unchanged bit for bit."""

    unit = "epoch"

    def __init__(self, prob, rule, buf, sc):
        self.prob, self.rule, self.buf, self.sc = prob, rule, buf, sc
        self.st, self.loop, self.pg_old = _begin(prob, rule, buf, sc)

    def advance(self, budget):
        return _advance(self.prob, self.rule, self.st, self.loop, self.pg_old, self.buf, self.sc, budget)

    def status(self):
        return self.loop[EPOCH], self.loop[ACTIVE], np.nan


@njit(cache=True)
def _step(st, Q, i, active_size, work):
    """The exact minimisation of f along alpha_i, clipped to [0, U_i], and the gradient update."""
    a, g, u = st.alpha[i], st.G[i], st.U[i]
    if st.QD[i] > 0.0:
        new = min(max(a - g / st.QD[i], 0.0), u)
    else:
        new = u if g < 0.0 else 0.0
    d = new - a
    set_alpha(st, Q.s, i, new)
    Qi = q_column(Q, i, st.order, active_size, work)
    pos = Q.cache.pos
    for t in range(active_size):
        k = st.order[t]
        st.G[k] += d * Qi[pos[k]]
    st.G[i] += st.D[i] * d
    if (new >= u) != (a >= u):
        update_gradient_bar(st, Q, i, work)


@njit(cache=True)
def _begin(prob, rule, buf, sc):
    """The initial state, counters (active size, epoch, converged) and PG bounds; records epoch 0."""
    np.random.seed(rule.seed)
    n = prob.Q.s.shape[0]
    st = new_state(prob.Q, prob.p, prob.Ci, prob.code)
    trace.start(buf)
    if due(buf, 0, False, sc):
        record(buf, 0, False, st, prob.Q, prob.Ci, prob.code, False, n, sc)
    return st, np.array([n, 0, 0], dtype=np.int64), np.array([np.inf, -np.inf])


@njit(cache=True)
def _advance(prob, rule, st, loop, pg_old, buf, sc, budget):
    """At most ``budget`` epochs; returns (epochs run, finished)."""
    Q, Ci, code = prob.Q, prob.Ci, prob.code
    n, cache = Q.s.shape[0], Q.cache
    order = st.order
    active_size, epoch, converged = loop[ACTIVE], loop[EPOCH], loop[CONVERGED] != 0
    pg_max_old, pg_min_old = pg_old[0], pg_old[1]
    start = epoch
    while epoch < rule.max_iter and not converged and epoch - start < budget:
        epoch += 1
        if active_size == n:
            new_generation(cache)
        shuffle(order, active_size)
        pg_max, pg_min = -np.inf, np.inf
        s = 0
        while s < active_size:
            i = order[s]
            a, g, u = st.alpha[i], st.G[i], st.U[i]
            if rule.shrinking and ((a <= 0.0 and g > pg_max_old) or (a >= u and g < pg_min_old)):
                active_size -= 1
                order[s], order[active_size] = order[active_size], order[s]
                continue
            pg = obj.projected(a, g, u)
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if abs(pg) > 1e-12:
                _step(st, Q, i, active_size, sc.work)
            s += 1
        fit_to_active(cache, order, active_size)
        if pg_max - pg_min <= rule.tol:
            if active_size == n:
                converged = True
            else:  # the shrunk problem is solved: rebuild the gradient and check the whole one
                reconstruct_gradient(st, Q, active_size, sc.work)
                active_size = n
                pg_max_old, pg_min_old = np.inf, -np.inf
        else:
            pg_max_old = pg_max if pg_max > 0.0 else np.inf
            pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        done = converged or epoch >= rule.max_iter
        if due(buf, epoch, done, sc):
            record(buf, epoch, done, st, Q, Ci, code, False, active_size, sc)
    loop[ACTIVE], loop[EPOCH], loop[CONVERGED] = active_size, epoch, converged
    pg_old[0], pg_old[1] = pg_max_old, pg_min_old
    return epoch - start, converged or epoch >= rule.max_iter
