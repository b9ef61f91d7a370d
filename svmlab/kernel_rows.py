"""Kernel values inside numba kernels (book chapter 5, eq. 5.1), for dense and CSR data.

:mod:`svmlab.kernels` computes whole kernel matrices with NumPy; the SMO and kernel DCD
solvers need single columns K(x_k, x_j) for chosen k, inside their numba loops. This module
gives them that, written once for both data layouts through :mod:`svmlab.rows`:

    linear  K = x.z,   poly  K = (gamma x.z + coef0)^degree,   rbf  K = exp(-gamma |x - z|^2)

with |x - z|^2 = |x|^2 + |z|^2 - 2 x.z from precomputed squared norms, as LIBSVM does.
The exponential is this module's :func:`exp`, which agrees with libm's to one unit in the
last place and, unlike a libm call, lets a column's transform run in SIMD lanes.
"""

import math
from collections import namedtuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

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


LOG2E = 1.4426950408889634
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # ln 2 = HI + LO; k HI is exact
TAYLOR = tuple(1.0 / math.factorial(m) for m in range(13, -1, -1))  # 1/13!, ..., 1/1!, 1/0!, for Horner


@intrinsic
def _double_from_bits(typingctx, bits):
    """The float64 whose IEEE 754 bits are the int64 ``bits``."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(cache=True, inline="always")
def exp(x):
    """e^x, within one unit in the last place of libm's, as plain arithmetic that LLVM can
    vectorize (it cannot vectorize a libm call). x = k ln 2 + r with |r| <= ln(2)/2 (ln 2 in
    two parts, so r is nearly exact); e^r by its Taylor polynomial of degree 13 (remainder
    below 1e-17); times 2^k as two powers of two, so that a result below 2^-1022 is rounded
    once, as a subnormal. Below -746 the result is 0, above 710 inf; NaN stays NaN."""
    x = min(max(x, -746.0), 710.0)
    k = math.floor(x * LOG2E + 0.5)
    r = (x - k * LN2_HI) - k * LN2_LO
    p = 0.0
    for c in TAYLOR:
        p = p * r + c
    half = np.int64(k) >> 1
    return p * _double_from_bits((half + 1023) << 52) * _double_from_bits((np.int64(k) - half + 1023) << 52)


@njit(cache=True, inline="always")
def _argument(kr, dot, i, j):
    """What the kernel's transform takes: x.z (linear), gamma x.z + coef0 (poly), or
    -gamma |x - z|^2 (rbf; the expansion rounds below 0 for nearly equal points, and is
    clipped at 0 there, as :func:`svmlab.kernels.kernel_matrix` clips it, so that K <= 1)."""
    if kr.code == RBF:
        return -kr.gamma * max(kr.sqnorm[i] + kr.sqnorm[j] - 2.0 * dot, 0.0)
    if kr.code == POLY:
        return kr.gamma * dot + kr.coef0
    return dot


@njit(cache=True, inline="always")
def _transform(kr, a):
    """K from :func:`_argument`'s value: e^a (rbf), a^degree (poly), a (linear)."""
    if kr.code == RBF:
        return exp(a)
    if kr.code == POLY:
        p = 1.0
        for _ in range(kr.degree):
            p *= a
        return p
    return a


@njit(cache=True, inline="always")
def value(kr, dot, i, j):
    """K(x_i, x_j) from the dot product x_i.x_j."""
    return _transform(kr, _argument(kr, dot, i, j))


@njit(cache=True)
def _arguments(kr, j, index, start, stop, work, out):
    """out[t] = the kernel's argument for x_k, x_j, k = index[t] (see :func:`column`)."""
    n = kr.sqnorm.shape[0]
    j = sample(j, n)
    row_axpy(kr.X, j, 1.0, work, 0.0)
    for t in range(start, stop):
        k = sample(index[t], n)
        out[t] = _argument(kr, row_dot(kr.X, k, work, 0.0), k, j)
    row_axpy(kr.X, j, -1.0, work, 0.0)


@njit(cache=True, inline="always")
def sample(k, n):
    """The sample of index k: k, or k - n for n <= k < 2n (the second copy of the 2n
    variables of epsilon-SVR, :mod:`svmlab.solvers.qmatrix`)."""
    return k - n if k >= n else k


@njit(cache=True)
def column(kr, j, index, start, stop, work, out):
    """out[t] = K(x_k, x_j) for k = index[t], t in [start, stop); other entries are left alone.
    An index k in [n, 2n) stands for sample k - n (:func:`sample`).

    ``work`` is a zero vector of length n_features; x_j is scattered into it for the dot
    products (so CSR rows cost their nonzeros) and removed again, leaving it zero. The
    transform (``exp``, the power) runs as a second loop over a contiguous view, which LLVM
    vectorizes. Nothing here uses ``fastmath``: numba compiles an overload such as
    :func:`svmlab.rows.row_dot` once, with the flags of its first caller, so a fastmath caller
    would change the additions of every solver (and the bit-for-bit tests of chapter 3).
    """
    _arguments(kr, j, index, start, stop, work, out)
    if kr.code != LINEAR:
        view = out[start:stop]
        for u in range(view.shape[0]):
            view[u] = _transform(kr, view[u])
