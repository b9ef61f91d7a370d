"""Readable NumPy versions of chapter 5's solvers, for the tests and the chapter.

Both work on the dense matrix Q_ij = y_i y_j K(x_i, x_j) and the minimisation form of the
dual, f(alpha) = 1/2 alpha' (Q + D) alpha - e' alpha, 0 <= alpha_i <= U_i, with
D_ii = 0, U_i = C_i (hinge) or D_ii = 1/(2 C_i), U_i = inf (squared hinge). No cache, no
shrinking: every line is the algorithm. SMO takes the steps of :mod:`svmlab.solvers.smo`
without shrinking, pair for pair (tests/test_smo_steps.py): ties are broken as LIBSVM breaks
them, the last of equals wins.
"""

import numpy as np

TAU = 1e-12  # LIBSVM's stand-in for a curvature eta_ij <= 0


def box(C, loss):
    """(D_ii, U_i) of the unified dual for per-sample C."""
    C = np.asarray(C, dtype=float)
    if loss == "hinge":
        return np.zeros_like(C), C.copy()
    return 0.5 / C, np.full_like(C, np.inf)


def smo(Q, y, C, loss="hinge", selection="max_violating", tol=1e-10, max_updates=1_000_000, each=None):
    """SMO (Algorithm 5.1) with the working sets of ``selection`` (:func:`working_set`);
    returns (alpha, b, updates). ``each(i, j, alpha)``, when given, sees every update.

    The pair moves along alpha_i += y_i t, alpha_j -= y_j t, which keeps y'alpha; t >= 0 is the
    minimiser (s_i - s_j) / eta_ij of f on that line, eta_ij = Qbar_ii + Qbar_jj - 2 K_ij,
    clipped where alpha_i or alpha_j reaches its bound. G is updated with the two columns, as
    LIBSVM does: a step that leaves both variables free makes s_i = s_j in exact arithmetic,
    so which of the two the next selection takes is a matter of rounding, and only the same
    additions on the same Q take the same pairs as the numba kernel.
    """
    D, U = box(C, loss)
    Qbar = Q + np.diag(D)
    alpha = np.zeros(len(y))
    G = -np.ones(len(y))  # G = Qbar alpha - e
    for update in range(max_updates):
        pair = working_set(Qbar, y, alpha, G, U, selection, tol)
        if pair is None:
            return alpha, bias(alpha, G, y, U), update
        i, j = pair
        s = -y * G
        eta = Qbar[i, i] + Qbar[j, j] - 2.0 * y[i] * y[j] * Qbar[i, j]
        room_i = U[i] - alpha[i] if y[i] > 0 else alpha[i]  # how far t can go before a bound
        room_j = alpha[j] if y[j] > 0 else U[j] - alpha[j]
        t = min((s[i] - s[j]) / (eta if eta > 0 else TAU), room_i, room_j)
        # a variable the clipping stops lands exactly on its bound, not a rounding off it
        new_i = (U[i] if y[i] > 0 else 0.0) if t == room_i else np.clip(alpha[i] + y[i] * t, 0.0, U[i])
        new_j = (0.0 if y[j] > 0 else U[j]) if t == room_j else np.clip(alpha[j] - y[j] * t, 0.0, U[j])
        G += Qbar[:, i] * (new_i - alpha[i]) + Qbar[:, j] * (new_j - alpha[j])
        alpha[i], alpha[j] = new_i, new_j
        if each is not None:
            each(i, j, alpha)
    raise RuntimeError("reference SMO did not converge")


def working_set(Qbar, y, alpha, G, U, selection, tol):
    """The pair (i, j) of eq. 5.9, or None when the maximal violation is below tol.

    With s = -y * G, i maximises s over I_up; j is taken from I_low: ``"max_violating"`` the
    smallest s (Keerthi et al. 2001), ``"second_order"`` the largest decrease of f along the
    pair among the j with s_j < s_i (Fan, Chen and Lin 2005, LIBSVM's WSS 2):
    b_ij^2 / a_ij with b_ij = s_i - s_j and a_ij = eta_ij, TAU where eta_ij <= 0.
    """
    s = -y * G
    up = ((y > 0) & (alpha < U)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < U))
    i = last_best(s, up)
    if s[i] - s[low].min() < tol:  # m(alpha) - M(alpha), LIBSVM's stopping rule
        return None
    if selection == "max_violating":
        return i, last_best(-s, low)
    b = s[i] - s
    a = Qbar[i, i] + np.diag(Qbar) - 2.0 * y[i] * y * Qbar[i]
    a = np.where(a > 0, a, TAU)
    return i, last_best(b * b / a, low & (b > 0))


def last_best(score, allowed):
    """The last index t with allowed[t] of the largest score[t] (LIBSVM scans with >=)."""
    return np.flatnonzero(allowed & (score == score[allowed].max()))[-1]


def bias(alpha, G, y, U):
    """b = -y_i G_i averaged over the free alpha_i, else the middle of the feasible interval."""
    free = (alpha > 0) & (alpha < U)
    if free.any():
        return float(np.mean(-y[free] * G[free]))
    at_upper = alpha >= U
    caps = (at_upper & (y > 0)) | (~at_upper & (y < 0))  # KKT: b <= -y G here, b >= -y G elsewhere
    lo = np.max(-y[~caps] * G[~caps], initial=-np.inf)
    hi = np.min(-y[caps] * G[caps], initial=np.inf)
    return 0.5 * (lo + hi)


def dcd(Q, C, loss="hinge", tol=1e-10, max_epochs=100_000):
    """Bias-free dual coordinate descent (Welt Xing (2021)), cyclic; returns alpha.

    alpha_i <- clip(alpha_i - G_i / Qbar_ii, 0, U_i), with G_i = (Qbar alpha)_i - 1 recomputed
    from scratch; stops when the projected gradient is below tol everywhere.
    """
    D, U = box(C, loss)
    Qbar = Q + np.diag(D)
    alpha = np.zeros(Q.shape[0])
    for _ in range(max_epochs):
        for i in range(len(alpha)):
            g = Qbar[i] @ alpha - 1.0
            alpha[i] = np.clip(alpha[i] - g / Qbar[i, i], 0.0, U[i])
        G = Qbar @ alpha - 1.0
        pg = np.where(alpha <= 0, np.minimum(G, 0), np.where(alpha >= U, np.maximum(G, 0), G))
        if np.abs(pg).max() < tol:
            return alpha
    raise RuntimeError("reference DCD did not converge")
