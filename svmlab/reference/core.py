"""Readable NumPy versions of the problem core and the chapter 1-2 solvers.

Each mirrors a numba kernel of svmlab line for line in meaning, written for clarity, so the
tests can check the fast code against the formulas of the book.
"""

import numpy as np


def augment(X, B):
    """[X, B]: the bias as a feature (eq. 1.5); no column when B = 0."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    return np.hstack([X, np.full((X.shape[0], 1), B)]) if B else X


def losses(m, loss):
    r = np.maximum(0.0, 1.0 - m)
    return r if loss == "hinge" else r ** 2


def primal(X, y, C, loss, w, b=0.0, B=0.0):
    """P = 1/2 |w|^2 (+ 1/2 (b/B)^2) + sum C_i loss(y_i (w.x_i + b)) (eq. 1.3)."""
    X = augment(X, 0.0)
    reg = 0.5 * w @ w + (0.5 * (b / B) ** 2 if B else 0.0)
    return reg + np.sum(C * losses(y * (X @ w + b), loss))


def dual(X, y, C, loss, alpha, B=0.0):
    """D = sum alpha - 1/2 alpha' Q alpha - 1/2 sum D_ii alpha_i^2 (eq. 2.9)."""
    Xa = augment(X, B)
    v = Xa.T @ (alpha * y)
    Dii = np.zeros_like(alpha) if loss == "hinge" else 0.5 / (np.ones_like(alpha) * C)
    return alpha.sum() - 0.5 * v @ v - 0.5 * np.sum(Dii * alpha ** 2)


def projected_gradient(alpha, G, U):
    """eq. 3.6"""
    return np.where(alpha <= 0, np.minimum(G, 0), np.where(alpha >= U, np.maximum(G, 0), G))


def libsvm_bias(alpha, G, U, y):
    """b = -rho of LIBSVM's calculate_rho (eq. 5.10)."""
    yG = y * G
    free = (alpha > 0) & (alpha < U)
    if free.any():
        return -yG[free].mean()
    at_upper = alpha >= U
    lower_side = (at_upper & (y > 0)) | (~at_upper & (y < 0))
    lo = yG[lower_side].max() if lower_side.any() else -np.inf
    hi = yG[~lower_side].min() if (~lower_side).any() else np.inf
    return -0.5 * (lo + hi)


def subgradient_descent(X, y, C, loss, B, epochs):
    """Algorithm 1.1: w <- w - eta * grad P, eta = 1/t (hinge) or 1/L (squared hinge)."""
    Xa = augment(X, B)
    C = np.broadcast_to(C, y.shape)
    w = np.zeros(Xa.shape[1])
    L = 1 + 2 * C.max() * np.linalg.norm(Xa, 2) ** 2
    for t in range(1, epochs + 1):
        r = np.maximum(0.0, 1.0 - y * (Xa @ w))
        c = C * (r > 0) if loss == "hinge" else 2 * C * r
        grad = w - Xa.T @ (c * y)
        w = w - (1.0 / t if loss == "hinge" else 1.0 / L) * grad
    return w


def dual_projected_gradient(X, y, C, loss, B, epochs):
    """Algorithm 2.1: alpha <- clip(alpha - (Q-bar alpha - e) / L, 0, U), no free bias."""
    Xa = augment(X, B)
    C = np.broadcast_to(C, y.shape)
    Q = (y[:, None] * Xa) @ (y[:, None] * Xa).T
    Dii = np.zeros_like(C) if loss == "hinge" else 0.5 / C
    U = C if loss == "hinge" else np.full_like(C, np.inf)
    Qbar = Q + np.diag(Dii)
    L = np.linalg.eigvalsh(Qbar).max()
    alpha = np.zeros_like(y)
    for _ in range(epochs):
        alpha = np.clip(alpha - (Qbar @ alpha - 1.0) / L, 0.0, U)
    return alpha
