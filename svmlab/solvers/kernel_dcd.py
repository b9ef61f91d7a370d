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
Stops when M - m, the largest minus the smallest PG of an epoch (the names of
:mod:`svmlab.solvers.dcd`), is at most ``tol`` (LIBLINEAR's rule), or after
``max_iter`` epochs; the trace is recorded every ``k`` epochs. A run is a state (:func:`start`)
advanced in slices of epochs by :func:`svmlab.solvers.slices.run` (Ctrl-C and ``callback``
between slices; the iterates do not depend on the slicing), on the :mod:`Q-matrix
<svmlab.solvers.qmatrix>` and the shared :mod:`dual state <svmlab.solvers.dual_state>` of SMO;
``alpha0`` (warm_start) starts it from a previous alpha clipped to the new box.

``fit_intercept=True`` is refused: a free bias adds sum_i y_i alpha_i = 0, which
single-coordinate steps cannot keep (use ``solver="smo"``).
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..jit import njit, without_refcounts
from ..kernel_rows import prepare
from . import NO_BIAS, SolverResult, qmatrix
from .coordinate import clipped_step, epoch_unit, shuffle
from .dual_state import (DualRun, Problem, begin, held_cache, new_scratch, new_state, reconstruct_gradient,
                         record_row, row_due, set_alpha, update_gradient_bar)
from .kernel_cache import fit_to_active, new_generation, place
from .qmatrix import q_column

Rule = namedtuple("Rule", "tol max_iter shrinking seed")
ACTIVE, EPOCH, CONVERGED, BEGUN = range(4)  # a run's integer counters
M_OLD, M_LOW = range(2)  # its float ones: the largest and smallest PG of the last epoch (dcd's M_old, m_old)


def start(problem, stop, buf, rng, alpha0=None, shrinking=True, cache_size=200, n_jobs=1):
    """A kernel DCD state on ``problem`` (a ``solvers.KernelProblem`` without a bias), from 0 or
    from ``alpha0`` clipped to the box; ``stop`` a ``coordinate.Stop``; the options checked by
    the registry."""
    X, kernel, y, Ci, code, free = problem
    if free:
        raise ValueError(f"solver='dcd' {NO_BIAS.reason}")
    n = y.shape[0]
    kr = prepare(X, kernel, n_jobs)
    rule = Rule(stop.tol, stop.max_iter, shrinking, int(rng.integers(2 ** 31)))
    hold, cache = held_cache(n, cache_size)
    prob = Problem(qmatrix.classification(cache, kr, y), np.full(n, -1.0), Ci, code, False, None, 0.0)
    buf = trace.used(buf)
    return State(prob, rule, buf, new_scratch(kr, n, buf), hold, alpha0)


class State(DualRun):
    """A kernel DCD run as a state that :func:`svmlab.solvers.slices.run` advances by at most
    ``budget`` epochs a slice; slicing leaves the iterates unchanged bit for bit."""

    def __init__(self, prob, rule, buf, sc, hold, alpha0):
        super().__init__(hold)
        self.prob, self.rule, self.buf, self.sc = prob, rule, buf, sc
        self.alpha0 = None if alpha0 is None else np.asarray(alpha0, dtype=np.float64)
        self.st, self.bounds = new_state(prob), np.array([np.inf, -np.inf])
        self.loop = np.array([prob.p.shape[0], 0, 0, 0], dtype=np.int64)  # ACTIVE, EPOCH, CONVERGED, BEGUN
        self._slice(0)  # begins the run (dual_state.begin) and records epoch 0

    def _slice(self, budget):
        return _advance(self.prob, self.rule, self.st, self.loop, self.bounds, self.buf, self.sc, self.alpha0, budget)

    @property
    def unit(self):
        return epoch_unit(self.rule.shrinking)

    def status(self):
        return self.loop[EPOCH], self.loop[ACTIVE], np.nan

    def result(self):
        return SolverResult(self.st.alpha, None, 0.0, int(self.loop[EPOCH]), bool(self.loop[CONVERGED]))


@njit(cache=True, inline="always")
def _step(st, Q, i, active_size, work):
    """The exact minimisation of f along alpha_i, clipped to [0, U_i] (eq. 3.5), and the gradient update."""
    a, u = st.alpha[i], st.U[i]
    new = clipped_step(a, st.G[i], st.QD[i], u)
    d = new - a
    set_alpha(st, Q.s, i, new)
    Qi = q_column(Q, i, st.order, active_size, work)
    pos = Q.cache.pos
    for t in range(active_size):
        k = st.order[t]  # both indices read unsigned: no test for a negative one (CONTRIBUTING.md)
        st.G[np.uint64(k)] += d * Qi[np.uint64(place(pos, k))]
    st.G[i] += st.D[i] * d
    if (new >= u) != (a >= u):
        update_gradient_bar(st, Q, i, work)


@without_refcounts
def _advance(prob, rule, st, loop, bounds, buf, sc, alpha0, budget):
    """At most ``budget`` epochs, after the run's start and its record of epoch 0 in its first slice
    (``budget`` 0 for the start alone); returns (epochs run, finished)."""
    Q = prob.Q
    n, cache = Q.s.shape[0], Q.cache
    if loop[BEGUN] == 0:
        begin(st, prob, rule.seed, alpha0, sc.work)
        if buf is not None:
            trace.start(buf)
        if buf is not None and row_due(buf, 0, False, sc):
            record_row(buf, 0, False, st, prob, n, sc)
        loop[BEGUN] = 1
    order = st.order
    active_size, epoch, converged = loop[ACTIVE], loop[EPOCH], loop[CONVERGED] != 0
    M_old, m_old = bounds[M_OLD], bounds[M_LOW]
    first = epoch
    while epoch < rule.max_iter and not converged and epoch - first < budget:
        epoch += 1
        if active_size == n:
            new_generation(cache)
        shuffle(order, active_size)
        M_new, m_new = -np.inf, np.inf
        s = 0
        while s < active_size:
            i = order[s]
            a, g, u = st.alpha[i], st.G[i], st.U[i]
            if rule.shrinking and ((a <= 0.0 and g > M_old) or (a >= u and g < m_old)):
                active_size -= 1
                order[s], order[active_size] = order[active_size], order[s]
                continue
            pg = obj.projected(a, g, u)
            M_new = max(M_new, pg)
            m_new = min(m_new, pg)
            if abs(pg) > 1e-12:
                _step(st, Q, i, active_size, sc.work)
            s += 1
        fit_to_active(cache, order, active_size)
        if M_new - m_new <= rule.tol:
            if active_size == n:
                converged = True
            else:  # the shrunk problem is solved: rebuild the gradient and check the whole one
                reconstruct_gradient(st, Q, active_size, sc.work)
                active_size = n
                M_old, m_old = np.inf, -np.inf
        else:
            M_old = M_new if M_new > 0.0 else np.inf
            m_old = m_new if m_new < 0.0 else -np.inf
        done = converged or epoch >= rule.max_iter
        if buf is not None and row_due(buf, epoch, done, sc):
            record_row(buf, epoch, done, st, prob, active_size, sc)
    loop[ACTIVE], loop[EPOCH], loop[CONVERGED] = active_size, epoch, converged
    bounds[M_OLD], bounds[M_LOW] = M_old, m_old
    return epoch - first, converged or epoch >= rule.max_iter
