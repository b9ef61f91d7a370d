"""Dual coordinate descent for linear SVR in plain Python (Ho and Lin 2012, Algorithm 4).

The readable version of :mod:`svmlab.solvers.dcd_svr`: dense X as lists of floats, no
shrinking, every sum written out (a row's dot product in :func:`svmlab.reference.rows.dot`, the
kernels' order). The book prints it; the tests check that the numba kernel takes the same steps
(with ``order="cyclic"`` both visit 0, 1, ..., n-1 and add in the same order).
"""

import math

from .rows import dot


def dcd_svr(X, z, C, epsilon, loss="epsilon_insensitive", B=0.0, tol=1e-4, max_iter=1000, order="cyclic",
            rng=None):
    """Minimise f(beta) = 1/2 beta' (Q + D) beta - z' beta + epsilon |beta|_1, -U <= beta <= U.

    ``C`` is a number or one value per sample; ``B > 0`` appends a feature of value B (the
    bias by augmentation). ``order`` is "cyclic" or "permutation" (a new random order from
    ``rng`` each epoch). Stops when the summed violation of an epoch is at most ``tol`` times
    that of the first epoch. Returns (beta, w, epochs, converged); w has the bias feature's
    weight last when B > 0.
    """
    X = [[float(v) for v in row] + ([float(B)] if B > 0 else []) for row in X]
    z = [float(v) for v in z]
    n, d = len(X), len(X[0])
    p = d - (B > 0)  # features, the bias feature apart
    C = [float(c) for c in C] if hasattr(C, "__len__") else [float(C)] * n
    L1 = loss == "epsilon_insensitive"
    D = [0.0 if L1 else 0.5 / c for c in C]
    U = C if L1 else [math.inf] * n
    H = [sum(v * v for v in X[i]) + D[i] for i in range(n)]  # Q_ii + D_ii
    beta = [0.0] * n
    w = [0.0] * d
    first = None
    for epoch in range(1, max_iter + 1):
        total = 0.0  # the epoch's summed violation
        for i in range(n) if order == "cyclic" else rng.permutation(n).tolist():
            x = X[i]
            wx = dot(x, w, p)  # in the kernels' order, the bias feature's product last
            G = wx - z[i] + D[i] * beta[i]  # gradient of the smooth part
            Gp, Gn = G + epsilon, G - epsilon  # slopes right and left of beta_i = 0
            b = beta[i]
            if b == 0.0:  # the projected subgradient
                PG = Gp if Gp < 0.0 else (Gn if Gn > 0.0 else 0.0)
            elif b >= U[i]:
                PG = max(Gp, 0.0)
            elif b <= -U[i]:
                PG = min(Gn, 0.0)
            else:
                PG = Gp if b > 0.0 else Gn
            total += abs(PG)
            if H[i] <= 0.0:  # x_i = 0, L1 loss: the subproblem is piecewise linear
                new = U[i] if Gp < 0.0 else (-U[i] if Gn > 0.0 else 0.0)
            elif Gp < H[i] * b:  # the minimum lies right of 0
                new = b - Gp / H[i]
            elif Gn > H[i] * b:  # left of 0
                new = b - Gn / H[i]
            else:  # at the kink
                new = 0.0
            if abs(new - b) < 1e-12:
                continue
            beta[i] = min(max(new, -U[i]), U[i])
            step = beta[i] - b
            for j in range(d):
                w[j] += step * x[j]
        if first is None:
            first = total
        if total <= tol * first:
            return beta, w, epoch, True
    return beta, w, max_iter, False
