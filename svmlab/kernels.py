"""Kernel functions (book chapter 5): linear, polynomial and RBF.

K(x, z) = x.z;  (gamma x.z + coef0)^degree;  exp(-gamma |x - z|^2),
with ``gamma="scale"`` = 1 / (n_features * Var(X)) as scikit-learn defines it.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .validation import one_of, positive_int

KERNELS = ("linear", "poly", "rbf")
BLOCK_ROWS = 1024


@dataclass(frozen=True)
class Kernel:
    """A kernel with its parameters resolved to numbers."""

    name: str
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0


def make_kernel(name, X, gamma="scale", degree=3, coef0=0.0):
    """The :class:`Kernel` for training data ``X`` (``gamma="scale"`` is resolved on ``X``)."""
    one_of(name, "kernel", KERNELS)
    if isinstance(gamma, str):
        one_of(gamma, "gamma", ("scale",))
        var = _variance(X)
        gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    elif isinstance(gamma, bool) or not np.isscalar(gamma) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be 'scale' or a positive number; got {gamma!r}.")
    if not np.isscalar(coef0) or isinstance(coef0, bool) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
    return Kernel(name, float(gamma), positive_int(degree, "degree"), float(coef0))


def _variance(X):
    if sp.issparse(X):
        mean = X.mean()
        return float(X.multiply(X).mean() - mean * mean)
    return float(X.var())


def sqnorms(X):
    """|x_i|^2 for each row (dense or CSR)."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def kernel_matrix(kernel, A, B):
    """The dense matrix K(a_i, b_j) for rows of ``A`` and ``B`` (dense or CSR)."""
    dots = A @ B.T
    dots = dots.toarray() if sp.issparse(dots) else np.asarray(dots, dtype=np.float64)
    if kernel.name == "linear":
        return dots
    if kernel.name == "poly":
        return (kernel.gamma * dots + kernel.coef0) ** kernel.degree
    sq = sqnorms(A)[:, None] + sqnorms(B)[None, :] - 2.0 * dots
    return np.exp(-kernel.gamma * np.maximum(sq, 0.0))


def kernel_matvec(kernel, A, B, v):
    """K(A, B) @ v (v a vector or a matrix), a block of rows of ``A`` at a time, so K is
    never stored whole."""
    out = np.empty((A.shape[0],) + np.shape(v)[1:])
    for start in range(0, A.shape[0], BLOCK_ROWS):
        stop = min(start + BLOCK_ROWS, A.shape[0])
        out[start:stop] = kernel_matrix(kernel, A[start:stop], B) @ v
    return out
