"""Dual coordinate descent in plain Python and NumPy (book chapter 3, Algorithm 3.1).

The readable version of :mod:`svmlab.solvers.dcd`: dense X, no shrinking, one Python loop
over the samples. Chapter 3 prints it, the tests check that the numba kernel takes the same
steps (with ``order="cyclic"`` both visit 0, 1, ..., n-1), and the benchmark times it as the
plain-Python implementation.
"""

import numpy as np


def dcd(X, y, C, loss="hinge", B=0.0, tol=1e-4, max_iter=1000, order="cyclic", rng=None, stopping="pg"):
    """Minimise f(alpha) = 1/2 alpha' (Q + D) alpha - e' alpha, 0 <= alpha <= U (eq. 3.1).

    ``C`` is a number or one value per sample; ``B > 0`` appends a feature of value B (the
    bias by augmentation). ``order`` is "cyclic" or "permutation" (a new random order from
    ``rng`` each epoch); ``stopping`` is "pg" (max PG - min PG <= tol over an epoch, eq. 3.8)
    or "dw" (|w_k - w_(k-1)| < tol, eq. 3.9). Returns (alpha, w, epochs, converged); w has
    the bias feature's weight last when B > 0.
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if B > 0:
        X = np.hstack([X, np.full((n, 1), float(B))])
    C = np.broadcast_to(np.asarray(C, dtype=float), (n,))
    D = np.zeros(n) if loss == "hinge" else 0.5 / C  # the table of eq. 3.2
    U = C if loss == "hinge" else np.full(n, np.inf)
    QD = np.einsum("ij,ij->i", X, X) + D  # diagonal of Q-bar
    alpha = np.zeros(n)
    w = np.zeros(X.shape[1])
    for epoch in range(1, max_iter + 1):
        w_old = w.copy()
        pg_max, pg_min = -np.inf, np.inf
        for i in range(n) if order == "cyclic" else rng.permutation(n):
            G = y[i] * (w @ X[i]) - 1.0 + D[i] * alpha[i]  # eq. 3.4
            if alpha[i] == 0.0:  # projected gradient, eq. 3.6
                PG = min(G, 0.0)
            elif alpha[i] == U[i]:
                PG = max(G, 0.0)
            else:
                PG = G
            pg_max, pg_min = max(pg_max, PG), min(pg_min, PG)
            if abs(PG) > 1e-12:
                old = alpha[i]
                alpha[i] = min(max(old - G / QD[i], 0.0), U[i])  # eq. 3.5
                w += (alpha[i] - old) * y[i] * X[i]  # eq. 3.7
        met = np.linalg.norm(w - w_old) < tol if stopping == "dw" else pg_max - pg_min <= tol
        if met:
            return alpha, w, epoch, True
    return alpha, w, max_iter, False
