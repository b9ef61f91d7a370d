"""A least-recently-used cache of kernel columns Q_:j = y y_j K(., x_j) (book chapter 5).

SMO and kernel DCD need one or two columns of the n x n matrix Q per update; computing a
column costs n kernel evaluations, storing all of Q costs 8 n^2 bytes. As LIBSVM, we keep
the columns used most recently in a pool of fixed size (``cache_size`` MB) and evict the
least recently used one when a new column needs room. Epsilon-SVR's 2n-variable Q-matrix keeps
plain kernel columns K(., x_t) here (y = 1), one per sample, and applies its signs itself
(:data:`svmlab.solvers.qmatrix.RegressionQ`, as LIBSVM's ``SVR_Q``).

Shrinking makes the solver look at an active subset of the samples only: the active samples
are ``order[:active_size]``. A column is computed on the active entries alone and extended
when more entries are asked for, so each slot records its *coverage* c (the entries
``order[:c]`` are valid; c = n for a full column). The solvers permute ``order`` only inside
the active prefix, and the active set only shrinks until the gradient is rebuilt, after which
it is everything again; so coverages stay valid until the next shrinking that starts from the
whole set, which calls :func:`new_generation` and marks the partial columns stale.

Columns hold only the samples that can still be asked for. Entry k of a column is at
``pos[k]`` in its slot; at first every sample has a place (pos[k] = k, slots of length n).
When the pool holds all of Q (every column in float64, :func:`layout`) no slot is ever evicted
or shortened, so entry k stays at k: such a cache has ``pos`` None, and the solvers compiled for
it hold no code to shorten slots and no lookup of places (:func:`place`; SMO reads the places of its
active set once per shrinking, ``smo.Packed``); it is the cache of every problem of up to about 5000
samples at the default 200 MB.
When shrinking has cut the active set to 3/4 of the slot length, :func:`fit_to_active` lays
the pool out again with slots of the active set's length, keeping the cached entries, so the
same megabytes hold more columns (as LIBSVM's columns of the active length do). A full column
(the gradient rebuilds ask for every sample) is then assembled in a separate vector, its
entries outside the active set computed afresh; the next generation gives every sample its
place back.

A solver opens its cache with :func:`opened`, which reuses the pool of the previous run: a
fresh array of ``cache_size`` MB would pay a page fault for every page touched, on every fit.
So the process keeps one pool (of at most ``cache_size`` MB) between fits, as the C allocator
keeps LIBSVM's freed columns.

All state is in plain arrays (a :data:`Cache` named tuple), so the numba solvers carry it.
"""

from collections import namedtuple
from contextlib import contextmanager

import numpy as np
from numba import prange

from ..jit import REFCOUNTS, inner, njit
from ..kernel_rows import KernelRows, column, column_part, thread_part
from ..threads import worth_splitting

MB = 2 ** 20
HITS, MISSES, USED, GENERATION, EVALUATIONS, LENGTH, SLOTS = range(7)
SHRUNK_ENOUGH = 0.75  # fit_to_active lays the pool out again below this fraction of the slot length

SLOT_OF, COL_OF, COVER, GEN, PREV, NEXT, PLACES = range(7)  # the rows of Cache.book

Cache = namedtuple("Cache", "pool pos book state scratch full")
Cache.__doc__ = """The column pool and its bookkeeping.

pool: the columns, slot s at pool[s L : (s + 1) L] with L = state[LENGTH], float64 or float32
(see :func:`layout`); pos[k]: the place of sample k in every column, or -1 (None when the
pool holds all of Q in float64: entry k is then at k, :func:`place`); book: int64, 7 rows
of n + 1 entries: book[SLOT_OF, j] the slot of column j or -1, book[COL_OF, s] the column in slot
s, book[COVER, s] its coverage, book[GEN, s] the generation it was computed in, book[PREV] and
book[NEXT] the LRU list over slots, a ring through the sentinel n (book[NEXT, n] is the most
recently used), and book[PLACES] scratch for :func:`fit_to_active` (and before it for the
solver's shrinking, ``smo._shrink``); state: int64 [hits, misses, slots in use, generation,
kernel evaluations, slot length L, slots the pool holds]; scratch: a float64 column, where
kernel values are computed before they are stored; full: a column of the pool's type indexed by
sample, where full columns are assembled from shortened slots.

The bookkeeping is one array, not seven: every compiled function that takes the cache takes
each of its arrays apart (seven more arrays made SMO's first fit compile 0.4 s longer)."""


def layout(cache_size, n):
    """(columns, dtype) for ``cache_size`` MB at full length n: all n columns in float64 when
    they fit (exact arithmetic), else as many float32 columns as fit, at least 2 (LIBSVM
    stores Q in single precision, which doubles the columns a megabyte holds)."""
    if cache_size * MB >= 8 * n * n:
        return n, np.float64
    return int(max(2, min(n, cache_size * MB // (4 * n)))), np.float32


_SPARE = []  # at most one pool, left by the last run for the next


def new_cache(n, cache_size, pool=None):
    """An empty cache of ``cache_size`` MB for columns of length ``n``, on ``pool`` if that has
    the dtype of :func:`layout` and one to two times the entries needed (its contents are
    never read), else on a new array."""
    slots, dtype = layout(cache_size, n)
    entries = min(n * n, max(slots * n, int(cache_size * MB) // np.dtype(dtype).itemsize))
    if pool is None or pool.dtype != dtype or not entries <= pool.shape[0] <= 2 * entries:
        pool = np.empty(entries, dtype=dtype)
    pos = None if dtype == np.float64 else np.arange(n)  # all of Q: entry k at k, always
    c = Cache(pool[:entries], pos, new_book(n), np.zeros(7, dtype=np.int64), np.empty(n),
              np.empty(n, dtype=dtype))
    c.state[LENGTH] = n
    c.state[SLOTS] = slots
    return c


def new_book(n):
    """Cache.book for n columns: no column in a slot, every slot empty, the LRU ring empty."""
    book = np.zeros((PLACES + 1, n + 1), dtype=np.int64)
    book[[SLOT_OF, COL_OF]] = -1
    book[[PREV, NEXT]] = n
    return book


@contextmanager
def opened(n, cache_size):
    """:func:`new_cache` for one run, on the pool the previous run left (if it fits); the pool
    is left for the next run at the end. A new array of ``cache_size`` MB costs a page fault
    for every page the run touches, on every fit (about 0.2 s for 200 MB on the benchmark
    machine); the C allocator keeps LIBSVM's freed columns for its next fit likewise. A run
    that starts while another holds the pool makes its own."""
    c = new_cache(n, cache_size, _SPARE.pop() if _SPARE else None)
    try:
        yield c
    finally:
        _SPARE[:] = [c.pool.base]  # the whole array, of which the pool is a view


@inner
def place(pos, index):
    """Where entry ``index`` of a column is: ``pos[index]``, or ``index`` when ``pos`` is None (a
    cache that holds all of Q, or a caller that knows the slots have full length: no lookup).

    A compiled function of its own (numba drops the branch that pos None rules out), which LLVM
    inlines into the loops that call it. Not an inlined overload: numba's inlining of one into
    SMO's loop gave a variable of the loop another's value (numba issue #7225, names of inlined
    variables that are not unique), and SMO went round in circles."""
    if pos is None:
        return index
    return pos[index]


@njit(cache=True, inline="always")
def _unlink(c, s):
    prev, nxt = c.book[PREV], c.book[NEXT]
    nxt[prev[s]] = nxt[s]
    prev[nxt[s]] = prev[s]


@njit(cache=True, inline="always")
def _push_front(c, s):
    prev, nxt = c.book[PREV], c.book[NEXT]
    head = prev.shape[0] - 1
    nxt[s] = nxt[head]
    prev[s] = head
    prev[nxt[head]] = s
    nxt[head] = s


@njit(cache=True, inline="always")
def _slot_for(c, j):
    """A slot for column j: a fresh one while the pool has room, else the LRU one."""
    used = c.state[USED]
    if used < c.state[SLOTS]:
        s = used
        c.state[USED] = used + 1
    else:
        s = c.book[PREV, c.book.shape[1] - 1]
        _unlink(c, s)
        c.book[SLOT_OF, c.book[COL_OF, s]] = -1
    c.book[COL_OF, s] = j
    c.book[SLOT_OF, j] = s
    _push_front(c, s)
    return s


@njit(cache=True, inline="always")
def _start(c, s):
    """Where slot s starts in the pool (its column is :func:`slot_view` of that)."""
    return s * c.state[LENGTH]


@njit(cache=True, inline="always")
def _fill(c, col, kr, y, j, order, start, stop, work):
    """Entries order[start:stop] of column j of Q into its slot ``col``, on this thread: the kernel
    values in float64 (in ``c.scratch``), then stored in the pool's type with their signs."""
    column_part(kr, j, order, start, stop, work, c.scratch)
    _store(c, col, y, j, order, start, stop)


@inner(parallel=True, **REFCOUNTS)
def _split_fill(c, col, kr, X, y, j, order, start, stop, work):
    """:func:`_fill` in kr.threads parts (as :func:`svmlab.kernel_rows.column` cuts a column),
    each computed and stored by its own thread; X is kr.X (see ``kernel_rows._split_column``)."""
    code, gamma, degree, coef0, sqnorm, threads, min_split = kr[1:]
    for p in prange(threads):
        part_kr = KernelRows(X, code, gamma, degree, coef0, sqnorm, threads, min_split)
        lo, hi = thread_part(part_kr, j, order, start, stop, work, p, c.scratch)
        _store(c, col, y, j, order, lo, hi)


@njit(cache=True, inline="always")
def _store(c, col, y, j, order, start, stop):
    """col[pos[k]] = y_k y_j K_kj for k = order[t], t in [start, stop), from c.scratch[t]."""
    for t in range(start, stop):
        k = order[t]
        col[place(c.pos, k)] = c.scratch[t] * y[k] * y[j]


@inner
def _get(c, kr, threads, y, j, order, need, work):
    """The start in the pool of column j's slot, valid on order[:need] (need <= the slot length);
    its missing entries computed by ``threads`` threads (kr.threads: compiled for None without
    parallel code)."""
    cover, gen = c.book[COVER], c.book[GEN]
    s = c.book[SLOT_OF, j]
    n = order.shape[0]
    if s >= 0:
        _unlink(c, s)
        _push_front(c, s)
        if cover[s] == n or (gen[s] == c.state[GENERATION] and cover[s] >= need):
            c.state[HITS] += 1
            return _start(c, s)
        start = cover[s] if gen[s] == c.state[GENERATION] else 0
    else:
        s = _slot_for(c, j)
        start = 0
    c.state[MISSES] += 1
    col = slot_view(c, _start(c, s))
    if threads is not None and worth_splitting(need - start, threads, kr.min_split):
        _split_fill(c, col, kr, kr.X, y, j, order, start, need, work)
    else:
        _fill(c, col, kr, y, j, order, start, need, work)
    c.state[EVALUATIONS] += need - start
    cover[s] = need
    gen[s] = c.state[GENERATION]
    return _start(c, s)


@njit(cache=True, inline="always")
def get_column(c, kr, y, j, order, active_size, work):
    """Column j of Q, valid on ``order[:active_size]``, as its start in the pool
    (:func:`slot_view`); entry k is at ``place(c.pos, k)``."""
    if active_size > c.state[LENGTH]:  # every sample is back (the final check): full-length slots
        _full_length(c, c.pos)
    return _get(c, kr, kr.threads, y, j, order, active_size, work)


@njit(cache=True, inline="always")
def get_full_column(c, kr, y, j, order, work):
    """All of column j of Q, indexed by sample, as :func:`full_view` reads it: the slot itself at
    full length (its start in the pool), else ``c.full`` (-1; overwritten by the next call) from the
    slot and the samples outside it (:func:`_assembled`)."""
    start = _get(c, kr, kr.threads, y, j, order, c.state[LENGTH], work)
    return _assembled(c, c.pos, kr, y, j, order, start, work)


@inner
def _assembled(c, pos, kr, y, j, order, start, work):
    """The full column j from its slot at ``start`` (:func:`get_full_column`); ``pos`` is c.pos
    (None: a cache that holds all of Q, whose slots always have full length, compiles no body)."""
    L, n = c.state[LENGTH], order.shape[0]
    if pos is None or L == n:  # pos[k] = k
        return start
    col = slot_view(c, start)
    for t in range(L):
        k = order[t]
        c.full[k] = col[pos[k]]
    column(kr, j, order, L, n, work, c.scratch)  # stored in the pool's type: rounded as the pool rounds
    for t in range(L, n):
        k = order[t]
        c.full[k] = c.scratch[t] * y[k] * y[j]
    c.state[EVALUATIONS] += n - L
    return -1


@njit(cache=True, inline="always")
def slot_view(c, start):
    """The column at ``start`` in the pool (:func:`get_column`). The compiled functions of the cache
    and of the Q-matrix return starts, not views: the solvers compile without numba's reference
    counting (see :mod:`svmlab.jit`), where a compiled function may not return a new array."""
    return c.pool[start:start + c.state[LENGTH]]


@njit(cache=True, inline="always")
def full_view(c, start):
    """The full column that :func:`get_full_column` returned as ``start``: a slot of full length,
    or ``c.full`` (start -1)."""
    if start < 0:
        return c.full
    return c.pool[start:start + c.full.shape[0]]


@njit(cache=True, inline="always")
def should_fit(c, active_size):
    """Whether :func:`fit_to_active` would shorten the slots: the active set has fallen below
    SHRUNK_ENOUGH of their length, and the pool holds fewer columns than half of it (when it
    holds more, shorter slots would cost the full columns more than they save)."""
    return SHRUNK_ENOUGH * c.state[LENGTH] > active_size > 2 * c.state[SLOTS]


@njit(cache=True, inline="always")
def fit_to_active(c, order, active_size):
    """Shorten the slots to the active set ``order[:active_size]`` if :func:`should_fit` (never
    for a cache that holds all of Q, whose ``pos`` is None: :func:`_shorten` is compiled for it
    without a body)."""
    if should_fit(c, active_size):
        _shorten(c, c.pos, order, active_size)


@inner
def _shorten(c, pos, order, active_size):
    """:func:`fit_to_active`'s work; ``pos`` is c.pos. The active samples keep the relative order
    of their places, so each entry moves to the same or an earlier place of the pool and one
    forward sweep copies the pool in place. Columns keep their coverage (cut to the new length):
    order[:active_size] is unchanged."""
    if pos is None:
        return
    n, L, used = order.shape[0], c.state[LENGTH], c.state[USED]
    # the sample at each place, or -1 where it is not active (in book[PLACES]: an array made here
    # would compile numba's allocator into the kernel)
    old, cover, gen = c.book[PLACES], c.book[COVER], c.book[GEN]
    for t in range(L):
        old[pos[order[t]]] = -1
    for t in range(active_size):
        old[pos[order[t]]] = order[t]
    for t in range(L):
        pos[order[t]] = -1
    # the new places: r-th active place in ascending order (no sort to compile); old[r] is then
    # its old place, written over entries already read
    r = 0
    for at in range(L):
        k = old[at]
        if k >= 0:
            pos[k] = r
            old[r] = at
            r += 1
    for s in range(used):
        for r in range(active_size):
            c.pool[s * active_size + r] = c.pool[s * L + old[r]]
        if cover[s] != n and gen[s] != c.state[GENERATION]:
            cover[s] = 0  # stale: recomputed from scratch when asked for
        cover[s] = min(cover[s], active_size)
        gen[s] = c.state[GENERATION]
    c.state[LENGTH] = active_size
    c.state[SLOTS] = min(n, c.pool.shape[0] // active_size)


@inner
def _full_length(c, pos):
    """Give every sample its place again (slots of length n), emptying the pool; ``pos`` is c.pos
    (None: a cache that holds all of Q, whose slots always have full length, compiles no body)."""
    if pos is None:
        return
    n = pos.shape[0]
    for k in range(n):
        pos[k] = k
        c.book[SLOT_OF, k] = -1
    for s in range(n + 1):
        c.book[PREV, s] = c.book[NEXT, s] = n
    c.state[USED] = 0
    c.state[LENGTH] = n
    c.state[SLOTS] = min(n, c.pool.shape[0] // n)


@njit(cache=True, inline="always")
def new_generation(c):
    """``order`` is about to be permuted over all entries: partial columns become stale, and
    shortened slots get their full length back."""
    c.state[GENERATION] += 1
    if c.state[LENGTH] < c.full.shape[0]:
        _full_length(c, c.pos)
