"""Kernel values inside numba kernels (book chapter 5, eq. 5.1), for dense and CSR data.

:mod:`svmlab.kernels` computes whole kernel matrices with NumPy; the SMO and kernel DCD
solvers need single columns K(x_k, x_j) for chosen k, inside their numba loops. This module
gives them that, written once for both data layouts through :mod:`svmlab.rows`:

    linear  K = x.z,   poly  K = (gamma x.z + coef0)^degree,   rbf  K = exp(-gamma |x - z|^2)

with |x - z|^2 = |x|^2 + |z|^2 - 2 x.z from precomputed squared norms, as LIBSVM does.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .kernels import sqnorms
from .rows import as_rows, row_axpy, row_dot

LINEAR, POLY, RBF = 0, 1, 2
CODES = {"linear": LINEAR, "poly": POLY, "rbf": RBF}

KernelRows = namedtuple("KernelRows", "X code gamma degree coef0 sqnorm")
KernelRows.__doc__ = """A kernel and its data as plain values a numba kernel accepts.

X: dense array or :data:`svmlab.rows.CSR`; code: LINEAR, POLY or RBF; sqnorm: |x_i|^2."""


def prepare(X, kernel):
    """The :data:`KernelRows` of validated data ``X`` and a :class:`svmlab.kernels.Kernel`."""
    return KernelRows(as_rows(X), np.int64(CODES[kernel.name]), float(kernel.gamma), np.int64(kernel.degree),
                      float(kernel.coef0), np.ascontiguousarray(sqnorms(X), dtype=np.float64))


@njit(cache=True, inline="always")
def value(kr, dot, i, j):
    """K(x_i, x_j) from the dot product x_i.x_j."""
    if kr.code == RBF:
        return np.exp(-kr.gamma * (kr.sqnorm[i] + kr.sqnorm[j] - 2.0 * dot))
    if kr.code == POLY:
        base = kr.gamma * dot + kr.coef0
        p = 1.0
        for _ in range(kr.degree):
            p *= base
        return p
    return dot


@njit(cache=True, fastmath=True)
def column(kr, j, index, start, stop, work, out):
    """out[k] = K(x_k, x_j) for k = index[start:stop]; other entries of ``out`` are left alone.

    ``work`` is a zero vector of length n_features; x_j is scattered into it for the dot
    products (so CSR rows cost their nonzeros) and removed again, leaving it zero. The dot
    products and the kernel's transform run as two loops, so that the second vectorizes.
    """
    row_axpy(kr.X, j, 1.0, work, 0.0)
    for t in range(start, stop):
        k = index[t]
        out[k] = row_dot(kr.X, k, work, 0.0)
    row_axpy(kr.X, j, -1.0, work, 0.0)
    for t in range(start, stop):
        k = index[t]
        out[k] = value(kr, out[k], k, j)
