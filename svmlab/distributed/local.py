"""What one worker does in a round of CoCoA+: the local subproblem of its block, and its sums.

Block k holds the rows A_k = {y_i x_i : i in block k} (with the bias feature B, as
:mod:`svmlab.rows`), its dual variables alpha_[k] and the broadcast w = sum_k A_k alpha_[k].
CoCoA+ (Ma et al., ICML 2015; Smith et al., JMLR 2018) asks each block to maximise, over a
change Delta of its own variables only, the local subproblem

    G_k(Delta) = sum_{i in k} [Delta_i - 1/2 D_ii ((alpha_i + Delta_i)^2 - alpha_i^2)]
                 - w . A_k Delta - sigma'/2 |A_k Delta|^2,        0 <= alpha_i + Delta_i <= U_i

: the dual D(alpha) of chapter 2 with the other blocks frozen, its
quadratic term |A_k Delta|^2 scaled by sigma' so that K blocks moving at once cannot
overshoot together (sigma' = K when their changes are added). With u = w + sigma' A_k Delta,
the coordinate step of G_k is chapter 3's DCD step with Q_ii scaled by sigma'::

    G_i = y_i u.x_i - 1 + D_ii alpha_i,    alpha_i <- clip(alpha_i - G_i / (sigma' |x_i|^2 + D_ii), 0, U_i)
    u  += sigma' (new - old) y_i x_i,       dw += (new - old) y_i x_i

With sigma' = 1 and a single block the subproblem is the dual itself and these are DCD's
steps, bit for bit. ``order``: a new random permutation of the block each pass, as
:mod:`svmlab.solvers.dcd` draws it (local solver "dcd"), or as SDCA draws its permutation
(local solver "sdca", :func:`svmlab.solvers.sdca.epoch_order`).
"""

import numpy as np

from .. import objective as obj
from ..jit import njit
from ..rows import lookahead, n_rows, prefetch_row, row_axpy, row_dot
from ..solvers.coordinate import epoch_order, shuffle

DCD_ORDER, SDCA_ORDER = 0, 1


@njit(cache=True)
def seed(value):
    """Seed numba's generator of this thread (the state a block then carries, see blocks.py)."""
    np.random.seed(value)


@njit(cache=True, nogil=True)  # nogil: blocks on one worker's threads run at once
def subproblem(problem, sq, alpha, index, w, sigma, steps, order):
    """``steps`` coordinate steps on G_k from alpha (changed in place); returns dw = A_k Delta.
    ``problem`` is the block's ``coordinate.Problem(X, y, Ci, code, B)``; ``sq`` holds its rows'
    |[x_i, B]|^2 (``rows.row_sqnorms``), a step's curvature before sigma' and D_ii, the same every round.

    A pass starts every len(index) steps with a new order of the block's rows in ``index``; the
    row a few steps ahead starts loading early (a random order waits on memory otherwise).
    """
    X, y, Ci, code, B = problem
    n = n_rows(X)
    u = w.copy()
    dw = np.zeros(w.shape[0])
    ahead = lookahead(X)
    for t in range(steps):
        s = t % n
        if s == 0:
            if order == DCD_ORDER:
                shuffle(index, n)
            else:
                epoch_order(0, index)  # SDCA's permutation
        if s + ahead < n:
            prefetch_row(X, index[s + ahead])
        i = index[s]
        Dii = obj.diag(Ci[i], code)
        Ui = obj.upper(Ci[i], code)
        a = alpha[i]
        G = y[i] * row_dot(X, i, u, B) - 1.0 + Dii * a
        if abs(obj.projected(a, G, Ui)) <= 1e-12:
            continue
        q = sigma * sq[i] + Dii
        new = min(max(a - G / q, 0.0), Ui) if q > 0.0 else (Ui if G < 0.0 else 0.0)
        alpha[i] = new
        row_axpy(X, i, (new - a) * y[i] * sigma, u, B)
        row_axpy(X, i, (new - a) * y[i], dw, B)
    return dw


@njit(cache=True, nogil=True)
def sums(X, y, Ci, code, B, alpha, w):
    """The block's share of P and D at (w, alpha): sum_i C_i loss(y_i w.x_i) and
    sum_i (alpha_i - 1/2 D_ii alpha_i^2); with w = sum_k A_k alpha_[k], P(w) - D(alpha) is
    1/2|w|^2 + sum of the first minus (sum of the second - 1/2|w|^2) (book eqs. 1.3, 2.9)."""
    loss = 0.0
    dual = 0.0
    for i in range(n_rows(X)):
        loss += Ci[i] * obj.loss(y[i] * row_dot(X, i, w, B), code)
        dual += alpha[i] - 0.5 * obj.diag(Ci[i], code) * alpha[i] * alpha[i]
    return loss, dual
