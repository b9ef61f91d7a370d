"""Readable NumPy versions of chapter 5's solvers, for the tests and the chapter.

Both work on the dense matrix Q_ij = y_i y_j K(x_i, x_j) and the minimisation form of the
dual, f(alpha) = 1/2 alpha' (Q + D) alpha - e' alpha, 0 <= alpha_i <= U_i, with
D_ii = 0, U_i = C_i (hinge) or D_ii = 1/(2 C_i), U_i = inf (squared hinge). No cache, no
shrinking: every line is the algorithm.
"""

import numpy as np


def box(C, loss):
    """(D_ii, U_i) of the unified dual for per-sample C."""
    C = np.asarray(C, dtype=float)
    if loss == "hinge":
        return np.zeros_like(C), C.copy()
    return 0.5 / C, np.full_like(C, np.inf)


def smo(Q, y, C, loss="hinge", tol=1e-10, max_updates=1_000_000):
    """SMO with the maximal violating pair (Algorithm 5.1); returns (alpha, b, updates).

    With s = -y * G, i maximises s over I_up and j minimises it over I_low; the pair moves
    along alpha_i += y_i t, alpha_j -= y_j t (which keeps y'alpha), t >= 0 clipped at H.
    """
    D, U = box(C, loss)
    Qbar = Q + np.diag(D)
    alpha = np.zeros(len(y))
    G = -np.ones(len(y))
    for update in range(max_updates):
        s = -y * G
        up = ((y > 0) & (alpha < U)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < U))
        i = np.flatnonzero(up)[np.argmax(s[up])]
        j = np.flatnonzero(low)[np.argmin(s[low])]
        if s[i] - s[j] < tol:
            return alpha, bias(alpha, G, y, U), update
        eta = max(Qbar[i, i] + Qbar[j, j] - 2.0 * y[i] * y[j] * Qbar[i, j], 1e-12)
        H = min(U[i] - alpha[i] if y[i] > 0 else alpha[i],
                alpha[j] if y[j] > 0 else U[j] - alpha[j])
        t = min((s[i] - s[j]) / eta, H)
        alpha[i] = np.clip(alpha[i] + y[i] * t, 0.0, U[i])
        alpha[j] = np.clip(alpha[j] - y[j] * t, 0.0, U[j])
        G = Qbar @ alpha - 1.0
    raise RuntimeError("reference SMO did not converge")


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
