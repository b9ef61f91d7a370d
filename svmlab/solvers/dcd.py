"""Dual coordinate descent with shrinking (book chapter 3, Algorithm 3.1; chapter 4, Algorithm 4.1).

The method of Hsieh, Chang, Lin, Keerthi and Sundararajan (ICML 2008), as LIBLINEAR's
``solve_l2r_l1l2_svc`` runs it. It minimises the unified dual (eq. 3.1)

    f(alpha) = 1/2 alpha' Q-bar alpha - e' alpha,   0 <= alpha_i <= U_i,   Q-bar = Q + D

one coordinate at a time, keeping w = sum_i alpha_i y_i x_i up to date, so that a step costs
O(nnz of x_i)::

    G_i  = y_i w.x_i - 1 + D_ii alpha_i                            (eq. 3.4)
    PG_i = G_i projected on the box                                (eq. 3.6)
    if PG_i != 0:  alpha_i <- min(max(alpha_i - G_i / Q-bar_ii, 0), U_i)     (eq. 3.5)
                   w <- w + (new - old) y_i x_i                     (eq. 3.7)

An outer pass (an epoch) visits the active variables in a random permutation, in index order
("cyclic") or drawn with replacement ("random": randomized coordinate descent; a pass then draws
about 1 - 1/e = 63 % of the variables, and the stopping rule below reads only the PG_i of those). Shrinking (eq. 4.2): with M and m the
largest and smallest PG of the previous pass, a variable at 0 with G_i > M, or at U_i with
G_i < m, leaves the active set. Stopping: ``"pg"`` is M - m <= tol over a pass (eq. 3.8), the rule
of Hsieh et al. (2008) and of LIBLINEAR's earlier releases; newer ones (as linear.cpp of 2.50)
also require |M| <= tol and |m| <= tol, which this rule does not. ``"dw"`` is Roethel & Brynda's
|w_k - w_(k-1)| < tol (eq. 3.9). When the shrunk problem meets
the rule, every variable comes back (the unshrink) and the rule must hold on a full pass.
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..jit import njit, ready
from ..rows import assign, distance, dot, lookahead, margins, prefetch, prefetch_row, prefetch_row_start, row_axpy, row_dot
from . import ORDERS
from .coordinate import (ACTIVE, CYCLIC, EPOCH, N_ACTIVE, PERMUTATION, RANDOM, STEPS, ShrinkingState, below,
                         clipped_step, compact, diagonals, end_pass, seed, shrinking_count, shuffle, slice_spent,
                         starting_point)

Rule = namedtuple("Rule", "tol max_iter shrinking order dw_rule")
Rule.__doc__ = """DCD's stopping rule and options: tol, max_iter, shrinking, the order code and
whether the rule is "dw"."""

Arrays = namedtuple("Arrays", "alpha w QD U Dg index shrunk count bounds")
Arrays.__doc__ = """The state a slice advances (w at the start of the epoch apart, see State):
alpha, w, the diagonals Q-bar_ii, U_i, D_ii, the active set index[:active] and the marks of the
pass, count (coordinate.shrinking_count) and bounds = [M_old, m_old, |w_k - w_(k-1)|]."""
_M_OLD, _M_LOW, _DW = 0, 1, 2


class State(ShrinkingState):
    """A DCD run, advanced by :func:`svmlab.solvers.slices.run` (see its contract)."""

    def __init__(self, problem, rule, buf, seed_value, alpha0=None):
        X, y, Ci, code, B = problem
        n = len(y)
        QD, U, Dg = diagonals(X, Ci, code, B, 0.0)
        alpha, w = starting_point(problem, alpha0)
        count = shrinking_count(n)
        bounds = np.array([np.inf, -np.inf, 0.0])
        self.problem, self.rule = problem, rule
        # w at the start of the epoch, for the dw rule and the trace; None (and no code) without them
        w_old = np.zeros(w.shape[0]) if rule.dw_rule or buf is not None else None
        self.arrays = Arrays(alpha, w, QD, U, Dg, np.arange(n), np.zeros(n, dtype=np.bool_), count, bounds)
        self._args = (problem, rule, self.arrays, w_old, buf)  # _advance's arguments (then a budget)
        if buf is not None:  # _advance's code in memory before _begin starts the clock (trace.start_after)
            ready(_advance, *self._args, 1)
        _begin(problem, self.arrays, buf, seed_value)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def result(self):
        return self._result(self.arrays.alpha)


def start(problem, stop, buf, rng, alpha0=None, shrinking=True, order="permutation", stopping="pg"):
    """A DCD state on ``problem`` (a coordinate.Problem), from ``alpha0`` (clipped to the box)
    or from 0; see the module docstring for the options."""
    rule = Rule(stop.tol, stop.max_iter, shrinking, ORDERS.index(order), stopping == "dw")
    return State(problem, rule, trace.used(buf), int(rng.integers(2**31 - 1)), alpha0)


@njit(cache=True)
def _begin(p, s, buf, seed_value):
    seed(seed_value)
    if buf is not None:
        trace.start(buf)
        # np.bool_(False), not False: numba compiles a call with a literal argument apart
        _record(p, buf, s.count[EPOCH], s.count[N_ACTIVE], 0.0, s.alpha, s.w, np.bool_(False))


@njit(cache=True)
def _advance(p, rule, s, w_old, buf, budget):
    """At most ``budget`` epochs of Algorithm 3.1 / 4.1 from the state ``s``, fewer when they grow
    costlier (:func:`coordinate.slice_spent`); returns (epochs run, finished)."""
    count, bounds = s.count, s.bounds
    done, steps, finished = 0, 0, False
    while not (finished or slice_spent(count, budget, done, steps)):
        active = count[ACTIVE]
        if rule.order != CYCLIC and rule.order != RANDOM:
            shuffle(s.index, active)
        if w_old is not None:
            assign(w_old, s.w)
        M_new, m_new, new_active, moved = _pass(p, s, active, bounds[_M_OLD], bounds[_M_LOW], rule.shrinking,
                                                rule.order)
        if w_old is not None:
            bounds[_DW] = distance(s.w, w_old)
        met = bounds[_DW] < rule.tol if rule.dw_rule else M_new - m_new <= rule.tol
        unshrunk, finished = end_pass(count, s.index, new_active, met, rule.max_iter, not moved)
        if unshrunk:  # every variable back: the bounds reset
            bounds[_M_OLD], bounds[_M_LOW] = np.inf, -np.inf
        else:
            bounds[_M_OLD] = np.inf if M_new <= 0.0 else M_new
            bounds[_M_LOW] = -np.inf if m_new >= 0.0 else m_new
        epoch = count[EPOCH]
        if trace.due(buf, epoch, finished):
            _record(p, buf, epoch, new_active, bounds[_DW], s.alpha, s.w, finished)
        done += 1
        steps += active
    count[STEPS] = steps // done
    return done, finished


# In a permutation every row and every per-sample value is a cache miss of its own. The values
# and the row's start are asked for EARLY times the lookahead ahead, the row's lines at the
# lookahead, which is about one memory latency of rows: so a CSR row's address (its indptr) has
# arrived when its lines are asked for. Against asking for all at the lookahead this measured a
# sparse pass 8 % faster and a dense one the same.
EARLY = 4


@njit(cache=True, inline="always")
def _pass(p, s, active, M_old, m_old, shrinking, order):
    """One outer pass of Algorithm 3.1 (4.1 with shrinking) over index[:active]: in order, or
    ``active`` coordinates drawn with replacement (``order`` RANDOM). Variables that meet a shrinking
    condition (eq. 4.2) are marked, then dropped from the prefix, the others keeping their
    order. Returns max PG, min PG, the new active size and whether any variable moved (a step
    is taken only where |PG_i| > 1e-12, as in LIBLINEAR)."""
    X, y, B = p.X, p.y, p.B
    alpha, w, QD, U, Dg, index, shrunk = s.alpha, s.w, s.QD, s.U, s.Dg, s.index, s.shrunk
    M_new, m_new = -np.inf, np.inf
    moved = False
    draw = order == RANDOM
    ahead = lookahead(X)
    early = EARLY * ahead if order == PERMUTATION else active  # in index order the hardware's prefetcher has them
    for t in range(active):
        if t + early < active:
            r = index[t + early]
            prefetch_row_start(X, r)
            prefetch(alpha, r)
            prefetch(y, r)
            prefetch(QD, r)
            prefetch(U, r)
            prefetch(Dg, r)
            prefetch(shrunk, r)
        if not draw and t + ahead < active:
            prefetch_row(X, index[t + ahead])
        # the draw apart: inside index[...] numba counted index's references up and down at every
        # step (NRT_incref and NRT_decref, a tenth of a pass's time in perf)
        k = below(active) if draw else t
        i = index[k]
        if shrunk[i]:  # drawn again after it was shrunk in this pass
            continue
        G = y[i] * row_dot(X, i, w, B) - 1.0 + Dg[i] * alpha[i]  # eq. 3.4
        a = alpha[i]
        if shrinking and ((a == 0.0 and G > M_old) or (a == U[i] and G < m_old)):
            shrunk[i] = True
            continue
        PG = obj.projected(a, G, U[i])
        M_new = max(M_new, PG)
        m_new = min(m_new, PG)
        if abs(PG) > 1e-12:
            new = clipped_step(a, G, QD[i], U[i])  # eq. 3.5
            alpha[i] = new
            row_axpy(X, i, (new - a) * y[i], w, B)  # eq. 3.7
            moved = True
    return M_new, m_new, compact(index, active, shrunk), moved


@njit(cache=True, inline="always")
def _record(p, buf, epoch, n_active, dw_norm, alpha, w, last):
    """P, D and the KKT violation max |PG_i| over all variables (one extra pass over X)."""
    X, y, Ci, code, B = p
    t = trace.pause(buf)
    m = margins(X, y, w, B, np.empty(alpha.shape[0]))
    wnorm2 = dot(w, w)  # w = w(alpha) exactly, bias weight included
    primal = obj.primal_value(wnorm2, m, Ci, code)
    d = obj.dual_value(alpha, wnorm2, Ci, code)
    kkt = obj.kkt_violation(alpha, obj.gradient(alpha, m, Ci, code, m), Ci, code, y, False)
    trace.append(buf, trace.Row(epoch, primal, d, kkt, n_active, dw_norm, t, B * w[-1]), alpha, w, last)
