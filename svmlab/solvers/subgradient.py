"""Primal (sub)gradient descent on P(w) (book chapter 1, Algorithm 1.1).

One epoch is one full (sub)gradient step, a pass over the data::

    v   = sum_i c_i y_i x_i,   c_i = C_i [m_i < 1] (hinge) or 2 C_i max(0, 1 - m_i) (squared hinge)
    w  <- w + eta (v - w)       (the step w <- w - eta * grad P(w), since grad P = w - v)

For the hinge P is 1-strongly convex and not smooth: eta_t = 1/t. Then w_t is exactly the
average of the first t vectors v, so w_t = w(alpha_t) with alpha_t the running average of c:
the method carries a feasible dual point along (0 <= alpha <= C), and the duality gap
P(w_t) - D(alpha_t) certifies it. For the squared hinge P is smooth: eta = 1/L with
L = 1 + 2 max C_i |X|_2^2, and c itself (alpha_i = 2 C_i xi_i, eq. 2.12) is the dual point.

Stops when P - D <= tol * P (returning that certified iterate), or after ``max_iter`` epochs
(returning the iterate of lowest P seen).
"""

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..rows import assign, axpy, dot, margins, multiply, n_cols, n_rows, rmatvec, spectral_norm_sq
from . import SolverResult


def solve(X, y, Ci, code, B, tol, max_iter, rng, buf):
    """Run the kernel; see the module docstring."""
    L = 1.0 + 2.0 * Ci.max() * spectral_norm_sq(X, B) if code == obj.SQUARED_HINGE else 0.0
    alpha, w, n_iter, converged = _subgradient_descent(X, y, Ci, code, B, tol, max_iter, L, buf)
    return SolverResult(alpha, w, 0.0, n_iter, converged)


@njit(cache=True)
def _certified(p, d, tol):
    """P - D <= tol |P| with both finite (inf <= inf would read as certified)."""
    return np.isfinite(p) and np.isfinite(d) and p - d <= tol * abs(p)


@njit(cache=True)
def _subgradient_descent(X, y, Ci, code, B, tol, max_iter, L, buf):
    n = n_rows(X)
    w = np.zeros(n_cols(X) + 1)
    alpha = np.zeros(n)
    c = np.empty(n)
    m = np.empty(n)
    G = np.empty(n)
    v = np.empty(w.shape[0])
    best_w, best_alpha, best_p = w.copy(), alpha.copy(), np.inf
    trace.start(buf)
    epoch = 0
    dw_norm = 0.0
    while True:
        margins(X, y, w, B, m)
        p = obj.primal_value(dot(w, w), m, Ci, code)
        for i in range(n):
            r = 1.0 - m[i]
            c[i] = 0.0 if r <= 0.0 else (Ci[i] if code == obj.HINGE else 2.0 * Ci[i] * r)
        multiply(G, c, y)
        rmatvec(X, G, B, v)  # v = w(c)
        if code == obj.SQUARED_HINGE:
            assign(alpha, c)
            d = obj.dual_value(alpha, dot(v, v), Ci, code)
        else:
            d = obj.dual_value(alpha, dot(w, w), Ci, code)  # w = w(alpha) exactly
        if p < best_p:
            best_p = p
            assign(best_w, w)
            assign(best_alpha, alpha)
        done = _certified(p, d, tol) or epoch >= max_iter
        if trace.due(buf, epoch, done):
            t = trace.pause(buf)
            if code == obj.SQUARED_HINGE:  # gradient at alpha needs the margins of w(alpha) = v
                margins(X, y, v, B, G)
                obj.gradient(alpha, G, Ci, code, G)
            else:
                obj.gradient(alpha, m, Ci, code, G)
            kkt = obj.kkt_violation(alpha, G, Ci, code, y, False)
            n_active = np.sum(m < 1.0)
            trace.record(buf, epoch, p, d, kkt, n_active, dw_norm, t, alpha, w, done)
        if done:
            break
        epoch += 1
        eta = 1.0 / epoch if code == obj.HINGE else 1.0 / L
        axpy(-1.0, w, v)  # v - w = -grad P
        dw_norm = eta * np.sqrt(dot(v, v))
        axpy(eta, v, w)
        if code == obj.HINGE:
            axpy(-1.0, alpha, c)
            axpy(eta, c, alpha)
    if _certified(p, d, tol):  # the certified iterate
        return alpha, w, epoch, True
    return best_alpha, best_w, epoch, False
