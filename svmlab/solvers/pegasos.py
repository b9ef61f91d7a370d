"""Pegasos, the primal stochastic subgradient method (book chapter 7, Algorithm 7.1).

Shalev-Shwartz, Singer, Srebro and Cotter (Math. Programming 2011) minimise the lambda-form
lam/2 |w|^2 + 1/n sum_i s_i hinge(y_i w.x_i); with lam = 1 / (n C_bar), C_bar the mean of the
C_i and s_i = C_i / C_bar this is the book's C-form divided by n C_bar (the same minimiser).
Step t takes a mini-batch A_t of k samples and the learning rate eta_t = 1 / (lam t)::

    w <- (1 - 1/t) w + eta_t / k * sum_{i in A_t, y_i w.x_i < 1} s_i y_i x_i
      =  (1 - 1/t) w + n / (t k) * sum_{i in A_t, y_i w.x_i < 1} C_i y_i x_i      (eq. 7.2)
    optionally w <- min(1, r / |w|) w,   r = 1 / sqrt(lam) = sqrt(sum_i C_i)      (eq. 7.3)

The ball of radius r holds the optimum (|w*|^2 <= sum_i alpha_i <= sum_i C_i by strong
duality), so the projection never cuts it off and bounds the early, large steps. w is stored
as a * v, so the shrink (1 - 1/t) and the projection cost O(1) and a step O(nnz of the batch).

Samples are drawn uniformly with replacement (n draws an epoch, cut into batches of k, the
last one shorter when k does not divide n, and the sum divided by the batch's own size; a
batch may repeat a sample, which keeps the subgradient estimate unbiased). ``output``:
"last" the last iterate, "average" the average of the states T0 = T/2 .. T-1 of the T steps
(kept lazily, O(nnz) a step), "random" one of them drawn at random.

Pegasos has no dual problem of its own, but its w is still a combination of the samples:
every step adds multiples of y_i x_i, so w = sum_i alpha_i y_i x_i with alpha_i >= 0 the
accumulated (shrunk, projected, averaged) step sizes, kept alongside v as alpha = a u. This
alpha is returned; unlike a dual point it may leave the box [0, C_i] (a sample drawn more often
than average collects more), so D(alpha) is no bound on P* and the trace records D = gap = KKT
= NaN and the primal of the current iterate. There is no certificate to stop on, so ``tol`` is
not used:
the solver runs ``max_iter`` epochs, as asked, and reports ``converged=True`` (no warning for
doing what it was told; measure suboptimality against a reference optimum instead).

The draws of an epoch are made before it starts, so the kernel starts loading the row
LOOKAHEAD draws ahead (and that sample's y_i, C_i, u_i, |x_i|^2) while it works on the current
one (rows.prefetch_row). With the projection, |v|^2 is updated from x_i . v, which is the
product the margin was computed from as long as no earlier step of the batch has moved v
(always so with batch_size 1): it is reused then, and recomputed otherwise. Neither changes a
value; the iterates are bit for bit those of computing everything afresh.
"""

import math
import warnings

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..estimators import ConvergenceWarning
from ..rows import (assign, distance, dot, margins, n_cols, n_rows, prefetch, prefetch_row, row_axpy, row_dot,
                    row_sqnorm)
from ..validation import check_bool, one_of, positive_int
from . import SolverResult
from .dcd import LOOKAHEAD
from .sdca import _AVERAGE, _LAST, _RANDOM, _RANDOM_ITERATE, OUTPUTS, epoch_order

_RESCALE = 1e-9  # fold the scale a into v when it falls below this


def solve(X, y, Ci, code, B, tol, max_iter, rng, buf, batch_size, output, projection):
    """Algorithm 7.1 (mini-batch Pegasos); see the module docstring."""
    if code != obj.HINGE:
        raise ValueError("solver='pegasos' supports loss='hinge' only; for the squared hinge use "
                         "solver='sdca' or 'dcd'.")
    k = positive_int(batch_size, "batch_size")
    output_code = OUTPUTS.index(one_of(output, "output", OUTPUTS))
    radius = math.sqrt(Ci.sum()) if check_bool(projection, "projection") else np.inf
    T = max_iter * math.ceil(len(y) / k)
    seed = int(rng.integers(2**31 - 1))
    pick = int(rng.integers(T // 2, T)) if output_code == _RANDOM_ITERATE else -1
    w, alpha, n_iter = _pegasos(X, y, Ci, B, max_iter, seed, buf, k, output_code, radius, T // 2, pick)
    if not (np.isfinite(w).all() and np.isfinite(alpha).all()):
        raise ValueError(f"Pegasos' iterate overflowed: its steps n C_i / t are too large for C up to {Ci.max():g} "
                         "on this data. Lower C, rescale X, or use solver='sdca' or 'dcd'.")
    _warn_if_worse_than_zero(X, y, Ci, B, w)
    return SolverResult(alpha, w, 0.0, n_iter, True)


def _warn_if_worse_than_zero(X, y, Ci, B, w):
    """A ConvergenceWarning when the returned w has a higher primal than w = 0 (P(0) = sum_i C_i):
    Pegasos has no certificate, but a result worse than not fitting at all is not left silent."""
    p = obj.primal_value(dot(w, w), margins(X, y, w, B, np.empty(len(y))), Ci, obj.HINGE)
    if p > Ci.sum():
        warnings.warn(f"Pegasos returned w with P(w) = {p:.3g}, above P(0) = {Ci.sum():.3g}: its steps 1/(lambda t) "
                      "are too large for this C and budget. Increase max_iter, lower C, or use solver='sdca' or "
                      "'dcd', which certify their result.", ConvergenceWarning, stacklevel=4)


# The iterate is w = a v, so that the shrink and the projection only change the scale a; its
# coefficients are alpha = a u, with u_i the steps taken along y_i x_i in units of v.
# With averaging, the sum of the states in the window is S = A v - U, with A the sum of
# their scales (the trick of Xu 2011 for averaged SGD): adding d to v adds A d to U, and
# S costs nothing a step; likewise A u - Ua for alpha. The scalars live in s = [a, |v|^2, A].

@njit(cache=True)
def _pegasos(X, y, Ci, B, max_iter, seed, buf, k, output, radius, T0, pick):
    n = n_rows(X)
    np.random.seed(seed)
    v = np.zeros(n_cols(X) + 1)
    u = np.zeros(n)
    U = np.zeros(v.shape[0] if output == _AVERAGE else 0)
    Ua = np.zeros(n if output == _AVERAGE else 0)
    s = np.array([1.0, 0.0, 0.0])
    sq = np.empty(n if radius < np.inf else 0)
    for i in range(sq.shape[0]):
        sq[i] = row_sqnorm(X, i, B)
    index = np.arange(n)
    margin = np.empty(k)
    vx = np.empty(k)
    out = np.zeros(v.shape[0])
    out_alpha = np.zeros(n)
    w_prev = np.zeros(v.shape[0] if buf.every > 0 else 0)
    trace.start(buf)
    t = 0
    epoch = 0
    while True:
        done = epoch >= max_iter
        if trace.due(buf, epoch, done):
            _record(X, y, Ci, B, buf, epoch, v, u, s[0], w_prev, done)
        if done:
            break
        epoch += 1
        epoch_order(_RANDOM, index)
        s[1] = dot(v, v)  # |v|^2 afresh each epoch, against drift
        t = _epoch(X, y, Ci, B, v, u, U, Ua, s, sq, radius, index, k, margin, vx, out, out_alpha, t, T0, pick)
    if output == _LAST:
        _scaled(out, s[0], v)
        _scaled(out_alpha, s[0], u)
    elif output == _AVERAGE:
        _average(out, s[2], v, U, t - T0)
        _average(out_alpha, s[2], u, Ua, t - T0)
    return out, out_alpha, epoch


@njit(cache=True)
def _average(out, A, v, U, count):
    """out = (A v - U) / count, the average of the states in the window."""
    for j in range(out.shape[0]):
        out[j] = (A * v[j] - U[j]) / count


@njit(cache=True)
def _epoch(X, y, Ci, B, v, u, U, Ua, s, sq, radius, index, k, margin, vx, out, out_alpha, t, T0, pick):
    """Steps t + 1, ... of eq. 7.2 (and the projection 7.3) over one epoch's batches; returns
    the last t. One call an epoch: a numba call with many arrays costs as much as a short row.
    The row LOOKAHEAD draws ahead starts loading early; see the module docstring."""
    n = index.shape[0]
    for start in range(0, n, k):
        if t == pick:  # output="random": keep state t
            _scaled(out, s[0], v)
            _scaled(out_alpha, s[0], u)
        if U.shape[0] > 0 and t >= T0:
            s[2] += s[0]  # state t enters the average: S += a v
        t += 1
        b = min(start + k, n) - start
        for j in range(b):  # margins at w_t, before the step
            if start + j + LOOKAHEAD < n:
                r = index[start + j + LOOKAHEAD]
                prefetch_row(X, r)
                prefetch(y, r)
                prefetch(Ci, r)
                prefetch(u, r)
                if sq.shape[0] > 0:
                    prefetch(sq, r)
            i = index[start + j]
            vx[j] = row_dot(X, i, v, B)  # x_i . v
            margin[j] = y[i] * s[0] * vx[j]
        if t > 1:
            s[0] *= 1.0 - 1.0 / t  # at t = 1 the factor is 0, and w_1 = 0 already
        moved = False  # whether v has changed in this batch
        for j in range(b):
            if margin[j] < 1.0:
                i = index[start + j]
                c = n * Ci[i] * y[i] / (t * b * s[0])  # in units of v
                if radius < np.inf:  # |v + c x_i|^2 from the current v
                    # x_i . v: the product of the margin while v is as it was then (always with
                    # batch_size 1), recomputed once an earlier step of the batch has moved v
                    xv = row_dot(X, i, v, B) if moved else vx[j]
                    s[1] += 2.0 * c * xv + c * c * sq[i]
                row_axpy(X, i, c, v, B)
                moved = True
                u[i] += c * y[i]  # c carries the sign y_i; alpha does not
                if U.shape[0] > 0:
                    row_axpy(X, i, s[2] * c, U, B)
                    Ua[i] += s[2] * c * y[i]
        _project_and_fold(v, u, s, radius)
    return t


@njit(cache=True)
def _project_and_fold(v, u, s, radius):
    """w <- min(1, r/|w|) w (eq. 7.3); then, if a is tiny, fold it into v and u (w, alpha, S
    unchanged)."""
    norm = s[0] * np.sqrt(max(s[1], 0.0))
    if radius < norm < np.inf:  # an infinite norm (overflow) is left for solve() to refuse
        s[0] *= radius / norm
    if 0.0 < s[0] < _RESCALE:
        for j in range(v.shape[0]):
            v[j] *= s[0]
        for i in range(u.shape[0]):
            u[i] *= s[0]
        s[1] *= s[0] * s[0]
        s[2] /= s[0]
        s[0] = 1.0


@njit(cache=True)
def _scaled(out, a, v):
    """out = a v"""
    for j in range(out.shape[0]):
        out[j] = a * v[j]


@njit(cache=True)
def _record(X, y, Ci, B, buf, epoch, v, u, a, w_prev, last):
    """P at w = a v; D, gap and KKT are NaN (no dual); n_active counts the margin violators."""
    t = trace.pause(buf)
    w = np.empty(v.shape[0])
    _scaled(w, a, v)
    m = margins(X, y, w, B, np.empty(y.shape[0]))
    p = obj.primal_value(dot(w, w), m, Ci, obj.HINGE)
    dw_norm = distance(w, w_prev)
    assign(w_prev, w)
    alpha = np.empty(y.shape[0])
    _scaled(alpha, a, u)
    trace.record(buf, epoch, p, np.nan, np.nan, np.sum(m < 1.0), dw_norm, t, alpha, w, last)
