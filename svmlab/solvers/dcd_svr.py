"""Dual coordinate descent for linear support vector regression, with shrinking.

The method of Ho and Lin, "Large-scale linear support vector regression" (JMLR 2012,
Algorithm 4), as LIBLINEAR's ``solve_l2r_l1l2_svr`` runs it. It minimises the dual in beta
(:mod:`svmlab.regression`)

    f(beta) = 1/2 beta' (Q + D) beta - z' beta + epsilon |beta|_1,   -U_i <= beta_i <= U_i

one coordinate at a time, keeping w = sum_i beta_i x_i up to date. In beta_i alone, with
G the gradient of the smooth part and H = Q_ii + D_ii, f is the piecewise quadratic

    g(d) = 1/2 H d^2 + G d + epsilon |beta_i + d|

whose slopes right and left of beta_i + d = 0 are G_+ = G + epsilon and G_- = G - epsilon.
Its minimiser, before clipping to [-U_i, U_i], has three cases:

    G_+ < H beta_i:  d = -G_+ / H      (the minimum lies where beta_i + d > 0)
    G_- > H beta_i:  d = -G_- / H      (where beta_i + d < 0)
    otherwise:       d = -beta_i       (the kink: beta_i + d = 0)

An epoch visits the active variables in a random permutation (or in index order, "cyclic").
The violation of a variable is |PG_i| (:func:`svmlab.regression.projected`). Shrinking, with
M the largest violation of the previous epoch: a variable leaves the active set when it sits
at 0 with G_+ > M and G_- < -M, at U_i with G_+ < -M, or at -U_i with G_- > M. Stopping
(LIBLINEAR's rule): the sum of the violations over an epoch falls to ``tol`` times that of
the first epoch; when the shrunk problem meets it, every variable comes back and the rule
must hold on a full epoch.
"""

import numpy as np
from numba import njit

from .. import objective as obj
from .. import regression as reg
from .. import trace
from ..rows import dot, matvec, n_cols, n_rows, prefetch, prefetch_row, row_axpy, row_dot, row_sqnorm
from ..validation import check_bool, one_of
from . import SolverResult
from .dcd import LOOKAHEAD, _compact, shuffle  # the classification DCD's active-set helpers

ORDERS = ("permutation", "cyclic")


def solve(X, z, Ci, epsilon, code, B, tol, max_iter, rng, buf, shrinking, order):
    """Ho and Lin's Algorithm 4 (see the module docstring). ``X`` is dense or a ``CSR``
    tuple, ``z`` the targets, ``B`` the bias feature's value (0: no bias). Returns a
    :class:`SolverResult` with ``alpha`` = beta and w of length d + 1 (bias weight last)."""
    shrinking = check_bool(shrinking, "shrinking")
    cyclic = one_of(order, "order", ORDERS) == "cyclic"
    seed = int(rng.integers(2**31 - 1))
    beta, w, n_iter, converged = _dcd_svr(X, z, Ci, float(epsilon), code, B, tol, max_iter, seed, buf,
                                          shrinking, cyclic)
    return SolverResult(beta, w, 0.0, n_iter, converged)


@njit(cache=True)
def _dcd_svr(X, z, Ci, epsilon, code, B, tol, max_iter, seed, buf, shrinking, cyclic):
    n = n_rows(X)
    np.random.seed(seed)
    beta = np.zeros(n)
    w = np.zeros(n_cols(X) + 1)
    H, U = np.empty(n), np.empty(n)
    for i in range(n):
        U[i] = obj.upper(Ci[i], code)
        H[i] = row_sqnorm(X, i, B) + obj.diag(Ci[i], code)
    index = np.arange(n)
    shrunk = np.zeros(n, dtype=np.bool_)
    active = n
    M_old = np.inf
    first = -1.0  # the first epoch's sum of violations
    epoch = 0
    trace.start(buf)
    if buf.every > 0:
        _record(X, z, Ci, epsilon, code, B, buf, 0, active, beta, w, False)
    while True:
        if not cyclic:
            shuffle(index, active)
        M_new, total, new_active = _pass(X, z, Ci, epsilon, code, B, beta, w, H, U, index, active, M_old,
                                         shrinking, shrunk)
        epoch += 1
        if first < 0.0:
            first = total
        met = total <= tol * first
        converged = met and new_active == n
        n_active = new_active
        if met and not converged:  # the unshrink: every variable back
            active = n
            for i in range(n):
                index[i] = i
            M_old = np.inf
        else:
            active = new_active
            M_old = M_new
        done = converged or epoch >= max_iter
        if trace.due(buf, epoch, done):
            _record(X, z, Ci, epsilon, code, B, buf, epoch, n_active, beta, w, done)
        if done:
            return beta, w, epoch, converged


@njit(cache=True)
def _pass(X, z, Ci, epsilon, code, B, beta, w, H, U, index, active, M_old, shrinking, shrunk):
    """One epoch over index[:active]. Variables that meet a shrinking condition are marked,
    then dropped from the prefix, the others keeping their order. Returns the largest and the
    summed violation and the new active size."""
    M_new, total = 0.0, 0.0
    for t in range(active):
        if t + LOOKAHEAD < active:  # start loading a row a few steps ahead (random order: memory latency)
            r = index[t + LOOKAHEAD]
            prefetch_row(X, r)
            prefetch(beta, r)
            prefetch(z, r)
        i = index[t]
        b, u = beta[i], U[i]
        G = row_dot(X, i, w, B) - z[i] + obj.diag(Ci[i], code) * b  # gradient of the smooth part
        gp, gn = G + epsilon, G - epsilon
        if shrinking and ((b == 0.0 and gp > M_old and gn < -M_old) or (b >= u and gp < -M_old)
                          or (b <= -u and gn > M_old)):
            shrunk[i] = True
            continue
        v = abs(reg.projected(b, G, epsilon, u))
        M_new = max(M_new, v)
        total += v
        new = _step(b, gp, gn, H[i], u)
        if abs(new - b) >= 1e-12:  # LIBLINEAR skips Newton steps below 1e-12
            new = min(max(new, -u), u)
            beta[i] = new
            row_axpy(X, i, new - b, w, B)
    return M_new, total, _compact(index, active, shrunk)


@njit(cache=True)
def _step(b, gp, gn, h, u):
    """The minimiser of the one-variable subproblem (the three cases), before clipping to [-u, u]."""
    if h <= 0.0:  # x_i = 0 with the L1 loss and no bias: g is piecewise linear, go where it falls
        return u if gp < 0.0 else (-u if gn > 0.0 else 0.0)
    if gp < h * b:
        return b - gp / h
    if gn > h * b:
        return b - gn / h
    return 0.0


@njit(cache=True)
def _record(X, z, Ci, epsilon, code, B, buf, epoch, n_active, beta, w, last):
    """P, D and the KKT violation max |PG_i| over all variables (one extra pass over X)."""
    t = trace.pause(buf)
    n = beta.shape[0]
    f = matvec(X, w, B, np.empty(n))
    r = np.empty(n)
    for i in range(n):
        r[i] = z[i] - f[i]
    wnorm2 = dot(w, w)  # w = w(beta) exactly, bias weight included
    p = reg.primal_value(wnorm2, r, Ci, epsilon, code)
    d = reg.dual_value(beta, wnorm2, z, Ci, epsilon, code)
    kkt = reg.kkt_violation(beta, reg.gradient(beta, f, z, Ci, code, f), Ci, epsilon, code, False)
    trace.record(buf, epoch, p, d, kkt, n_active, 0.0, t, beta, w, last)
