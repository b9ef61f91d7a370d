"""SMO: sequential minimal optimization of the kernel SVM dual with a free bias (chapter 5).

Minimises f(alpha) = 1/2 alpha' Q-bar alpha - e' alpha subject to 0 <= alpha_i <= U_i and
sum_i y_i alpha_i = 0 (the dual of eq. 5.2; Q-bar = Q + D, Q_ij = y_i y_j K(x_i, x_j)), two
variables at a time, as LIBSVM's ``Solver`` (Platt 1998; Keerthi et al. 2001; Fan, Chen and
Lin 2005):

1. working set (eq. 5.9): with s_t = -y_t G_t, the first index i maximises s over
   I_up = {t : y_t = +1, alpha_t < U_t or y_t = -1, alpha_t > 0}, which gives
   m(alpha) = s_i; M(alpha) is the smallest s over I_low (the mirror set), and the second
   index j is taken from I_low by ``selection``:
   ``"max_violating"`` the smallest s (Keerthi et al.), ``"second_order"`` the largest
   decrease (s_i - s_j)^2 / (2 eta_ij) of f among the violating j (Fan et al., the default),
   ``"random"`` a uniformly random violating j (the random partner of Gu (2019) and of the
   "simplified SMO" of many courses; i is still the maximal violator, so every step makes
   progress);
2. pair step (eqs. 5.5-5.7): move along alpha + t (y_i e_i - y_j e_j), which keeps
   sum y alpha fixed, to t* = (s_i - s_j) / eta_ij with eta_ij = Q-bar_ii + Q-bar_jj -
   2 K_ij, clipped to the interval [L, H] that the box leaves (the L/H clipping of seed
   004 for equal and for opposite labels). Where eta_ij <= 0 (duplicate points, a zero
   kernel column) LIBSVM's tau = 1e-12 replaces it, and the step runs to the box's edge;
3. the gradient G = Q-bar alpha - e is kept up to date with the two columns Q_:i, Q_:j,
   asked of a :mod:`Q-matrix <svmlab.solvers.qmatrix>` (an LRU kernel cache of ``cache_size`` MB
   behind it); the same pass finds the next i (m(alpha) at the new alpha), so an update reads
   the active set twice, not three times; the state and its recording are
   :mod:`svmlab.solvers.dual_state`'s. The two passes read the active set's G, status, signs,
   Q-bar_jj and column places from copies in the active set's order (:data:`Packed`, as
   LIBSVM's Solver keeps its active variables first), not through ``order``;
4. stop when the maximal violation m(alpha) - M(alpha) = max_{I_up} s - min_{I_low} s is
   below ``tol`` (LIBSVM's rule; :func:`svmlab.objective.kkt_violation`, whose ``up`` and
   ``low`` are m and M as here). The bias is LIBSVM's: b = -y_i G_i averaged over the free
   support vectors, or the midpoint rule without any (:func:`svmlab.objective.free_bias`).

Shrinking (``shrinking=True``) follows LIBSVM: every min(n, 1000) updates the bounded
variables that cannot be part of a violating pair leave the active set; the gradient of the
others is then kept only on the active set and rebuilt (``G_bar`` holds the contribution of
the variables at their upper bound) when the violation first falls below 10 tol and when the
shrunk problem is solved.

The squared hinge works the same way (D_ii = 1/(2 C_i) on the diagonal, U_i = inf).
Without a free bias there is no equality constraint and no reason for pairs: use
``solver="dcd"`` (:mod:`svmlab.solvers.kernel_dcd`); ``fit_intercept=False`` raises here.

The same solver runs LIBSVM's epsilon-SVR (:func:`start_regression`): 2n variables alpha,
alpha^* with the signs y = +1, -1 (LIBSVM's y of the 2n-variable form), the linear term
p = (epsilon - z, epsilon + z) in place of -e, and the equality sum alpha - sum alpha^* = 0;
f(alpha) = 1/2 alpha' Q alpha + p' alpha.

A run is a state (:func:`start`, :func:`start_regression`) that :func:`svmlab.solvers.slices.run`
advances in slices of pair updates, so that Ctrl-C interrupts it and ``callback`` sees it;
slicing does not change the iterates. ``alpha0`` (warm_start) starts it from a previous
alpha, made feasible for the new box (:func:`svmlab.solvers.dual_state.start_from`): a kernel
called apart after the run's start at 0, so that one compiled ``_advance`` serves cold and warm
starts (a warm start compiled a second one: 15 s for SMO on a 2-core Xeon).

Units: one step is one pair update (the state's ``unit``, "pair update"); ``max_iter``
counts epochs of n updates (2n for SVR), so the solver stops after max_iter * n updates, and
``n_iter`` is ceil(updates / n). The trace is recorded every ``k`` *updates* (``trace=k``),
its ``epoch`` column counts updates (``Trace.unit`` says so), and it keeps at most
max_iter // k + 1 records and the last one. ``dw_norm`` is |w(alpha_t) - w(alpha_s)| between
consecutive records, in the kernel's feature space. :func:`run` returns, besides the result,
the counts a trace cannot hold (:data:`SMOInfo`).
"""

import math
from collections import namedtuple

import numpy as np
from numba import prange

from .. import objective as obj
from .. import trace
from ..jit import REFCOUNTS, inner, njit, without_refcounts
from ..kernel_rows import prepare
from ..threads import best_time, min_part, part, worth_splitting
from . import FREE_BIAS, SELECTIONS, SolverResult, qmatrix, slices
from .dual_state import (LOW, UP, DualRun, Problem, begin, held_cache, n_support, new_scratch, new_state,
                         reconstruct_gradient, record_row, row_due, set_alpha, start_from, update_gradient_bar)
from .kernel_cache import EVALUATIONS, HITS, LENGTH, MISSES, PLACES, fit_to_active, new_generation, place
from .qmatrix import q_column

TAU = 1e-12
SECOND_ORDER, MAX_VIOLATING, RANDOM = range(3)  # the codes of the registry's SELECTIONS
SHRINK_EVERY = 1000

SMOInfo = namedtuple("SMOInfo", "updates cache_hits cache_misses kernel_evaluations n_free n_bounded pairs "
                                "record_stats")
SMOInfo.__doc__ = """Counts from one SMO run.

updates: pair updates; cache_hits / cache_misses: column requests served from the cache or
computed; kernel_evaluations: kernel values computed for Q's columns; n_free / n_bounded:
support vectors with 0 < alpha < U and alpha = U; pairs: (n_pairs, 2) the first chosen
working sets (i, j); record_stats: one row per trace record, columns n_free, n_bounded,
cache_hits, cache_misses."""

Rule = namedtuple("Rule", "tol max_updates shrinking selection seed split")
Rule.__doc__ = """SMO's stopping rule and options: tol, the most pair updates, shrinking, the
selection code, the seed of numba's generator (for ``selection="random"``), and the fewest
entries a thread's part of a loop over the active set must have
(:func:`svmlab.threads.worth_splitting`)."""


Packed = namedtuple("Packed", "G status y QD at placed")
Packed.__doc__ = """The active set as the selection and the gradient's update read it: entry r of each array
belongs to the variable order[r] at position r of the active set, so the two passes of an update read
memory in order instead of through ``order`` (on one thread each pass took about 1.5 times less time an
entry, mid-run at 10,000 x 20, C = 10). G, status: the live gradient and status of
the active variables (the state's G is written back by :func:`_unpack` before anything else reads it;
the status is kept in both); y, QD: their signs and Q-bar_jj; at: where each one's entry is in a
column of Q (``place(pos, order[r])``), valid for the slot length ``placed[0]``; unsigned: numba wraps a
negative signed index around, a test and a select on every entry (the gradient's update took 2.4 ns an
entry with signed places, 1.9 ns unsigned, mid-run at 10,000 x 20, C = 10). The positions
0..active_size-1 are filled by :func:`_pack` at the start of a slice and after every shrinking and
gradient rebuild, when ``order`` changes; ``at`` also after the kernel cache has laid out its slots
again (:func:`_places`)."""


def new_packed(m):
    """Empty :data:`Packed` arrays for m variables."""
    return Packed(np.empty(m), np.empty(m, dtype=np.int8), np.empty(m), np.empty(m), np.empty(m, dtype=np.uint64),
                  np.zeros(1, dtype=np.int64))


def start(problem, stop, buf, rng, alpha0=None, shrinking=True, selection="second_order", cache_size=200,
          n_jobs=1, n_pairs=0):
    """An SMO state on ``problem`` (a ``solvers.KernelProblem`` with a free bias), from 0 or
    from ``alpha0``; ``stop`` a ``coordinate.Stop``; the options checked by the registry
    (``n_jobs`` threads compute the kernel columns: :func:`svmlab.kernel_rows.column`).
    ``n_pairs`` working sets are kept in ``SMOInfo.pairs`` (:meth:`State.info`) for pictures of
    the selection rules."""
    X, kernel, y, Ci, code, free = problem
    if not free:
        raise ValueError(f"solver='smo' {FREE_BIAS.reason}")
    n = y.shape[0]
    rule = Rule(stop.tol, stop.max_iter * n, shrinking, SELECTIONS.index(selection), int(rng.integers(2 ** 31)), 0)
    kr = prepare(X, kernel, n_jobs)
    hold, cache = held_cache(n, cache_size)
    prob = Problem(qmatrix.classification(cache, kr, y), np.full(n, -1.0), Ci, code, True, None, 0.0)
    pairs = np.full((int(n_pairs), 2), -1, dtype=np.int64)
    buf = trace.used(buf)
    return State(prob, rule, buf, new_scratch(kr, n, buf), pairs, hold, alpha0)


def start_regression(problem, stop, buf, rng, alpha0=None, shrinking=True, cache_size=200, n_jobs=1):
    """An SMO state for epsilon-SVR (L1 loss, free bias) on ``problem`` (a
    ``solvers.KernelRegressionProblem``), on LIBSVM's 2n-variable dual: alpha then alpha^*, signs
    y = [+1]*n + [-1]*n, Q_jk = y_j y_k K(x_(j mod n), x_(k mod n)), the box [0, C_i] and the
    linear term p_i = epsilon - z_i, p_(i+n) = epsilon + z_i, with sum_j y_j alpha_j = 0.

    Its result is SolverResult(alpha=beta, b=b) with beta_i = alpha_i - alpha_i^* and the
    decision f(x) = sum_i beta_i K(x_i, x) + b; ``alpha0`` is a previous beta (alpha_i =
    max(beta_i, 0), alpha_i^* = max(-beta_i, 0)). ``max_iter`` counts epochs of 2n updates; the
    trace rows are those of :mod:`svmlab.regression` at beta, recorded every k updates.
    """
    X, kernel, z, Ci, epsilon = problem
    n = z.shape[0]
    rule = Rule(stop.tol, stop.max_iter * 2 * n, shrinking, SECOND_ORDER, int(rng.integers(2 ** 31)), 0)
    kr = prepare(X, kernel, n_jobs)
    hold, cache = held_cache(n, cache_size)  # kernel columns of length n (qmatrix.regression)
    prob = Problem(qmatrix.regression(cache, kr), np.concatenate([epsilon - z, epsilon + z]), np.concatenate([Ci, Ci]),
                   obj.HINGE, True, z, float(epsilon))
    pair_form = None if alpha0 is None else np.concatenate([np.maximum(alpha0, 0.0), np.maximum(-alpha0, 0.0)])
    buf = trace.used(buf)
    return State(prob, rule, buf, new_scratch(kr, n, buf), np.zeros((0, 2), dtype=np.int64), hold, pair_form)


def run(problem, stop, buf, rng, alpha0=None, **options):
    """The whole SMO run in slices; returns ``(SolverResult, SMOInfo)``. Arguments as :func:`start`."""
    state = slices.run(start(problem, stop, buf, rng, alpha0, **options), "smo")
    return state.result(), state.info()


ACTIVE, UNSHRUNK, COUNTER, UPDATES, BEGUN = range(5)  # the entries of a run's loop counters


class State(DualRun):
    """An SMO run as a state that :func:`svmlab.solvers.slices.run` advances by at most
    ``budget`` pair updates a slice; slicing leaves the iterates unchanged bit for bit."""

    unit = "pair update"

    def __init__(self, prob, rule, buf, sc, pairs, hold, alpha0):
        super().__init__(hold)
        self.prob, self.rule, self.buf, self.sc, self.pairs = prob, rule, buf, sc, pairs
        n = prob.p.shape[0]
        self.act = new_packed(n)
        self.st, self.loop = new_state(prob), np.array([n, 0, min(n, SHRINK_EVERY) + 1, 0, 0], dtype=np.int64)
        self._slice(0)  # begins the run at alpha = 0 (dual_state.begin)
        if alpha0 is not None:
            start_from(self.st, prob, np.asarray(alpha0, dtype=np.float64), sc.work)
        if prob.Q.kr.threads is not None:
            self.rule = rule._replace(split=_loop_split(self.act, prob.Q))
        trace.start_after(buf)  # the set-up is done and nothing is recorded yet

    def _slice(self, budget):
        return _advance(self.prob, self.rule, self.st, self.act, self.loop, self.buf, self.pairs, self.sc, budget)

    def status(self):
        return self.loop[UPDATES], self.loop[ACTIVE], np.nan

    def result(self):
        """The SolverResult: alpha (for SVR beta = alpha - alpha^*), LIBSVM's bias, the epochs
        ceil(updates / m) of m = len(alpha) updates, and whether ``tol`` was met."""
        st, p = self.st, self.prob
        m, updates = st.alpha.shape[0], int(self.loop[UPDATES])
        b = obj.free_bias(st.alpha, st.G, p.Ci, p.code, p.Q.s)
        alpha = st.alpha if p.z is None else st.alpha[:m // 2] - st.alpha[m // 2:]
        return SolverResult(alpha, None, b, math.ceil(updates / m), updates < self.rule.max_updates)

    def info(self):
        """The counts of the run that a trace cannot hold (:data:`SMOInfo`)."""
        alpha, U, cache = self.st.alpha, self.st.U, self.prob.Q.cache
        return SMOInfo(int(self.loop[UPDATES]), int(cache.state[HITS]), int(cache.state[MISSES]),
                       int(cache.state[EVALUATIONS]), int(((alpha > 0) & (alpha < U)).sum()), int((alpha >= U).sum()),
                       self.pairs, self.sc.stats[: 0 if self.buf is None else self.buf.state[0]].copy())


def _loop_split(act, Q):
    """The fewest entries a thread's part of a loop over the active set must have
    (:func:`svmlab.threads.min_part`), its cost an entry timed on the selection's first loop (all
    variables are active when the run begins)."""
    m = act.G.shape[0]
    return min_part(best_time(lambda: _max_up(act, 0, m)) / m, Q.kr.threads)


@without_refcounts
def _advance(prob, rule, st, act, loop, buf, pairs, sc, budget):
    """At most ``budget`` pair updates, after the run's start in its first slice (``budget`` 0 for
    the start alone); returns (updates run, finished)."""
    Q = prob.Q
    n = Q.s.shape[0]
    if loop[BEGUN] == 0:
        begin(st, prob, rule.seed, None, sc.work)
        loop[BEGUN] = 1
    active_size, unshrunk, counter, updates = loop[ACTIVE], loop[UNSHRUNK] != 0, loop[COUNTER], loop[UPDATES]
    first = updates
    finished = False
    # m(alpha) and its position i: searched (on one thread: it is rare) at the start of a slice and
    # after shrinking, else found by the last pair's gradient update (_add_columns), a pass saved
    up, i = _pack(act, st, Q, active_size)
    while updates - first < budget:
        j = -1
        if updates < rule.max_updates:
            counter -= 1
            if counter == 0:
                counter = min(n, SHRINK_EVERY)
                if rule.shrinking:
                    _unpack(act, st.order, st.G, active_size)
                    active_size, unshrunk = _shrink(st, Q, active_size, unshrunk, rule.tol, sc.work)
                    up, i = _pack(act, st, Q, active_size)
            for _ in range(2):  # a loop: one copy of the inlined _select
                i, j = _select(rule, act, st, Q, active_size, up, i, sc.work)
                if i >= 0 or active_size == n:
                    break
                # the shrunk problem is solved: check the whole one
                _unpack(act, st.order, st.G, active_size)
                _reconstruct(st, Q, active_size, sc.work)
                active_size = n
                up, i = _pack(act, st, Q, active_size)
                counter = 1
        else:
            i = -1
        done = i < 0
        if buf is not None and row_due(buf, updates, done, sc):
            _unpack(act, st.order, st.G, active_size)
            record_row(buf, updates, done, st, prob, active_size if rule.shrinking else n_support(st.alpha), sc)
        if done:
            finished = True
            break
        if updates < pairs.shape[0]:
            pairs[updates, 0] = st.order[i]
            pairs[updates, 1] = st.order[j]
        up, i = _update(act, st, Q, i, j, active_size, rule.split, sc.work)
        updates += 1
    _unpack(act, st.order, st.G, active_size)
    if finished and active_size < n:
        _reconstruct(st, Q, active_size, sc.work)
        active_size = n
    loop[ACTIVE], loop[UNSHRUNK], loop[COUNTER], loop[UPDATES] = active_size, unshrunk, counter, updates
    return updates - first, finished


# -- the active set in position order (Packed) -----------------------------------------
@njit(cache=True, inline="always")
def _pack(act, st, Q, active_size):
    """Fill ``act`` for the active set order[:active_size] from the state; returns m(alpha) and its
    position there (:func:`_max_up`), which the next selection needs whenever the set is packed anew."""
    _fill_packed(act, st.order, st.G, st.status, st.QD, Q.s, active_size)
    _places(act, Q.cache.pos, Q.cache.state[LENGTH], st.order, active_size)
    return _max_up(act, 0, active_size)


@njit(cache=True, inline="always")
def _fill_packed(act, order, G, status, QD, y, active_size):
    for r in range(active_size):
        k = order[r]
        act.G[r], act.status[r], act.y[r], act.QD[r] = G[k], status[k], y[k], QD[k]


@inner
def _places(act, pos, length, order, active_size):
    """act.at[r] = where variable order[r] is in a column (``pos`` of the cache: None, its place is
    itself), for slots of ``length``."""
    for r in range(active_size):
        act.at[r] = place(pos, order[r])
    act.placed[0] = length


@njit(cache=True, inline="always")
def _unpack(act, order, G, active_size):
    """Write the live gradient of the active set back into the state's G."""
    for r in range(active_size):
        G[order[r]] = act.G[r]


@njit(cache=True, inline="always")
def _column_at(act, Q, k, order, active_size, work):
    """Column k of Q on the active set (:func:`svmlab.solvers.qmatrix.q_column`); ``act.at`` follows
    the kernel cache when fetching it laid the slots out again (all samples back at full length)."""
    col = q_column(Q, k, order, active_size, work)
    if Q.cache.state[LENGTH] != act.placed[0]:
        _places(act, Q.cache.pos, Q.cache.state[LENGTH], order, active_size)
    return col


# -- the steps of SMO ----------------------------------------------------------------------
@inner
def _reconstruct(st, Q, active_size, work):
    """:func:`svmlab.solvers.dual_state.reconstruct_gradient`, compiled once for SMO's three calls
    (an inlined function is compiled again at each call)."""
    reconstruct_gradient(st, Q, active_size, work)


@njit(cache=True, inline="always")
def _select(rule, act, st, Q, active_size, up, i, work):
    """The working set (i, j) of eq. 5.9, as positions in the active set, given (up = m(alpha), i),
    or (-1, -1) when the violation m(alpha) - M(alpha) is below tol. A long active set is searched
    by Q.kr.threads threads (:func:`svmlab.threads.worth_splitting`)."""
    if i < 0:
        return -1, -1
    if rule.selection == SECOND_ORDER:
        Qi = _column_at(act, Q, st.order[i], st.order, active_size, work)
    else:
        Qi = Q.cache.pool[:0]
    j, low = _search_low(rule, act, active_size, i, up, Qi, Q.kr.threads)
    if up - low < rule.tol or j < 0:
        return -1, -1
    return i, j


@njit(cache=True)
def _max_up(act, start, stop):
    """m(alpha) = max s over I_up among the positions start:stop of the active set, and its position
    (the last of equals)."""
    up, i = -np.inf, -1
    for r in range(start, stop):
        up, i = _up_candidate(act, r, up, i)
    return up, i


@njit(cache=True, inline="always")
def _up_candidate(act, r, up, i):
    """(up, i) after position r, in order: (s, r) when its variable is in I_up and s = -y G >= up."""
    if act.status[r] & UP and -act.y[r] * act.G[r] >= up:
        return -act.y[r] * act.G[r], r
    return up, i


@njit(cache=True, inline="always")
def _last_max(ups, found):
    """The parts' maxima (ups[c] at index found[c], -1 for none) combined in order, later parts
    winning ties: the (m(alpha), i) of one pass."""
    up, i = -np.inf, -1
    for c in range(ups.shape[0]):
        if found[c] >= 0 and ups[c] >= up:
            up, i = ups[c], found[c]
    return up, i


@inner
def _search_low(rule, act, active_size, i, up, Qi, threads):
    """(j, M(alpha)) by :func:`_second` over the active set, in parts when it is long (never for
    ``selection="random"``, whose reservoir draws in order); compiled for threads = None without
    parallel code."""
    if threads is not None and rule.selection != RANDOM and worth_splitting(active_size, threads, rule.split):
        return _split_second(rule.selection, act, active_size, i, up, Qi, threads)
    j, low, _ = _second(rule.selection, act, 0, active_size, i, up, Qi)
    return j, low


@inner(parallel=True, **REFCOUNTS)
def _split_second(rule, act, active_size, i, up, Qi, T):
    """:func:`_second` in T parts. Within a part the last of equal minima wins, so the last part
    that holds the least gain (max_violating: the least s) gives the j of one pass."""
    found, lows, bests = np.empty(T, dtype=np.int64), np.empty(T), np.empty(T)
    for c in prange(T):
        lo, hi = part(0, active_size, c, T)
        found[c], lows[c], bests[c] = _second(rule, act, lo, hi, i, up, Qi)
    j, low, best = -1, np.inf, np.inf
    for c in range(T):  # the rule's key: M(alpha) for max_violating, the gain for second_order
        key, least = (lows[c], low) if rule == MAX_VIOLATING else (bests[c], best)
        if found[c] >= 0 and key <= least:
            j = found[c]
        low, best = min(low, lows[c]), min(best, bests[c])
    return j, low


@njit(cache=True, inline="always")
def _second(rule, act, start, stop, i, up, Qi):
    """The second position j of eq. 5.9 by ``rule`` among the positions start:stop of the active set
    given (i, up = m(alpha)), M(alpha) = min s over I_low there, and the least gain (second_order);
    Qi is the column of position i's variable (entry of position r at act.at[r])."""
    status, G, y = act.status, act.G, act.y
    j = -1
    low = np.inf  # M(alpha)
    best = np.inf
    seen = 0
    for r in range(start, stop):
        if not status[r] & LOW:
            continue
        s = -y[r] * G[r]
        if s <= low:
            low = s
            if rule == MAX_VIOLATING:
                j = r
        diff = up - s  # s_i - s_r
        if diff <= 0.0 or rule == MAX_VIOLATING:
            continue
        if rule == SECOND_ORDER:
            eta = _eta(act, Qi, i, r)
            gain = -diff * diff / (eta if eta > 0.0 else TAU)
            if gain <= best:
                best = gain
                j = r
        else:  # uniform among the violating partners, by reservoir sampling
            seen += 1
            if np.random.random() * seen < 1.0:
                j = r
    return j, low, best


@njit(cache=True, inline="always")
def _eta(act, Qi, i, r):
    """eta = Q-bar_ii + Q-bar_rr - 2 Q_ir for the positions i and r (eq. 5.6's curvature along the pair's
    direction), Qi the column of position i's variable."""
    return act.QD[i] + act.QD[r] - 2.0 * act.y[i] * act.y[r] * Qi[act.at[r]]


@njit(cache=True, inline="always")
def pair_step(ai, aj, yi, yj, ui, uj, gi, gj, eta):
    """The new (alpha_i, alpha_j) after one SMO step (eqs. 5.5-5.7).

    Along alpha + t (y_i e_i - y_j e_j) f changes by -(s_i - s_j) t + eta t^2 / 2; the box
    0 <= alpha <= U keeps t in [L, H] (one interval per variable: Gu's L/H for equal
    and for opposite labels). A variable the clipping stops lands exactly on its bound.
    """
    t = (gj * yj - gi * yi) / (eta if eta > 0.0 else TAU)  # (s_i - s_j) / eta, eq. 5.6
    lo_i, hi_i = (-ai, ui - ai) if yi > 0.0 else (ai - ui, ai)
    lo_j, hi_j = (aj - uj, aj) if yj > 0.0 else (-aj, uj - aj)
    lo, hi = max(lo_i, lo_j), min(hi_i, hi_j)
    t = min(max(t, lo), hi)
    new_i = min(max(ai + yi * t, 0.0), ui)
    new_j = min(max(aj - yj * t, 0.0), uj)
    if t == hi:
        if hi == hi_i:
            new_i = ui if yi > 0.0 else 0.0
        if hi == hi_j:
            new_j = 0.0 if yj > 0.0 else uj
    elif t == lo:
        if lo == lo_i:
            new_i = 0.0 if yi > 0.0 else ui
        if lo == lo_j:
            new_j = uj if yj > 0.0 else 0.0
    return new_i, new_j


@njit(cache=True, inline="always")
def _update(act, st, Q, i, j, active_size, split, work):
    """The pair step on the positions (i, j) and the gradient's update with the two columns (eq. 5.8);
    returns m(alpha) and its position at the new alpha, found in the same pass."""
    y, order = Q.s, st.order
    ki, kj = order[i], order[j]
    Qi = _column_at(act, Q, ki, order, active_size, work)
    Qj = _column_at(act, Q, kj, order, active_size, work)
    eta = _eta(act, Qi, i, j)
    ai, aj = st.alpha[ki], st.alpha[kj]
    new_i, new_j = pair_step(ai, aj, y[ki], y[kj], st.U[ki], st.U[kj], act.G[i], act.G[j], eta)
    set_alpha(st, y, ki, new_i)
    set_alpha(st, y, kj, new_j)
    act.status[i], act.status[j] = st.status[ki], st.status[kj]
    di, dj = new_i - ai, new_j - aj
    act.G[i] += st.D[ki] * di  # Q-bar = Q + D: the diagonal's part first, so the pass sees the final G
    act.G[j] += st.D[kj] * dj
    up, r = _add_columns(act, active_size, Qi, Qj, di, dj, Q.kr.threads, split)
    for v, new, old in ((ki, new_i, ai), (kj, new_j, aj)):  # a loop: one call of the inlined helper
        if (new >= st.U[v]) != (old >= st.U[v]):
            update_gradient_bar(st, Q, v, work)
    return up, r


@inner
def _add_columns(act, active_size, Qi, Qj, di, dj, threads, split):
    """G += Q_:i d_i + Q_:j d_j on the active set (the entry of position r at act.at[r]), in parts
    when it is long, and (m(alpha), i) of the new G as :func:`_max_up` finds it; compiled for
    threads = None without parallel code."""
    if threads is not None and worth_splitting(active_size, threads, split):
        return _split_add(act, active_size, Qi, Qj, di, dj, threads)
    return _add_part(act, 0, active_size, Qi, Qj, di, dj)


@inner(parallel=True, **REFCOUNTS)
def _split_add(act, active_size, Qi, Qj, di, dj, T):
    ups, found = np.empty(T), np.empty(T, dtype=np.int64)
    for c in prange(T):
        lo, hi = part(0, active_size, c, T)
        ups[c], found[c] = _add_part(act, lo, hi, Qi, Qj, di, dj)
    return _last_max(ups, found)


@njit(cache=True, inline="always")
def _add_part(act, start, stop, Qi, Qj, di, dj):
    """The gradient update on the positions start:stop and, as :func:`_max_up`, the largest s over I_up."""
    G, at = act.G, act.at
    up, i = -np.inf, -1
    for r in range(start, stop):
        G[r] += Qi[at[r]] * di + Qj[at[r]] * dj
        up, i = _up_candidate(act, r, up, i)
    return up, i


@njit(cache=True, inline="always")
def _shrink(st, Q, active_size, unshrunk, tol, work):
    """LIBSVM's shrinking; returns the new active size and whether the gradient was rebuilt."""
    y, cache = Q.s, Q.cache
    alpha, status, G, U, order = st.alpha, st.status, st.G, st.U, st.order
    up, low = -np.inf, np.inf  # m(alpha), M(alpha) on the active set
    for r in range(active_size):
        k = order[r]
        if status[k] & UP:
            up = max(up, -y[k] * G[k])
        if status[k] & LOW:
            low = min(low, -y[k] * G[k])
    n = y.shape[0]
    if not unshrunk and up - low <= 10.0 * tol:
        unshrunk = True
        _reconstruct(st, Q, active_size, work)
        active_size = n
    if active_size == n:
        new_generation(cache)
        for k in range(n):  # ascending: the loops over the active set then read memory in order
            order[k] = k
    kept = np.int64(0)  # not 0: a literal counter passed on compiles the callee twice
    dropped = cache.book[PLACES]  # the cache's scratch, free until fit_to_active below
    n_dropped = 0
    for r in range(active_size):  # a stable partition: the active set stays ascending
        k = order[r]
        s = -y[k] * G[k]
        free = 0.0 < alpha[k] < U[k]
        # a bounded variable in I_up only (I_low only) cannot pair with anyone if s < M (s > m)
        if free or (s >= low if status[k] & UP else s <= up):
            order[kept] = k
            kept += 1
        else:
            dropped[n_dropped] = k
            n_dropped += 1
    for r in range(n_dropped):  # element loops: a slice assignment compiles its shape check's message
        order[kept + r] = dropped[r]
    fit_to_active(cache, order, kept)
    return kept, unshrunk
