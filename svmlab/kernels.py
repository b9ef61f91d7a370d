"""Kernel functions (book chapter 5): linear, polynomial and RBF.

K(x, z) = x.z;  (gamma x.z + coef0)^degree;  exp(-gamma |x - z|^2),
with ``gamma="scale"`` = 1 / (n_features * Var(X)) as scikit-learn defines it.
"""

import numbers
import warnings
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
    elif isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be 'scale' or a positive number; got {gamma!r}.")
    if not isinstance(coef0, numbers.Real) or isinstance(coef0, bool) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
    return Kernel(name, float(gamma), positive_int(degree, "degree"), float(coef0))


PSD_SAMPLE = 200  # rows on which an indefinite-looking kernel is tested


def check_positive_semidefinite(kernel, X, loss):
    """Whether the kernel matrix of (a sample of) X has a negative eigenvalue: possible for the
    poly kernel with coef0 < 0 only (linear and RBF kernels are positive semi-definite). Then
    the dual is not concave: with the squared hinge (U_i = inf) it is unbounded, a ValueError;
    with the hinge the box keeps it bounded, and the solvers stop at a point of it that
    LIBSVM's tau guard allows, with a warning."""
    if kernel.name != "poly" or kernel.coef0 >= 0:
        return
    rows = X[: PSD_SAMPLE]
    K = kernel_matrix(kernel, rows, rows)
    low, high = np.linalg.eigvalsh(K)[[0, -1]]
    if low >= -1e-10 * max(abs(high), 1.0):
        return
    what = (f"the poly kernel with coef0={kernel.coef0:g} is not positive semi-definite on this data (its kernel "
            f"matrix has the eigenvalue {low:.3g})")
    if loss == "squared_hinge":
        raise ValueError(f"{what}: with the squared hinge the dual is then unbounded. Use coef0 >= 0, or "
                         "loss='hinge'.")
    warnings.warn(f"{what}: the dual is not concave, and the solver returns a stationary point, not a certified "
                  "optimum. Use coef0 >= 0 for a proper kernel.", UserWarning, stacklevel=4)


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


def kernel_matrix(kernel, X1, X2):
    """The dense matrix K(x1_i, x2_j) for rows of ``X1`` and ``X2`` (dense or CSR)."""
    dots = X1 @ X2.T
    dots = dots.toarray() if sp.issparse(dots) else np.asarray(dots, dtype=np.float64)
    if kernel.name == "linear":
        return dots
    if kernel.name == "poly":
        return (kernel.gamma * dots + kernel.coef0) ** kernel.degree
    sq = sqnorms(X1)[:, None] + sqnorms(X2)[None, :] - 2.0 * dots
    return np.exp(-kernel.gamma * np.maximum(sq, 0.0))  # |x - z|^2 >= 0, which rounding may break


def kernel_matvec(kernel, X1, X2, v):
    """K(X1, X2) @ v (v a vector or a matrix), a block of rows of ``X1`` at a time, so K is
    never stored whole."""
    out = np.empty((X1.shape[0],) + np.shape(v)[1:])
    for start in range(0, X1.shape[0], BLOCK_ROWS):
        stop = min(start + BLOCK_ROWS, X1.shape[0])
        out[start:stop] = kernel_matrix(kernel, X1[start:stop], X2) @ v
    return out
