"""The matrix Q of a kernel dual, as SMO and kernel DCD see it (LIBSVM's ``QMatrix``).

The solvers ask two things of Q: column j over the active set, and the diagonal Q_jj; they
know nothing of kernels or of the cache. Both duals the book solves have the same form,

    Q_jk = s_j s_k K(x_(j mod n), x_(k mod n))

over m variables with signs s:

- classification (LIBSVM's ``SVC_Q``): m = n variables alpha, s = y;
- epsilon-SVR (LIBSVM's ``SVR_Q``): m = 2n variables, alpha then alpha^*, s = [+1]*n + [-1]*n,
  so variable j and j + n stand for the same sample (:func:`svmlab.kernel_rows.column` reads
  an index k >= n as sample k - n).

A :data:`QMatrix` (classification) holds the signs, the kernel and its data
(:data:`svmlab.kernel_rows.KernelRows`) and an LRU :mod:`kernel cache <svmlab.solvers.kernel_cache>`
of columns of Q itself.

A :data:`RegressionQ` (epsilon-SVR) caches, as LIBSVM's ``SVR_Q``, *kernel* columns K(., x_t) of
length n, one per sample, in the same LRU cache: variables t and t + n share the column of sample
t, so a miss costs n kernel evaluations (not 2n) and the same megabytes hold twice the columns
of twice the use. The column of Q over the active set is then built from the cached kernel column
with the signs, into one of two buffers of length 2n that alternate (the pair step needs two
columns at once; a column asked for again while it is in a buffer is not rebuilt). The solver
sees a cache of its own (:attr:`RegressionQ.cache`, the buffers with every variable at its own
place: ``pos[k] = k``), on which its shrinking calls are no-ops; the kernel cache follows the
active set lazily: when the solver's generation or active size has changed, the samples with an
active variable become the kernel cache's active set (``sorder[:n_active]``, a stable partition,
so the cache's rule that the order is permuted only inside the active prefix holds) and its slots
are shortened as for classification. The values are those of the old 2n layout bit for bit:
the signs are +-1, and the cache stores K in its own type (float32 when the pool cannot hold
K in float64) before the sign is applied, where the old layout stored +-K in that type.
"""

from collections import namedtuple

import numpy as np
from numba.extending import overload

from ..jit import OVERLOAD_OPTIONS, inner, njit
from ..kernel_rows import diagonal as kernel_diagonal
from ..kernel_rows import sample
from .kernel_cache import (EVALUATIONS, GENERATION, HITS, LENGTH, MISSES, PLACES, SLOTS, Cache,
                           fit_to_active, full_view, get_column, get_full_column, new_book, new_generation,
                           place, slot_view)

QMatrix = namedtuple("QMatrix", "cache kr s")
QMatrix.__doc__ = """Q_jk = s_j s_k K(x_(j mod n), x_(k mod n)): the cache, the kernel rows, the signs s."""

RegressionQ = namedtuple("RegressionQ", "cache kr s kernel ones sorder mark book")
RegressionQ.__doc__ = """Q of epsilon-SVR's 2n-variable dual from a cache of n-length kernel columns.

cache: what the solver sees, a :data:`~svmlab.solvers.kernel_cache.Cache` whose pool is the two
2n-buffers (pos[k] = k, slot length 2n, its generation bumped by the solver's shrinking) and whose
``full`` receives full columns; its hits, misses and kernel evaluations mirror the kernel cache's
(a column served from a buffer counts as a hit). kr, s: as :data:`QMatrix`. kernel: the LRU cache
of kernel columns K(., x_t) (signs ``ones``), its active samples ``sorder[:book[N_ACTIVE]]``;
mark: a stamp per sample; book: int64 bookkeeping (see the ``SYNC_GEN ...`` indices)."""

# the entries of RegressionQ.book
SYNC_GEN, SYNC_ACTIVE, N_ACTIVE, LAST, STAMP, BUFFER_HITS, COL, COVER, GEN = range(9)  # COL, COVER, GEN: 2 each
BOOK = 12


def classification(cache, kr, y):
    """Q of the classification dual: Q_jk = y_j y_k K(x_j, x_k)."""
    return QMatrix(cache, kr, y)


def regression_signs(n):
    """The signs of epsilon-SVR's 2n variables (alpha, then alpha^*)."""
    return np.concatenate([np.ones(n), -np.ones(n)])


def regression(cache, kr):
    """Q of epsilon-SVR's 2n-variable dual (signs +1 for alpha, -1 for alpha^*) on ``cache``, a
    kernel cache for columns of length n (``kernel_cache.opened(n, cache_size)``)."""
    n = kr.sqnorm.shape[0]
    if cache.full.shape[0] != n:
        raise ValueError(f"the regression Q-matrix caches kernel columns of length n = {n}; "
                         f"got a cache for length {cache.full.shape[0]}")
    m = 2 * n
    state = np.zeros(cache.state.shape[0], dtype=np.int64)
    state[LENGTH] = m
    state[SLOTS] = m  # kernel_cache.should_fit is never true (and pos None): the solver's fit_to_active does nothing
    # its book is only the solver's scratch of m entries (book[PLACES], smo._shrink): the view has no LRU
    view = Cache(np.zeros(2 * m, dtype=cache.pool.dtype), None, new_book(m), state, np.empty(0),
                 np.empty(m, dtype=cache.pool.dtype))
    book = np.zeros(BOOK, dtype=np.int64)
    book[SYNC_ACTIVE], book[N_ACTIVE] = m, n
    book[COL:COL + 2] = -1
    book[GEN:GEN + 2] = -1
    return RegressionQ(view, kr, regression_signs(n), cache, np.ones(n), np.arange(n),
                       np.zeros(n, dtype=np.int64), book)


@njit(cache=True, inline="always")
def q_column(Q, j, order, active_size, work):
    """Column j of Q, valid on ``order[:active_size]``; entry k is at ``place(Q.cache.pos, k)``."""
    return slot_view(Q.cache, _column(Q, j, order, active_size, work, False))


@njit(cache=True, inline="always")
def q_full_column(Q, j, order, work):
    """All of column j of Q, indexed by variable."""
    return full_view(Q.cache, _column(Q, j, order, order.shape[0], work, True))


def diagonal(Q):
    """Q_jj = K(x, x) for the sample x of each variable j (s_j^2 = 1), in NumPy
    (:func:`svmlab.kernel_rows.diagonal`; a solver's state takes it when it is made)."""
    d = kernel_diagonal(Q.kr)
    return np.tile(d, Q.s.shape[0] // d.shape[0])  # epsilon-SVR: variables j and j + n share x_j


def _column(Q, j, order, active_size, work, full):
    raise NotImplementedError  # pragma: no cover - replaced by the overload in numba


@overload(_column, jit_options=OVERLOAD_OPTIONS)
def _column_overload(Q, j, order, active_size, work, full):
    """Both kinds of column in one compiled function for each kind of Q (a function of its own
    costs a module, with the kernel cache's code compiled again in it): ``full``, all of column j
    (:func:`q_full_column`), else column j on ``order[:active_size]`` (:func:`q_column`); returns
    the column's start in the pool (or -1 for ``Q.cache.full``), as the kernel cache does."""
    if getattr(Q, "instance_class", None) is RegressionQ:
        def regression(Q, j, order, active_size, work, full):
            if full:
                return _regression_full_column(Q, j, work)
            return _regression_column(Q, j, order, active_size, work)
        return regression

    def classification(Q, j, order, active_size, work, full):
        if full:
            return get_full_column(Q.cache, Q.kr, Q.s, j, order, work)
        return get_column(Q.cache, Q.kr, Q.s, j, order, active_size, work)
    return classification


# -- epsilon-SVR: 2n-columns from n-length kernel columns ------------------------------------
@inner
def _sync(Q, order, active_size):
    """Make the kernel cache's active samples those with a variable in ``order[:active_size]``.

    A new generation of the solver (it is about to permute all of ``order``) starts one in the
    kernel cache too, with the samples in ascending order. Within a generation the active set
    only shrinks (or comes back whole), so every marked sample lies in the old active prefix and
    the stable partition below permutes only inside it."""
    view, book, sorder, mark = Q.cache, Q.book, Q.sorder, Q.mark
    n = sorder.shape[0]
    gen = view.state[GENERATION]
    if gen != book[SYNC_GEN]:
        new_generation(Q.kernel)
        for t in range(n):
            sorder[t] = t
        book[SYNC_GEN] = gen
    stamp = book[STAMP] + 1
    book[STAMP] = stamp
    for t in range(active_size):
        mark[sample(order[t], n)] = stamp
    kept = np.int64(0)  # not 0: a literal counter passed on compiles the callee twice
    rest = Q.kernel.book[PLACES]  # the kernel cache's scratch, free until fit_to_active below
    n_rest = 0
    for t in range(n):
        k = sorder[t]
        if mark[k] == stamp:
            sorder[kept] = k
            kept += 1
        else:
            rest[n_rest] = k
            n_rest += 1
    for r in range(n_rest):  # element loops: a slice assignment compiles its shape check's message
        sorder[kept + r] = rest[r]
    fit_to_active(Q.kernel, sorder, kept)
    book[N_ACTIVE] = kept
    book[SYNC_ACTIVE] = active_size


@njit(cache=True, inline="always")
def _mirror(Q):
    """The solver's view counts what the kernel cache counts (and the buffer hits)."""
    Q.cache.state[HITS] = Q.kernel.state[HITS] + Q.book[BUFFER_HITS]
    Q.cache.state[MISSES] = Q.kernel.state[MISSES]
    Q.cache.state[EVALUATIONS] = Q.kernel.state[EVALUATIONS]


@inner
def _expand(buf, col, pos, order, active_size, sj, n):
    """buf[k] = s_k s_j K(x_(k mod n), x_(j mod n)) for k in order[:active_size], K(., x_j) = col
    (entry t at pos[t], or t when pos is None)."""
    for t in range(active_size):
        k = order[t]
        if k < n:
            buf[k] = col[place(pos, k)] * sj
        else:
            buf[k] = col[place(pos, k - n)] * -sj


@inner
def _regression_column(Q, j, order, active_size, work):
    view, book = Q.cache, Q.book
    m = Q.s.shape[0]
    n = m // 2
    gen = view.state[GENERATION]
    if gen != book[SYNC_GEN] or active_size != book[SYNC_ACTIVE]:
        _sync(Q, order, active_size)
    for b in range(2):
        if book[COL + b] == j and book[GEN + b] == gen and book[COVER + b] >= active_size:
            book[LAST] = b
            book[BUFFER_HITS] += 1
            view.state[HITS] += 1
            return b * m
    b = 1 - book[LAST]
    col = slot_view(Q.kernel, get_column(Q.kernel, Q.kr, Q.ones, sample(j, n), Q.sorder, book[N_ACTIVE], work))
    buf = slot_view(view, b * m)  # the view's slots have length m
    if Q.kernel.state[LENGTH] == n:  # full-length kernel slots: no pos lookups
        _expand(buf, col, None, order, active_size, Q.s[j], n)
    else:
        _expand(buf, col, Q.kernel.pos, order, active_size, Q.s[j], n)
    book[COL + b], book[GEN + b], book[COVER + b], book[LAST] = j, gen, active_size, b
    _mirror(Q)
    return b * m


@inner
def _regression_full_column(Q, j, work):
    n = Q.sorder.shape[0]
    col = full_view(Q.kernel, get_full_column(Q.kernel, Q.kr, Q.ones, sample(j, n), Q.sorder, work))
    full, sj = Q.cache.full, Q.s[j]
    for k in range(n):
        full[k] = col[k] * sj
        full[k + n] = col[k] * -sj
    _mirror(Q)
    return -1
