"""Row access for dense arrays and CSR matrices, so that each solver is written once.

A solver's data is either a C-contiguous float64 array or a :data:`CSR` named tuple. The
helpers below are numba overloads, resolved at compile time: a solver compiled for dense data
has dense loops, one compiled for CSR has sparse ones, with no branch at run time.

Every helper takes ``B``, the value of the bias feature appended to each row (0 when there is
no such feature): the weight vector then has length d + 1 and its last entry is b / B. This is
the bias by augmentation of LIBLINEAR (book eq. 1.5) without copying the data. With B = 0 the
entry w[d] is never read, so a vector of length d also works (a kernel matrix Q as "rows").
"""

from collections import namedtuple

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .jit import OVERLOAD_OPTIONS, njit

CSR = namedtuple("CSR", "data indices indptr n_cols")
CSR.__doc__ = "A CSR matrix as plain arrays that numba kernels accept."


def as_rows(X):
    """The data a kernel takes: ``X`` itself (dense float64, C order) or a :data:`CSR` tuple.

    Expects the output of :func:`svmlab.validation.check_array` (canonical CSR, float64).
    """
    if sp.issparse(X):
        return CSR(X.data, X.indices, X.indptr, np.int64(X.shape[1]))
    return X


def _is_dense(X):
    return isinstance(X, types.Array)


@njit(cache=True, inline="always")
def _entries(X, i):
    """The places of CSR row i's entries in X.data and X.indices, unsigned, as are the column
    indices read there (``np.uint64``): numba wraps a negative signed index around, a test and a
    select for every entry (a DCD-style pass, a dot and an update a row, over
    ``datasets.make_sparse_text()`` took 61 ms with signed indices, 46 ms unsigned)."""
    return range(np.uint64(X.indptr[i]), np.uint64(X.indptr[i + 1]))


def n_rows(X):
    raise NotImplementedError  # pragma: no cover - replaced by the overload in numba


def n_cols(X):
    raise NotImplementedError  # pragma: no cover


def row_dot(X, i, w, B):
    raise NotImplementedError  # pragma: no cover


def row_axpy(X, i, a, w, B):
    raise NotImplementedError  # pragma: no cover


def four_row_dots(X, k0, k1, k2, k3, w):
    raise NotImplementedError  # pragma: no cover


def row_sqnorm(X, i, B):
    raise NotImplementedError  # pragma: no cover


def prefetch_row(X, i):
    raise NotImplementedError  # pragma: no cover


def lookahead(X):
    raise NotImplementedError  # pragma: no cover


def prefetch_row_start(X, i):
    raise NotImplementedError  # pragma: no cover


@overload(n_rows, jit_options=OVERLOAD_OPTIONS)
def _n_rows(X):
    if _is_dense(X):
        return lambda X: X.shape[0]
    return lambda X: X.indptr.shape[0] - 1


@overload(n_cols, jit_options=OVERLOAD_OPTIONS)
def _n_cols(X):
    if _is_dense(X):
        return lambda X: X.shape[1]
    return lambda X: X.n_cols


@intrinsic
def lane_sums(typingctx, rows, w):
    """For each dense row x in the tuple ``rows`` (all of one length d; w at least as long):
    (s_0 + s_1) + (s_2 + s_3), where s_r is the sum of x[j] w[j] over j = r (mod 4), j < 4 (d // 4),
    added in order of j (:func:`svmlab.reference.rows.dot` without its tail). The four sums are
    the lanes of one vector register, and the rows share one loop over w.

    One running sum waits for each addition to finish; four lanes add four products an
    instruction and keep several additions in flight. numba switches off LLVM's SLP vectorizer,
    which would pack separate scalar sums into a vector, so the vector is written here in LLVM's
    IR, with plain (not fast-math) additions: the order above is kept."""
    arrays = tuple(rows) + (w,) if isinstance(rows, types.BaseTuple) else ()
    if not arrays or not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                             and a.dtype == types.float64 for a in arrays):
        return None  # a typing error: lanes are loaded as four consecutive floats

    def codegen(context, builder, signature, args):
        rows_type, w_type = signature.args
        xs = [context.make_array(t)(context, builder, v)
              for t, v in zip(rows_type, cgutils.unpack_tuple(builder, args[0]))]
        w = context.make_array(w_type)(context, builder, args[1])
        lanes = ir.VectorType(ir.DoubleType(), 4)
        sums = [cgutils.alloca_once_value(builder, ir.Constant(lanes, [0.0] * 4)) for _ in xs]
        d = cgutils.unpack_tuple(builder, xs[0].shape)[0]
        with cgutils.for_range(builder, builder.ashr(d, ir.Constant(d.type, 2))) as loop:  # d // 4 groups
            j = builder.shl(loop.index, ir.Constant(d.type, 2))
            w4 = _group(builder, w, j, lanes)
            for x, total in zip(xs, sums):
                products = builder.fmul(_group(builder, x, j, lanes), w4)
                builder.store(builder.fadd(builder.load(total), products), total)
        out = []
        for total in sums:
            s = [builder.extract_element(builder.load(total), ir.Constant(ir.IntType(32), r)) for r in range(4)]
            out.append(builder.fadd(builder.fadd(s[0], s[1]), builder.fadd(s[2], s[3])))
        return context.make_tuple(builder, signature.return_type, out)

    return types.UniTuple(types.float64, len(rows))(rows, w), codegen


def _group(builder, array, j, lanes):
    """IR: array[j:j + 4] as one vector (unaligned load)."""
    pointer = builder.bitcast(builder.gep(array.data, [j]), lanes.as_pointer())
    return builder.load(pointer, align=8, typ=lanes)


@njit(cache=True, inline="always")
def _tail(x, w, s):
    """s plus x[j] w[j] for the last len(x) mod 4 entries of x, one at a time (after :func:`lane_sums`)."""
    d = x.shape[0]
    for j in range(d - d % 4, d):
        s += x[j] * w[j]
    return s


@overload(row_dot, jit_options=OVERLOAD_OPTIONS)
def _row_dot(X, i, w, B):
    """x_i . w[:d] + B w[d]: a dense row's products added in :func:`lane_sums`' order, then the
    tail's, then the bias feature's (:func:`svmlab.reference.rows.dot`); a CSR row's in order."""
    if _is_dense(X):
        def dense(X, i, w, B):
            x = X[i]
            s = _tail(x, w, lane_sums((x,), w)[0])
            return s + B * w[X.shape[1]] if B != 0.0 else s
        return dense

    def sparse(X, i, w, B):
        s = 0.0
        for k in _entries(X, i):
            s += X.data[k] * w[np.uint64(X.indices[k])]
        return s + B * w[X.n_cols] if B != 0.0 else s
    return sparse


@overload(four_row_dots, jit_options=OVERLOAD_OPTIONS)
def _four_row_dots(X, k0, k1, k2, k3, w):
    """(x_k0 . w, x_k1 . w, x_k2 . w, x_k3 . w), each summed in the order of :func:`row_dot` (B = 0),
    so equal to it bit for bit. Dense rows share one loop of :func:`lane_sums`, which loads each
    group of w once, and one loop over the tail."""
    if _is_dense(X):
        def dense(X, k0, k1, k2, k3, w):
            d = X.shape[1]
            s0, s1, s2, s3 = lane_sums((X[k0], X[k1], X[k2], X[k3]), w)
            for j in range(d - d % 4, d):  # the tail as in _tail, the four rows in one loop (faster on short rows)
                s0 += X[k0, j] * w[j]
                s1 += X[k1, j] * w[j]
                s2 += X[k2, j] * w[j]
                s3 += X[k3, j] * w[j]
            return s0, s1, s2, s3
        return dense

    def sparse(X, k0, k1, k2, k3, w):  # rows of different lengths: one at a time
        return row_dot(X, k0, w, 0.0), row_dot(X, k1, w, 0.0), row_dot(X, k2, w, 0.0), row_dot(X, k3, w, 0.0)
    return sparse


@overload(row_axpy, jit_options=OVERLOAD_OPTIONS)
def _row_axpy(X, i, a, w, B):
    """w += a [x_i, B]."""
    if _is_dense(X):
        def dense(X, i, a, w, B):
            d = X.shape[1]
            for j in range(d):
                w[j] += a * X[i, j]
            if B != 0.0:
                w[d] += a * B
        return dense

    def sparse(X, i, a, w, B):
        for k in _entries(X, i):
            w[np.uint64(X.indices[k])] += a * X.data[k]
        if B != 0.0:
            w[X.n_cols] += a * B
    return sparse


@overload(row_sqnorm, jit_options=OVERLOAD_OPTIONS)
def _row_sqnorm(X, i, B):
    """|x_i|^2 + B^2."""
    if _is_dense(X):
        def dense(X, i, B):
            s = 0.0
            for j in range(X.shape[1]):
                s += X[i, j] * X[i, j]
            return s + B * B
        return dense

    def sparse(X, i, B):
        s = 0.0
        for k in _entries(X, i):
            s += X.data[k] * X.data[k]
        return s + B * B
    return sparse


@intrinsic
def prefetch(typingctx, arr, k):
    """Ask the CPU to start loading the cache line of arr[k] (a 1-D array) into its L2 cache;
    changes no value. L2, not L1: a core's L1 tracks about 16 lines in flight (its fill
    buffers), its L2 about 48, and a lookahead of IN_FLIGHT bytes asks for 128 lines. Aimed at L1,
    the requests beyond its fill buffers wait in the pipeline; aimed at L2, they proceed, and a
    line there is a few nanoseconds from use. (Measured on one Xeon, runs taken in turn: DCD's dense
    pass in a permutation about 8 % faster; its sparse pass, SDCA and Pegasos within that
    machine's run-to-run spread.)"""
    if not (isinstance(arr, types.Array) and arr.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        array = context.make_array(arrty)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, arrty, array, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        name = "llvm.prefetch.p0" if str(byte_pointer) == "ptr" else "llvm.prefetch.p0i8"  # opaque or typed pointers
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]), name)
        read, to_l2, data_cache = (ir.Constant(int32, v) for v in (0, 2, 1))  # locality 2: prefetcht1 on x86
        builder.call(function, [builder.bitcast(pointer, byte_pointer), read, to_l2, data_cache])
        return context.get_dummy_value()

    return types.void(arr, k), codegen


@overload(prefetch_row, jit_options=OVERLOAD_OPTIONS)
def _prefetch_row(X, i):
    """Start loading row i, every cache line of it: a line (8 doubles, 16 int32) at a time
    and the last entry, whose line a row not aligned to 64 bytes would otherwise miss. A solver
    that visits rows in a random order calls it :func:`lookahead` rows ahead, so that memory
    latency overlaps the work on the current row instead of adding to it."""
    if _is_dense(X):
        def dense(X, i):
            row = X[i]
            d = row.shape[0]
            for j in range(0, d, 8):
                prefetch(row, j)
            if d > 0:
                prefetch(row, d - 1)
        return dense

    def sparse(X, i):
        # one call an array: with the loops written here, numba counted X.indices and X.indptr up
        # and down at every call (a tenth of a sparse DCD fit in NRT_incref and NRT_decref)
        start, end = X.indptr[i], X.indptr[i + 1]
        _prefetch_span(X.data, start, end, 8)
        _prefetch_span(X.indices, start, end, 16)
    return sparse


@njit(cache=True)
def _prefetch_span(a, start, end, per_line):
    """prefetch a[start:end], a line (``per_line`` entries) at a time, and its last entry."""
    for k in range(start, end, per_line):
        prefetch(a, k)
    if end > start:
        prefetch(a, end - 1)


@overload(prefetch_row_start, jit_options=OVERLOAD_OPTIONS)
def _prefetch_row_start(X, i):
    """Start loading where row i begins: its first cache line (dense) or its entry of indptr
    (CSR), which :func:`prefetch_row` must read before it can ask for the row's lines. Called
    further ahead than prefetch_row, it takes that first miss (and the page walk of a row in a
    random order) off the later call's path."""
    if _is_dense(X):
        def dense(X, i):
            prefetch(X[i], 0)
        return dense

    def sparse(X, i):
        prefetch(X.indptr, i)
    return sparse


# Bytes of rows a pass keeps loading ahead of the row it works on. By Little's law a core
# streams at bandwidth B only with latency x B bytes in flight: about 2 kB at 100 ns and
# 20 GB/s, 8 kB at the 400 ns of a loaded or virtualised machine. 8 kB covers both and stays
# well inside a core's L2 cache (1-2 MB), where :func:`prefetch` puts it, so a row is not evicted
# before it is used.
IN_FLIGHT = 8192


@overload(lookahead, jit_options=OVERLOAD_OPTIONS)
def _lookahead(X):
    """How many rows ahead to prefetch: IN_FLIGHT bytes of rows of X's mean length (values
    and, for CSR, column indices), at least 2."""
    if _is_dense(X):
        return lambda X: max(2, -(-IN_FLIGHT // max(8 * X.shape[1], 1)))

    def sparse(X):
        n = X.indptr.shape[0] - 1
        row_bytes = 12 * X.indptr[n] // max(n, 1)
        return max(2, -(-IN_FLIGHT // max(row_bytes, 1)))
    return sparse


@njit(cache=True, inline="always")
def margins(X, y, w, B, out):
    """out_i = y_i [x_i, B] . w, the margins of every sample."""
    matvec(X, w, B, out)
    multiply(out, out, y)
    return out


@njit(cache=True, inline="always")
def matvec(X, w, B, out):
    """out_i = [x_i, B] . w for every row."""
    for i in range(n_rows(X)):
        out[i] = row_dot(X, i, w, B)
    return out


@njit(cache=True, inline="always")
def row_sqnorms(X, B, out):
    """out_i = |[x_i, B]|^2 for the first len(out) rows."""
    for i in range(out.shape[0]):
        out[i] = row_sqnorm(X, i, B)
    return out


@njit(cache=True, inline="always")
def rmatvec(X, v, B, out):
    """out = sum_i v_i [x_i, B] (length d + 1)."""
    for j in range(out.shape[0]):
        out[j] = 0.0
    for i in range(n_rows(X)):
        if v[i] != 0.0:
            row_axpy(X, i, v[i], out, B)
    return out


POWER_STEPS = 500  # the most power iterations spectral_norm_sq takes


def spectral_norm_sq(X, B):
    """Largest eigenvalue of A'A, where A is X with the bias column B (the squared spectral norm of
    A); X dense or a :data:`CSR` tuple.

    Dense A with k = min(rows, columns) <= 2 POWER_STEPS: from the k x k one of A'A and AA' (they
    share their nonzero eigenvalues), formed by BLAS and solved by LAPACK, exact to rounding. That
    costs about m k^2 for the other side m, no more than the worst case of power iteration,
    2 POWER_STEPS m k. Power iteration (:func:`power_iteration`, every other case) converges as
    (lambda_2 / lambda_1)^steps: on 100,000 unit rows of 100 isotropic features (lambda_1 / lambda_2
    = 1.005), its 500 steps took 19 s and stopped 1e-6 below lambda_1.
    """
    if isinstance(X, np.ndarray) and min(X.shape[0], X.shape[1] + (B != 0.0)) <= 2 * POWER_STEPS:
        n, d = X.shape
        with np.errstate(over="ignore", invalid="ignore"):  # huge X: inf, refused by the solver's check
            if B == 0.0:
                G = X.T @ X if n >= d else X @ X.T
            elif n >= d + 1:  # [X, B]'[X, B], the bias column's entries written out
                G = np.empty((d + 1, d + 1))
                G[:d, :d] = X.T @ X
                G[:d, d] = G[d, :d] = B * X.sum(axis=0)
                G[d, d] = B * B * n
            else:
                G = X @ X.T + B * B  # [X, B][X, B]' = X X' + B^2 (all ones)
        return float(np.linalg.eigvalsh(G)[-1]) if np.isfinite(G).all() else np.inf
    return power_iteration(X, B)


@njit(cache=True)
def power_iteration(X, B, rtol=1e-10, max_iter=POWER_STEPS):
    """Largest eigenvalue of X' X for X with the bias column, by power iteration.

    Converges from below; used for step sizes 1/L, which the solvers guard with a monotone
    check, so a slight under-estimate is harmless. It starts from a fixed vector of scattered
    entries (a multiplicative hash of the index, in [0.5, 1.5)) rather than from all ones, which
    data such as [x, -x] annihilate; 0 only for X = 0.
    """
    n = n_rows(X)
    v = np.empty(n_cols(X) + 1)
    for j in range(v.shape[0]):
        v[j] = 0.5 + ((j * 2654435761 + 12345) % 1000003) / 1000003.0
    if B == 0.0:
        v[-1] = 0.0
    u = np.empty(n)
    lam = 0.0
    for _ in range(max_iter):
        nv = np.sqrt(dot(v, v))
        if nv == 0.0:
            return 0.0
        for j in range(v.shape[0]):
            v[j] /= nv
        matvec(X, v, B, u)
        rmatvec(X, u, B, v)
        new = np.sqrt(dot(v, v))
        if abs(new - lam) <= rtol * new:
            return new
        lam = new
    return lam


# Vector helpers. Plain loops: numba compiles them much faster than array expressions and
# slice assignment, and inlined they add no compiled function of their own, so the first fit of
# a solver in a fresh environment stays short.
@njit(cache=True, inline="always")
def dot(a, b):
    """a . b"""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit(cache=True, inline="always")
def axpy(a, x, y):
    """y += a x"""
    for i in range(y.shape[0]):
        y[i] += a * x[i]


@njit(cache=True)
def distance(a, b):
    """|a - b|"""
    s = 0.0
    for i in range(a.shape[0]):
        s += (a[i] - b[i]) ** 2
    return np.sqrt(s)


@njit(cache=True, inline="always")
def assign(dst, src):
    """dst[:] = src"""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def multiply(dst, a, b):
    """dst = a * b, elementwise (dst may be a or b)"""
    for i in range(dst.shape[0]):
        dst[i] = a[i] * b[i]
