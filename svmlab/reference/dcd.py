"""Dual coordinate descent in plain Python (book chapter 3, Algorithm 3.1).

The readable version of :mod:`svmlab.solvers.dcd`: dense X as lists of floats, no shrinking,
no NumPy in the loop, every sum written out (a row's dot product in :func:`svmlab.reference.rows.dot`,
the kernels' order). Chapter 3 prints it, the tests check that the numba kernel takes the same
steps (with ``order="cyclic"`` both visit 0, 1, ..., n-1 and add in the same order), and the
benchmark times it as the plain-Python implementation.
"""

import math

from .rows import dot


def dcd(X, y, C, loss="hinge", B=0.0, tol=1e-4, max_iter=1000, order="cyclic", rng=None, stopping="pg"):
    """Minimise f(alpha) = 1/2 alpha' (Q + D) alpha - e' alpha, 0 <= alpha <= U (eq. 3.1).

    ``C`` is a number or one value per sample; ``B > 0`` appends a feature of value B (the
    bias by augmentation). ``order`` is "cyclic" or "permutation" (a new random order from
    ``rng`` each epoch); ``stopping`` is "pg" (max PG - min PG <= tol over an epoch, eq. 3.8)
    or "dw" (|w_k - w_(k-1)| < tol, eq. 3.9). Returns (alpha, w, epochs, converged); w has
    the bias feature's weight last when B > 0.
    """
    X = [[float(v) for v in row] + ([float(B)] if B > 0 else []) for row in X]
    y = [float(v) for v in y]
    n, d = len(X), len(X[0])
    p = d - (B > 0)  # features, the bias feature apart
    C = [float(c) for c in C] if hasattr(C, "__len__") else [float(C)] * n
    D = [0.0 if loss == "hinge" else 0.5 / c for c in C]  # the table of eq. 3.2
    U = C if loss == "hinge" else [math.inf] * n
    QD = [sum(v * v for v in X[i]) + D[i] for i in range(n)]  # diagonal of Q-bar
    alpha = [0.0] * n
    w = [0.0] * d
    for epoch in range(1, max_iter + 1):
        w_old = list(w)
        pg_max, pg_min = -math.inf, math.inf
        for i in range(n) if order == "cyclic" else rng.permutation(n).tolist():
            x = X[i]
            wx = dot(x, w, p)  # in the kernels' order, the bias feature's product last
            G = y[i] * wx - 1.0 + D[i] * alpha[i]  # eq. 3.4
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
                step = (alpha[i] - old) * y[i]
                for j in range(d):
                    w[j] += step * x[j]  # eq. 3.7
        if stopping == "dw":
            met = math.sqrt(sum((a - b) ** 2 for a, b in zip(w, w_old))) < tol
        else:
            met = pg_max - pg_min <= tol
        if met:
            return alpha, w, epoch, True
    return alpha, w, max_iter, False
