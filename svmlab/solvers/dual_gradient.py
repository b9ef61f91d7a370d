"""Projected gradient on the dual (book chapter 2, Algorithm 2.1).

Minimises f(alpha) = -D(alpha) = 1/2 alpha' Q-bar alpha - e' alpha over the feasible set::

    alpha <- Proj(alpha - G / L),   G = Q-bar alpha - e,   L >= largest eigenvalue of Q-bar

The feasible set is the box 0 <= alpha <= U, and with a free bias also the hyperplane
sum_i y_i alpha_i = 0 (the projection onto both is found by bisection on the multiplier of
the hyperplane). One epoch is one gradient, a pass over the data (linear: w = X'(alpha y),
then X w) or over Q (kernel). L comes from power iteration; should it under-estimate and f
rise, L is doubled and the step retried, so f never increases.

Stops when the KKT violation (:func:`svmlab.objective.kkt_violation`) is at most ``tol``.
"""

import numpy as np
from numba import njit

from .. import objective as obj
from .. import trace
from ..kernels import kernel_matrix
from ..rows import assign, axpy, dot, matvec, multiply, n_cols, rmatvec, spectral_norm_sq
from . import SolverResult


def solve_linear(X, y, Ci, code, B, tol, max_iter, rng, buf):
    """Explicit features, no bias or a regularized one (no equality constraint)."""
    L = _positive(spectral_norm_sq(X, B) + _max_diag(Ci, code))
    alpha, w, b, n_iter, converged = _projected_gradient(X, y, Ci, code, B, False, False, tol, max_iter, L, buf)
    return SolverResult(alpha, w, b, n_iter, converged)


def solve_kernel(X, kernel, y, Ci, code, free, tol, max_iter, rng, buf):
    """A kernel: builds Q_ij = y_i y_j K(x_i, x_j) (n x n, stored); ``free`` adds the free bias."""
    Q = y[:, None] * kernel_matrix(kernel, X, X) * y[None, :]
    L = _positive(np.sqrt(spectral_norm_sq(Q, 0.0)) + _max_diag(Ci, code))
    alpha, _, b, n_iter, converged = _projected_gradient(Q, y, Ci, code, 0.0, True, free, tol, max_iter, L, buf)
    return SolverResult(alpha, None, b, n_iter, converged)


def _positive(L):
    """L for the step 1/L: 1 where the data are all zero (f is then linear in alpha, and any
    step reaches the box's corner; the monotone check guards it), a ValueError if not finite."""
    if not np.isfinite(L):
        raise ValueError("X is so large that the Lipschitz constant of the dual gradient overflows float64; "
                         "rescale X (e.g. standardize its columns).")
    return L if L > 0.0 else 1.0


def _max_diag(Ci, code):
    return 0.5 / Ci.min() if code == obj.SQUARED_HINGE else 0.0


@njit(cache=True)
def _margins(A, y, alpha, B, kernel_form, w, out):
    """(Q alpha)_i = y_i w(alpha).x_i; for explicit features also refreshes w = X'(alpha y)."""
    if kernel_form:
        return matvec(A, alpha, 0.0, out)
    multiply(out, alpha, y)
    rmatvec(A, out, B, w)
    matvec(A, w, B, out)
    multiply(out, out, y)
    return out


@njit(cache=True)
def _f(alpha, m, Ci, code):
    return -obj.dual_value(alpha, dot(alpha, m), Ci, code)


@njit(cache=True)
def _project(v, y, U, free, out):
    """Euclidean projection of v onto the box [0, U] (and the hyperplane y'alpha = 0 if free)."""
    if not free:
        for i in range(v.shape[0]):
            out[i] = min(max(v[i], 0.0), U[i])
        return out
    lo, hi = -1.0, 1.0
    for _ in range(MAX_DOUBLINGS):  # h(mu) = y'clip(v - mu y) falls from >= 0 to <= 0 as mu grows
        if _y_dot_clip(v, y, U, lo, out) >= 0.0:
            break
        lo *= 2.0
    for _ in range(MAX_DOUBLINGS):
        if _y_dot_clip(v, y, U, hi, out) <= 0.0:
            break
        hi *= 2.0
    for _ in range(200):  # h(mu) = y'clip(v - mu y) falls with mu: bisect for its zero
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if _y_dot_clip(v, y, U, mid, out) > 0.0:
            lo = mid
        else:
            hi = mid
    _y_dot_clip(v, y, U, 0.5 * (lo + hi), out)
    return out


@njit(cache=True)
def _y_dot_clip(v, y, U, mu, out):
    s = 0.0
    for i in range(v.shape[0]):
        out[i] = min(max(v[i] - mu * y[i], 0.0), U[i])
        s += y[i] * out[i]
    return s


MAX_DOUBLINGS = 1100  # of the bisection's bracket: 2^1100 is beyond every float64
MAX_HALVINGS = 64  # of the step 1/L: past 2^-64 of the step from the power iteration, f does not fall


@njit(cache=True)
def _descent_step(A, y, Ci, code, B, kernel_form, free, U, alpha, G, f, L, w, step, new, m_new):
    """The projected step from alpha with step 1/L, L doubled until f does not rise; returns
    (f at the new point, the L used), or (f, inf) when MAX_HALVINGS doublings did not do (f
    not finite, or the problem unbounded: an indefinite kernel with the squared hinge)."""
    for _ in range(MAX_HALVINGS):
        assign(step, alpha)
        axpy(-1.0 / L, G, step)
        _project(step, y, U, free, new)
        _margins(A, y, new, B, kernel_form, w, m_new)
        f_new = _f(new, m_new, Ci, code)
        if f_new <= f + 1e-12 * abs(f):
            return f_new, L
        L *= 2.0
    return f, np.inf


@njit(cache=True)
def _projected_gradient(A, y, Ci, code, B, kernel_form, free, tol, max_iter, L, buf):
    n = y.shape[0]
    U = np.empty(n)
    for i in range(n):
        U[i] = obj.upper(Ci[i], code)
    w = np.zeros(1 if kernel_form else n_cols(A) + 1)
    alpha = np.zeros(n)
    m = np.zeros(n)
    G = np.empty(n)
    new = np.empty(n)
    step = np.empty(n)
    m_new = np.empty(n)
    f = 0.0
    trace.start(buf)
    epoch = 0
    dw_norm = 0.0
    while True:
        obj.gradient(alpha, m, Ci, code, G)
        kkt = obj.kkt_violation(alpha, G, Ci, code, y, free)
        done = kkt <= tol or epoch >= max_iter
        b = obj.free_bias(alpha, G, Ci, code, y) if free else 0.0
        if trace.due(buf, epoch, done):
            t = trace.pause(buf)
            wnorm2 = dot(alpha, m)
            axpy(b, y, m)  # margins with the free bias, for P
            p = obj.primal_value(wnorm2, m, Ci, code)
            axpy(-b, y, m)
            if kernel_form:
                w[0] = b  # a kernel solver's snapshot "w" is its bias
            trace.record(buf, epoch, p, -f, kkt, np.sum(alpha > 0.0), dw_norm, t, alpha, w, done)
        if done:
            break
        epoch += 1
        f_new, L = _descent_step(A, y, Ci, code, B, kernel_form, free, U, alpha, G, f, L, w, step, new, m_new)
        if L == np.inf:  # no step lowers f: stop uncertified, w back at w(alpha)
            _margins(A, y, alpha, B, kernel_form, w, m)
            return alpha, w, b, epoch, False
        dw2 = dot(new, m_new) - 2.0 * dot(alpha, m_new) + dot(alpha, m)  # |dw|^2 = d' Q d
        dw_norm = np.sqrt(max(dw2, 0.0))
        assign(alpha, new)
        assign(m, m_new)
        f = f_new
    return alpha, w, b, epoch, kkt <= tol
