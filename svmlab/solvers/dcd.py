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
("cyclic") or drawn with replacement ("random"). Shrinking (eq. 4.2): with M and m the
largest and smallest PG of the previous pass, a variable at 0 with G_i > M, or at U_i with
G_i < m, leaves the active set. Stopping: ``"pg"`` is LIBLINEAR's M - m <= tol over a pass
(eq. 3.8), ``"dw"`` Roethel & Brynda's |w_k - w_(k-1)| < tol (eq. 3.9). When the shrunk problem meets
the rule, every variable comes back (the unshrink) and the rule must hold on a full pass.
"""

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..rows import (assign, distance, dot, lookahead, margins, n_cols, n_rows, prefetch, prefetch_row, row_axpy,
                    row_dot, row_sqnorm)
from ..validation import check_bool, one_of
from . import SolverResult

ORDERS = ("permutation", "cyclic", "random")
STOPPING = ("pg", "dw")
_CYCLIC, _RANDOM = 1, 2
LOOKAHEAD = 4  # steps ahead whose row and per-sample values start loading early (rows.prefetch)


def solve(X, y, Ci, code, B, tol, max_iter, rng, buf, shrinking, order, stopping):
    """Algorithm 3.1 (with shrinking, Algorithm 4.1); see the module docstring."""
    shrinking = check_bool(shrinking, "shrinking")
    order_code = ORDERS.index(one_of(order, "order", ORDERS))
    dw_rule = one_of(stopping, "stopping", STOPPING) == "dw"
    seed = int(rng.integers(2**31 - 1))
    alpha, w, n_iter, converged = _dcd(X, y, Ci, code, B, tol, max_iter, seed, buf, shrinking, order_code, dw_rule)
    return SolverResult(alpha, w, 0.0, n_iter, converged)


@njit(cache=True)
def _dcd(X, y, Ci, code, B, tol, max_iter, seed, buf, shrinking, order, dw_rule):
    n = n_rows(X)
    np.random.seed(seed)
    alpha = np.zeros(n)
    w = np.zeros(n_cols(X) + 1)
    w_old = np.zeros(w.shape[0] if dw_rule or buf.every > 0 else 0)
    QD, U, Dg = diagonals(X, Ci, code, B, 0.0)
    index = np.arange(n)
    shrunk = np.zeros(n, dtype=np.bool_)
    active = n
    M_old, m_old = np.inf, -np.inf
    epoch = 0
    dw_norm = 0.0
    trace.start(buf)
    if buf.every > 0:
        _record(X, y, Ci, code, B, buf, 0, active, 0.0, alpha, w, False)
    while True:
        if order != _CYCLIC and order != _RANDOM:
            shuffle(index, active)
        if w_old.shape[0] > 0:
            assign(w_old, w)
        M_new, m_new, new_active = _pass(X, y, B, alpha, w, QD, U, Dg, index, active, M_old, m_old,
                                         shrinking, order == _RANDOM, shrunk)
        epoch += 1
        if w_old.shape[0] > 0:
            dw_norm = distance(w, w_old)
        met = dw_norm < tol if dw_rule else M_new - m_new <= tol
        converged = met and new_active == n
        n_active = new_active
        if met and not converged:  # the unshrink: every variable back, bounds reset
            active = n
            _reset(index)
            M_old, m_old = np.inf, -np.inf
        else:
            active = new_active
            M_old = np.inf if M_new <= 0.0 else M_new
            m_old = -np.inf if m_new >= 0.0 else m_new
        done = converged or epoch >= max_iter
        if trace.due(buf, epoch, done):
            _record(X, y, Ci, code, B, buf, epoch, n_active, dw_norm, alpha, w, done)
        if done:
            return alpha, w, epoch, converged


@njit(cache=True)
def diagonals(X, Ci, code, B, gamma):
    """Q-bar_ii = |[x_i, B]|^2 + D_ii, the upper bounds U_i and the diagonal D_ii (eq. 3.2);
    D_ii = gamma / C_i for the hinge smoothed by gamma > 0 (chapter 6, eq. 6.7)."""
    n = Ci.shape[0]
    QD, U, Dg = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        Dg[i] = gamma / Ci[i] if gamma > 0.0 else obj.diag(Ci[i], code)
        U[i] = obj.upper(Ci[i], code)
        QD[i] = row_sqnorm(X, i, B) + Dg[i]
    return QD, U, Dg


@njit(cache=True)
def _pass(X, y, B, alpha, w, QD, U, Dg, index, active, M_old, m_old, shrinking, draw, shrunk):
    """One outer pass of Algorithm 3.1 (4.1 with shrinking) over index[:active]: in order, or
    ``active`` coordinates drawn with replacement (``draw``). Variables that meet a shrinking
    condition (eq. 4.2) are marked, then dropped from the prefix, the others keeping their
    order. Returns max PG, min PG and the new active size. (The step stays in this loop: a
    call per coordinate would pay reference counting on its array arguments.)"""
    M_new, m_new = -np.inf, np.inf
    ahead = lookahead(X)
    for t in range(active):
        if not draw and t + ahead < active:
            r = index[t + ahead]
            prefetch_row(X, r)
            prefetch(alpha, r)
            prefetch(y, r)
            prefetch(QD, r)
            prefetch(U, r)
            prefetch(Dg, r)
        i = index[_below(active) if draw else t]
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
            if QD[i] > 0.0:
                new = min(max(a - G / QD[i], 0.0), U[i])  # eq. 3.5
            else:  # x_i = 0 (hinge, no bias): f is linear in alpha_i, so go to the bound G points to
                new = U[i] if G < 0.0 else 0.0
            alpha[i] = new
            row_axpy(X, i, (new - a) * y[i], w, B)  # eq. 3.7
    return M_new, m_new, _compact(index, active, shrunk)


@njit(cache=True)
def _compact(index, active, shrunk):
    """Drop the marked entries of index[:active] (clearing their marks); returns the count kept."""
    kept = 0
    for s in range(active):
        i = index[s]
        if shrunk[i]:
            shrunk[i] = False
        else:
            index[kept] = i
            kept += 1
    return kept


@njit(cache=True)
def shuffle(index, active):
    """A uniform random permutation of index[:active] (Fisher-Yates)."""
    for s in range(active - 1):
        j = s + _below(active - s)
        t = index[s]
        index[s] = index[j]
        index[j] = t


@njit(cache=True)
def _below(k):
    """A random integer in [0, k): one uniform double (numba's randint costs several)."""
    return min(int(np.random.random() * k), k - 1)


@njit(cache=True)
def _reset(index):
    for i in range(index.shape[0]):
        index[i] = i


@njit(cache=True)
def _record(X, y, Ci, code, B, buf, epoch, n_active, dw_norm, alpha, w, last):
    """P, D and the KKT violation max |PG_i| over all variables (one extra pass over X)."""
    t = trace.pause(buf)
    m = margins(X, y, w, B, np.empty(alpha.shape[0]))
    wnorm2 = dot(w, w)  # w = w(alpha) exactly, bias weight included
    p = obj.primal_value(wnorm2, m, Ci, code)
    d = obj.dual_value(alpha, wnorm2, Ci, code)
    kkt = obj.kkt_violation(alpha, obj.gradient(alpha, m, Ci, code, m), Ci, code, y, False)
    trace.record(buf, epoch, p, d, kkt, n_active, dw_norm, t, alpha, w, last)
