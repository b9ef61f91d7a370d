"""SMO: sequential minimal optimization of the kernel SVM dual with a free bias (chapter 5).

Minimises f(alpha) = 1/2 alpha' Q-bar alpha - e' alpha subject to 0 <= alpha_i <= U_i and
sum_i y_i alpha_i = 0 (the dual of eq. 5.2; Q-bar = Q + D, Q_ij = y_i y_j K(x_i, x_j)), two
variables at a time, as LIBSVM's ``Solver`` (Platt 1998; Keerthi et al. 2001; Fan, Chen and
Lin 2005):

1. working set (eq. 5.9): with s_t = -y_t G_t, the first index i maximises s over
   I_up = {t : y_t = +1, alpha_t < U_t or y_t = -1, alpha_t > 0}; the second j is taken
   from I_low (the mirror set) by ``selection``:
   ``"max_violating"`` the smallest s (Keerthi et al.), ``"second_order"`` the largest
   decrease (s_i - s_j)^2 / eta_ij of f among the violating j (Fan et al., the default),
   ``"random"`` a uniformly random violating j (the random partner of Gu (2019) and of the
   "simplified SMO" of many courses; i is still the maximal violator, so every step makes
   progress);
2. pair step (eqs. 5.5-5.7): move along alpha + s (y_i e_i - y_j e_j), which keeps
   sum y alpha fixed, to s* = (s_i - s_j) / eta_ij with eta_ij = Q-bar_ii + Q-bar_jj -
   2 K_ij, clipped to the interval [L, H] that the box leaves (the L/H clipping of seed
   004 for equal and for opposite labels). Where eta_ij <= 0 (duplicate points, a zero
   kernel column) LIBSVM's tau = 1e-12 replaces it, and the step runs to the box's edge;
3. the gradient G = Q-bar alpha - e is kept up to date with the two columns Q_:i, Q_:j,
   asked of a :mod:`Q-matrix <svmlab.solvers.qmatrix>` (an LRU kernel cache of ``cache_size`` MB
   behind it); the state and its recording are :mod:`svmlab.solvers.dual_state`'s;
4. stop when the maximal violation m(alpha) - M(alpha) = max_{I_up} s - min_{I_low} s is
   below ``tol`` (LIBSVM's rule; :func:`svmlab.objective.kkt_violation`). The bias is
   LIBSVM's: b = -y_i G_i averaged over the free support vectors, or the midpoint rule
   without any (:func:`svmlab.objective.free_bias`).

Shrinking (``shrinking=True``) follows LIBSVM: every min(n, 1000) updates the bounded
variables that cannot be part of a violating pair leave the active set; the gradient of the
others is then kept only on the active set and rebuilt (``G_bar`` holds the contribution of
the variables at their upper bound) when the violation first falls below 10 tol and when the
shrunk problem is solved.

The squared hinge works the same way (D_ii = 1/(2 C_i) on the diagonal, U_i = inf).
Without a free bias there is no equality constraint and no reason for pairs: use
``solver="dcd"`` (:mod:`svmlab.solvers.kernel_dcd`); ``fit_intercept=False`` raises here.

The same solver runs LIBSVM's epsilon-SVR (:func:`solve_regression`): 2n variables alpha,
alpha^* with signs +1, -1 in place of y, the linear term p = (epsilon - z, epsilon + z) in
place of -e, and the equality sum alpha - sum alpha^* = 0; f(alpha) = 1/2 alpha' Q alpha + p' alpha.
A run advances in slices of pair updates through :func:`svmlab.solvers.slices.run`, so that
Ctrl-C interrupts it; slicing does not change the iterates.

Units: one iteration is one pair update; ``max_iter`` counts epochs of n updates, so the
solver stops after max_iter * n updates, and ``n_iter`` is ceil(updates / n). The trace is
recorded every ``k`` *updates* (``trace=k``), and its ``epoch`` column holds the number of
updates; it keeps at most max_iter // k + 1 records and the last one. ``dw_norm`` is
|w(alpha_t) - w(alpha_s)| between consecutive records, in the kernel's feature space.
:func:`run` returns, besides the result, the counts a trace cannot hold (:data:`SMOInfo`).
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..kernel_rows import prepare
from ..validation import check_bool, one_of, positive_number
from . import SolverResult, qmatrix, slices
from .dual_state import (LOW, UP, due, n_support, new_scratch, new_state, reconstruct_gradient, record,
                         record_regression, set_alpha, update_gradient_bar)
from .kernel_cache import EVALUATIONS, HITS, LENGTH, MISSES, entry, fit_to_active, new_generation, opened
from .qmatrix import q_column

TAU = 1e-12
SELECTIONS = ("second_order", "max_violating", "random")
SECOND_ORDER, MAX_VIOLATING, RANDOM = range(3)
SHRINK_EVERY = 1000

SMOInfo = namedtuple("SMOInfo", "updates cache_hits cache_misses kernel_evaluations n_free n_bounded pairs "
                                "record_stats")
SMOInfo.__doc__ = """Counts from one SMO run.

updates: pair updates; cache_hits / cache_misses: column requests served from the cache or
computed; kernel_evaluations: kernel values computed for Q's columns; n_free / n_bounded:
support vectors with 0 < alpha < U and alpha = U; pairs: (n_pairs, 2) the first chosen
working sets (i, j); record_stats: one row per trace record, columns n_free, n_bounded,
cache_hits, cache_misses."""

Problem = namedtuple("Problem", "Q p Ci code z epsilon")
Problem.__doc__ = """min 1/2 alpha' (Q + D) alpha + p' alpha, 0 <= alpha <= U(Ci, code), s' alpha = 0 (LIBSVM's
Solver): the Q-matrix, the linear term p, the box, the loss; z and epsilon are the regression's
targets (z empty for classification) for the trace rows."""
Rule = namedtuple("Rule", "tol max_updates shrinking selection seed")



def solve(X, kernel, y, Ci, code, free, tol, max_iter, rng, buf, shrinking=True, selection="second_order",
          cache_size=200):
    """The registry's entry (see :func:`run`)."""
    return run(X, kernel, y, Ci, code, free, tol, max_iter, rng, buf, shrinking, selection, cache_size)[0]


def run(X, kernel, y, Ci, code, free, tol, max_iter, rng, buf, shrinking=True, selection="second_order",
        cache_size=200, n_pairs=0):
    """Solve the dual by SMO; returns ``(SolverResult, SMOInfo)``.

    Arguments as every kernel solver (CONTRIBUTING.md); ``n_pairs`` working sets are kept
    in ``SMOInfo.pairs`` for pictures of the selection rules.
    """
    if not free:
        raise ValueError("solver='smo' needs the free bias (fit_intercept=True): without it there is no "
                         "equality constraint to keep, so use solver='dcd' for fit_intercept=False.")
    rule = SELECTIONS.index(one_of(selection, "selection", SELECTIONS))
    shrinking = check_bool(shrinking, "shrinking")
    kr = prepare(X, kernel)
    n = y.shape[0]
    pairs = np.full((int(n_pairs), 2), -1, dtype=np.int64)
    rule = Rule(tol, max_iter * n, shrinking, rule, int(rng.integers(2 ** 31)))
    sc = new_scratch(kr, n, buf.rows.shape[0])
    with opened(n, positive_number(cache_size, "cache_size")) as cache:
        prob = Problem(qmatrix.classification(cache, kr, y), np.full(n, -1.0), Ci, code, np.zeros(0), 0.0)
        alpha, b, updates = _smo(prob, rule, buf, pairs, sc)
    U = np.where(code == obj.HINGE, Ci, np.inf)
    free_sv = (alpha > 0) & (alpha < U)
    info = SMOInfo(updates, int(cache.state[HITS]), int(cache.state[MISSES]), int(cache.state[EVALUATIONS]),
                   int(free_sv.sum()), int((alpha >= U).sum()), pairs, sc.stats[: buf.state[0]].copy())
    converged = updates < max_iter * n
    return SolverResult(alpha, None, b, math.ceil(updates / n), converged), info


def solve_regression(X, kernel, z, Ci, epsilon, tol, max_iter, rng, buf, shrinking=True, cache_size=200):
    """Epsilon-SVR (L1 loss, free bias) by SMO on LIBSVM's 2n-variable dual: alpha then alpha^*,
    signs s = [+1]*n + [-1]*n, Q_jk = s_j s_k K(x_(j mod n), x_(k mod n)), the box [0, C_i] and
    the linear term p_i = epsilon - z_i, p_(i+n) = epsilon + z_i, with sum_j s_j alpha_j = 0.

    Returns SolverResult(alpha=beta, b=b) with beta_i = alpha_i - alpha_i^* and the decision
    f(x) = sum_i beta_i K(x_i, x) + b. ``max_iter`` counts epochs of 2n updates; the trace
    rows are those of :mod:`svmlab.regression` at beta, recorded every k updates.
    """
    shrinking = check_bool(shrinking, "shrinking")
    kr = prepare(X, kernel)
    n = z.shape[0]
    m = 2 * n
    p = np.concatenate([epsilon - z, epsilon + z])
    rule = Rule(tol, max_iter * m, shrinking, SECOND_ORDER, int(rng.integers(2 ** 31)))
    sc = new_scratch(kr, n, buf.rows.shape[0])
    with opened(n, positive_number(cache_size, "cache_size")) as cache:  # kernel columns of length n
        prob = Problem(qmatrix.regression(cache, kr), p, np.concatenate([Ci, Ci]), obj.HINGE, z, float(epsilon))
        alpha, b, updates = _smo(prob, rule, buf, np.zeros((0, 2), dtype=np.int64), sc)
    beta = alpha[:n] - alpha[n:]
    return SolverResult(beta, None, b, math.ceil(updates / m), updates < max_iter * m)


# -- SMO ----------------------------------------------------------------------------------
@njit(cache=True)
def _select(rule, st, Q, active_size, tol, work):
    """The working set (i, j) of eq. 5.9, or (-1, -1) when the violation is below tol."""
    y, cache = Q.s, Q.cache
    status, G, order = st.status, st.G, st.order
    i = -1
    m_up = -np.inf  # m(alpha) = max s over I_up
    for t in range(active_size):
        k = order[t]
        if status[k] & UP and -y[k] * G[k] >= m_up:
            m_up = -y[k] * G[k]
            i = k
    if i < 0:
        return -1, -1
    Qi = q_column(Q, i, order, active_size, work) if rule == SECOND_ORDER else cache.pool[:0]
    if cache.state[LENGTH] == y.shape[0]:  # full-length slots: compiled without the pos lookups
        j, m_low = _second(rule, st, y, active_size, i, m_up, Qi, None)
    else:
        j, m_low = _second(rule, st, y, active_size, i, m_up, Qi, cache.pos)
    if m_up + m_low < tol or j < 0:
        return -1, -1
    return i, j


@njit(cache=True)
def _second(rule, st, y, active_size, i, m_up, Qi, pos):
    """The second index j of eq. 5.9 by ``rule`` given (i, m_up), and -M(alpha) = max -s
    over I_low; Qi is column i (entry k at pos[k], or at k when pos is None)."""
    status, G, order = st.status, st.G, st.order
    j = -1
    m_low = -np.inf
    best = np.inf
    seen = 0
    for t in range(active_size):
        k = order[t]
        if not status[k] & LOW:
            continue
        yg = y[k] * G[k]
        if yg >= m_low:
            m_low = yg
            if rule == MAX_VIOLATING:
                j = k
        diff = m_up + yg  # s_i - s_k
        if diff <= 0.0 or rule == MAX_VIOLATING:
            continue
        if rule == SECOND_ORDER:
            eta = st.QD[i] + st.QD[k] - 2.0 * y[i] * y[k] * entry(Qi, pos, k)
            gain = -diff * diff / (eta if eta > 0.0 else TAU)
            if gain <= best:
                best = gain
                j = k
        else:  # uniform among the violating partners, by reservoir sampling
            seen += 1
            if np.random.random() * seen < 1.0:
                j = k
    return j, m_low


@njit(cache=True)
def pair_step(ai, aj, yi, yj, ui, uj, gi, gj, eta):
    """The new (alpha_i, alpha_j) after one SMO step (eqs. 5.5-5.7).

    Along alpha + s (y_i e_i - y_j e_j) f changes by -(s_i - s_j) s + eta s^2 / 2; the box
    0 <= alpha <= U keeps s in [L, H] (one interval per variable: Gu's L/H for equal
    and for opposite labels). A variable the clipping stops lands exactly on its bound.
    """
    s = (gj * yj - gi * yi) / (eta if eta > 0.0 else TAU)
    lo_i, hi_i = (-ai, ui - ai) if yi > 0.0 else (ai - ui, ai)
    lo_j, hi_j = (aj - uj, aj) if yj > 0.0 else (-aj, uj - aj)
    lo, hi = max(lo_i, lo_j), min(hi_i, hi_j)
    s = min(max(s, lo), hi)
    new_i = min(max(ai + yi * s, 0.0), ui)
    new_j = min(max(aj - yj * s, 0.0), uj)
    if s == hi:
        if hi == hi_i:
            new_i = ui if yi > 0.0 else 0.0
        if hi == hi_j:
            new_j = 0.0 if yj > 0.0 else uj
    elif s == lo:
        if lo == lo_i:
            new_i = 0.0 if yi > 0.0 else ui
        if lo == lo_j:
            new_j = uj if yj > 0.0 else 0.0
    return new_i, new_j


@njit(cache=True)
def _update(st, Q, i, j, active_size, work):
    y, cache = Q.s, Q.cache
    Qi = q_column(Q, i, st.order, active_size, work)
    Qj = q_column(Q, j, st.order, active_size, work)
    pos = cache.pos
    eta = st.QD[i] + st.QD[j] - 2.0 * y[i] * y[j] * Qi[pos[j]]
    ai, aj = st.alpha[i], st.alpha[j]
    new_i, new_j = pair_step(ai, aj, y[i], y[j], st.U[i], st.U[j], st.G[i], st.G[j], eta)
    set_alpha(st, y, i, new_i)
    set_alpha(st, y, j, new_j)
    di, dj = new_i - ai, new_j - aj
    if cache.state[LENGTH] == y.shape[0]:  # full-length slots: compiled without the pos lookups
        _add_columns(st.G, st.order, active_size, Qi, Qj, di, dj, None)
    else:
        _add_columns(st.G, st.order, active_size, Qi, Qj, di, dj, pos)
    st.G[i] += st.D[i] * di
    st.G[j] += st.D[j] * dj
    if (new_i >= st.U[i]) != (ai >= st.U[i]):
        update_gradient_bar(st, Q, i, work)
    if (new_j >= st.U[j]) != (aj >= st.U[j]):
        update_gradient_bar(st, Q, j, work)


@njit(cache=True)
def _add_columns(G, order, active_size, Qi, Qj, di, dj, pos):
    """G += Q-bar_:i d_i + Q-bar_:j d_j on the active set (entry k at pos[k], or k if pos is None)."""
    for t in range(active_size):
        k = order[t]
        G[k] += entry(Qi, pos, k) * di + entry(Qj, pos, k) * dj


@njit(cache=True)
def _shrink(st, Q, active_size, unshrunk, tol, work):
    """LIBSVM's shrinking; returns the new active size and whether the gradient was rebuilt."""
    y, cache = Q.s, Q.cache
    alpha, status, G, U, order = st.alpha, st.status, st.G, st.U, st.order
    m_up, m_low = -np.inf, -np.inf
    for t in range(active_size):
        k = order[t]
        if status[k] & UP:
            m_up = max(m_up, -y[k] * G[k])
        if status[k] & LOW:
            m_low = max(m_low, y[k] * G[k])
    n = y.shape[0]
    if not unshrunk and m_up + m_low <= 10.0 * tol:
        unshrunk = True
        reconstruct_gradient(st, Q, active_size, work)
        active_size = n
    if active_size == n:
        new_generation(cache)
        for k in range(n):  # ascending: the loops over the active set then read memory in order
            order[k] = k
    kept = 0
    dropped = np.empty(active_size, dtype=np.int64)
    n_dropped = 0
    for t in range(active_size):  # a stable partition: the active set stays ascending
        k = order[t]
        s = -y[k] * G[k]
        free = 0.0 < alpha[k] < U[k]
        # a bounded variable in I_up only (I_low only) cannot pair with anyone if s < M (s > m)
        if free or (s >= -m_low if status[k] & UP else s <= m_up):
            order[kept] = k
            kept += 1
        else:
            dropped[n_dropped] = k
            n_dropped += 1
    order[kept:active_size] = dropped[:n_dropped]
    fit_to_active(cache, order, kept)
    return kept, unshrunk


ACTIVE, UNSHRUNK, COUNTER, UPDATES = range(4)  # the entries of a run's loop counters


class _Run:
    """An SMO run as a state that :func:`svmlab.solvers.slices.run` advances by at most
    ``budget`` pair updates a slice; slicing leaves the iterates unchanged bit for bit."""

    unit = "pair update"

    def __init__(self, prob, rule, buf, pairs, sc):
        self.prob, self.rule, self.buf, self.pairs, self.sc = prob, rule, buf, pairs, sc
        self.st, self.loop = _begin(prob, rule, buf)

    def advance(self, budget):
        return _advance(self.prob, self.rule, self.st, self.loop, self.buf, self.pairs, self.sc, budget)

    def status(self):
        return self.loop[UPDATES], self.loop[ACTIVE], np.nan

    def result(self):
        """(alpha, b, updates) once finished."""
        p = self.prob
        return self.st.alpha, obj.free_bias(self.st.alpha, self.st.G, p.Ci, p.code, p.Q.s), int(self.loop[UPDATES])


def _smo(prob, rule, buf, pairs, sc):
    """SMO on ``prob`` (a :data:`Problem`) with the :data:`Rule`, in slices; returns (alpha, b, updates)."""
    return slices.run(_Run(prob, rule, buf, pairs, sc), "smo").result()


@njit(cache=True)
def _begin(prob, rule, buf):
    """The initial state and loop counters (active size, unshrunk, shrinking countdown, updates)."""
    np.random.seed(rule.seed)
    n = prob.Q.s.shape[0]
    st = new_state(prob.Q, prob.p, prob.Ci, prob.code)
    loop = np.array([n, 0, min(n, SHRINK_EVERY) + 1, 0], dtype=np.int64)
    trace.start(buf)
    return st, loop


@njit(cache=True)
def _advance(prob, rule, st, loop, buf, pairs, sc, budget):
    """At most ``budget`` pair updates; returns (updates run, finished)."""
    Q, Ci, code = prob.Q, prob.Ci, prob.code
    n = Q.s.shape[0]
    active_size, unshrunk, counter, t = loop[ACTIVE], loop[UNSHRUNK] != 0, loop[COUNTER], loop[UPDATES]
    start = t
    finished = False
    while t - start < budget:
        i = j = -1
        if t < rule.max_updates:
            counter -= 1
            if counter == 0:
                counter = min(n, SHRINK_EVERY)
                if rule.shrinking:
                    active_size, unshrunk = _shrink(st, Q, active_size, unshrunk, rule.tol, sc.work)
            i, j = _select(rule.selection, st, Q, active_size, rule.tol, sc.work)
            if i < 0 and active_size < n:  # the shrunk problem is solved: check the whole one
                reconstruct_gradient(st, Q, active_size, sc.work)
                active_size = n
                i, j = _select(rule.selection, st, Q, active_size, rule.tol, sc.work)
                counter = 1
        done = i < 0
        if due(buf, t, done, sc):
            n_active = active_size if rule.shrinking else n_support(st.alpha)
            if prob.z.shape[0] > 0:
                record_regression(buf, t, done, st, Q, prob.z, prob.epsilon, Ci[:prob.z.shape[0]], n_active, sc)
            else:
                record(buf, t, done, st, Q, Ci, code, True, n_active, sc)
        if done:
            finished = True
            break
        if t < pairs.shape[0]:
            pairs[t, 0] = i
            pairs[t, 1] = j
        _update(st, Q, i, j, active_size, sc.work)
        t += 1
    if finished and active_size < n:
        reconstruct_gradient(st, Q, active_size, sc.work)
        active_size = n
    loop[ACTIVE], loop[UNSHRUNK], loop[COUNTER], loop[UPDATES] = active_size, unshrunk, counter, t
    return t - start, finished
