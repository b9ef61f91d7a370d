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
from numba import prange, types
from numba.extending import intrinsic

from .jit import REFCOUNTS, inner, njit
from .kernels import sqnorms
from .rows import as_rows, four_row_dots, n_cols, row_axpy, row_dot
from .threads import best_time, min_part, part, worth_splitting

LINEAR, POLY, RBF = 0, 1, 2
CODES = {"linear": LINEAR, "poly": POLY, "rbf": RBF}

KernelRows = namedtuple("KernelRows", "X code gamma degree coef0 sqnorm threads min_split")
KernelRows.__doc__ = """A kernel and its data as plain values a numba kernel accepts.

X: dense array or :data:`svmlab.rows.CSR`; code: LINEAR, POLY or RBF; sqnorm: |x_i|^2;
threads: None (one thread: the kernels are compiled without their parallel code), or how many
threads compute a column of at least ``min_split`` entries a thread (:func:`column`;
:func:`svmlab.threads.min_part` measures it)."""


def prepare(X, kernel, threads=1):
    """The :data:`KernelRows` of validated data ``X`` and a :class:`svmlab.kernels.Kernel`,
    whose long columns are computed by ``threads`` threads (:func:`column`)."""
    kr = KernelRows(as_rows(X), np.int64(CODES[kernel.name]), float(kernel.gamma), np.int64(kernel.degree),
                    float(kernel.coef0), np.ascontiguousarray(sqnorms(X), dtype=np.float64),
                    None if threads == 1 else np.int64(threads), np.int64(0))
    if threads == 1:
        return kr
    m = min(kr.sqnorm.shape[0], 4096)  # an entry's cost, timed on a column of up to 4096 entries
    index, out, work = np.arange(m), np.empty(m), work_vector(kr)
    per_entry = best_time(lambda: column_part(kr, 0, index, 0, m, work, out)) / m
    return kr._replace(min_split=np.int64(min_part(per_entry, threads)))


def threads_of(kr):
    """The threads of :data:`KernelRows` ``kr``: 1 for None."""
    return 1 if kr.threads is None else int(kr.threads)


def work_vector(kr):
    """The zero vector :func:`column` scatters x_j into: n_features entries for each thread."""
    d = kr.X.shape[1] if isinstance(kr.X, np.ndarray) else int(kr.X.n_cols)
    return np.zeros(d * threads_of(kr))


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


@inner  # not inlined: _arguments calls it four times, and numba types an inlined body at each call
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


def diagonal(kr):
    """K(x_i, x_i) for every sample, in NumPy: what :func:`_argument` and :func:`_transform` give
    for x_i.x_i = |x_i|^2, by the same operations on each entry, so to the last bit: |x|^2
    (linear); (gamma |x|^2 + coef0)^degree as a product of degree factors (poly); e^0 = 1 (rbf:
    |x|^2 + |x|^2 - 2 |x|^2 is exactly 0)."""
    if kr.code == RBF:
        return np.ones_like(kr.sqnorm)
    if kr.code == POLY:
        a, p = kr.gamma * kr.sqnorm + kr.coef0, np.ones_like(kr.sqnorm)
        for _ in range(kr.degree):
            p = p * a
        return p
    return kr.sqnorm.copy()


@njit(cache=True, inline="always")
def _arguments(kr, j, index, start, stop, work, out):
    """out[t] = the kernel's argument for x_k, x_j, k = index[t] (see :func:`column`); the dot
    products four at a time (:func:`svmlab.rows.four_row_dots`, the same values as one at a time)."""
    n = kr.sqnorm.shape[0]
    j = sample(j, n)
    row_axpy(kr.X, j, 1.0, work, 0.0)
    t = start
    while t + 4 <= stop:
        k0, k1, k2, k3 = sample(index[t], n), sample(index[t + 1], n), sample(index[t + 2], n), sample(index[t + 3], n)
        d0, d1, d2, d3 = four_row_dots(kr.X, k0, k1, k2, k3, work)
        out[t], out[t + 1] = _argument(kr, d0, k0, j), _argument(kr, d1, k1, j)
        out[t + 2], out[t + 3] = _argument(kr, d2, k2, j), _argument(kr, d3, k3, j)
        t += 4
    for u in range(t, stop):
        k = sample(index[u], n)
        out[u] = _argument(kr, row_dot(kr.X, k, work, 0.0), k, j)
    row_axpy(kr.X, j, -1.0, work, 0.0)


@njit(cache=True, inline="always")
def sample(k, n):
    """The sample of index k: k, or k - n for n <= k < 2n (the second copy of the 2n
    variables of epsilon-SVR, :mod:`svmlab.solvers.qmatrix`)."""
    return k - n if k >= n else k


@njit(cache=True, inline="always")
def column(kr, j, index, start, stop, work, out):
    """out[t] = K(x_k, x_j) for k = index[t], t in [start, stop); other entries are left alone.
    An index k in [n, 2n) stands for sample k - n (:func:`sample`).

    ``work`` is a zero vector of n_features entries per thread (:func:`work_vector`); x_j is
    scattered into it for the dot products (so CSR rows cost their nonzeros) and removed again,
    leaving it zero. With ``kr.threads`` > 1 a column of at least ``kr.min_split`` entries a thread
    is cut into that many contiguous parts, one a thread, each with its own part of ``work``: an
    entry is computed by the same operations whichever thread computes it, so the column is
    the same bit for bit for any number of threads.
    """
    _column(kr, kr.threads, j, index, start, stop, work, out)


@inner
def _column(kr, threads, j, index, start, stop, work, out):
    """:func:`column`; compiled for threads = None, it holds no parallel code (numba drops the
    branch of an argument's ``is None`` before it compiles)."""
    if threads is None:
        column_part(kr, j, index, start, stop, work, out)
    elif worth_splitting(stop - start, threads, kr.min_split):
        _split_column(kr, kr.X, j, index, start, stop, work, out)
    else:
        column_part(kr, j, index, start, stop, work, out)


@inner(parallel=True, **REFCOUNTS)
def _split_column(kr, X, j, index, start, stop, work, out):
    """:func:`column_part` on kr.threads contiguous parts of [start, stop), in parallel; X is kr.X.

    numba's parallel loops take no tuple inside a tuple, which kr is when X is a CSR matrix
    ("scalar type CSR(...) given for non scalar argument"), nor a tuple made in the function: so X
    comes as an argument of its own, and the loop's body makes kr again from it and kr's other
    fields. :func:`svmlab.solvers.kernel_cache._split_fill` does the same."""
    code, gamma, degree, coef0, sqnorm, threads, min_split = kr[1:]
    for c in prange(threads):
        part_kr = KernelRows(X, code, gamma, degree, coef0, sqnorm, threads, min_split)
        thread_part(part_kr, j, index, start, stop, work, c, out)


@njit(cache=True, inline="always")
def thread_part(kr, j, index, start, stop, work, c, out):
    """Part c of kr.threads contiguous parts of the column's [start, stop) (:func:`column`), with
    thread c's part of ``work``; returns the part's (start, stop)."""
    d = n_cols(kr.X)
    lo, hi = part(start, stop, c, kr.threads)
    column_part(kr, j, index, lo, hi, work[c * d:(c + 1) * d], out)
    return lo, hi


@njit(cache=True)
def column_part(kr, j, index, start, stop, work, out):
    """:func:`column` on one thread. The transform (``exp``, the power) runs as a second loop
    over a contiguous view, which LLVM vectorizes. Nothing here uses ``fastmath``: numba
    compiles an overload such as :func:`svmlab.rows.row_dot` once, with the flags of its first
    caller, so a fastmath caller would change the additions of every solver (and the bit-for-bit
    tests of chapter 3)."""
    _arguments(kr, j, index, start, stop, work, out)
    if kr.code != LINEAR:
        view = out[start:stop]
        for u in range(view.shape[0]):
            view[u] = _transform(kr, view[u])
