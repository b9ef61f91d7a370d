"""A least-recently-used cache of kernel columns Q_:j = y y_j K(., x_j) (book chapter 5).

SMO and kernel DCD need one or two columns of the n x n matrix Q per update; computing a
column costs n kernel evaluations, storing all of Q costs 8 n^2 bytes. As LIBSVM, we keep
the columns used most recently in a pool of fixed size (``cache_size`` MB) and evict the
least recently used one when a new column needs room.

Shrinking makes the solver look at an active subset of the samples only: the active samples
are ``order[:active_size]``. A column is computed on the active entries alone and extended
when more entries are asked for, so each slot records its *coverage* c (the entries
``order[:c]`` are valid; c = n for a full column). The solvers permute ``order`` only inside
the active prefix, and the active set only shrinks until the gradient is rebuilt, after which
it is everything again; so coverages stay valid until the next shrinking that starts from the
whole set, which calls :func:`new_generation` and marks the partial columns stale.

All state is in plain arrays (a :data:`Cache` named tuple), so the numba solvers carry it.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ..kernel_rows import column

MB = 2 ** 20
HITS, MISSES, USED, GENERATION, EVALUATIONS = range(5)

Cache = namedtuple("Cache", "data slot_of col_of cover gen prev next state scratch")
Cache.__doc__ = """The column pool and its bookkeeping.

data: (slots, n) columns, float64 or float32 (see :func:`layout`); slot_of[j]: slot of column j or -1; col_of[s]: column in
slot s; cover[s]: its coverage; gen[s]: the generation it was computed in; prev/next: the
LRU list over slots, a ring through the sentinel ``slots`` (next[sentinel] is the most
recently used); state: int64 [hits, misses, slots in use, generation, kernel evaluations];
scratch: a float64 column, where kernel values are computed before they are stored."""


def layout(cache_size, n):
    """(columns, dtype) for ``cache_size`` MB: all n columns in float64 when they fit (exact
    arithmetic), else as many float32 columns as fit, at least 2 (LIBSVM stores Q in single
    precision, which doubles the columns a megabyte holds)."""
    if cache_size * MB >= 8 * n * n:
        return n, np.float64
    return int(max(2, min(n, cache_size * MB // (4 * n)))), np.float32


def new_cache(n, cache_size):
    """An empty cache of ``cache_size`` MB for columns of length ``n``."""
    slots, dtype = layout(cache_size, n)
    ring = np.full(slots + 1, slots, dtype=np.int64)
    return Cache(np.empty((slots, n), dtype=dtype), np.full(n, -1, dtype=np.int64), np.full(slots, -1, dtype=np.int64),
                 np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.int64), ring, ring.copy(),
                 np.zeros(5, dtype=np.int64), np.empty(n))


@njit(cache=True, inline="always")
def _unlink(c, s):
    c.next[c.prev[s]] = c.next[s]
    c.prev[c.next[s]] = c.prev[s]


@njit(cache=True, inline="always")
def _push_front(c, s):
    head = c.prev.shape[0] - 1
    c.next[s] = c.next[head]
    c.prev[s] = head
    c.prev[c.next[head]] = s
    c.next[head] = s


@njit(cache=True, inline="always")
def _slot_for(c, j):
    """A slot for column j: a fresh one while the pool has room, else the LRU one."""
    used = c.state[USED]
    if used < c.data.shape[0]:
        s = used
        c.state[USED] = used + 1
    else:
        s = c.prev[c.prev.shape[0] - 1]
        _unlink(c, s)
        c.slot_of[c.col_of[s]] = -1
    c.col_of[s] = j
    c.slot_of[j] = s
    _push_front(c, s)
    return s


@njit(cache=True)
def _fill(c, s, kr, y, j, order, start, stop, work):
    column(kr, j, order, start, stop, work, c.scratch)  # in float64 whatever the pool's dtype
    col = c.data[s]
    for t in range(start, stop):
        k = order[t]
        col[k] = c.scratch[k] * y[k] * y[j]
    c.state[EVALUATIONS] += stop - start


@njit(cache=True)
def get_column(c, kr, y, j, order, active_size, full, work):
    """Column j of Q, valid on ``order[:active_size]`` (on all entries if ``full``)."""
    n = order.shape[0]
    need = n if full else active_size
    s = c.slot_of[j]
    if s >= 0:
        _unlink(c, s)
        _push_front(c, s)
        if c.cover[s] == n or (c.gen[s] == c.state[GENERATION] and c.cover[s] >= need):
            c.state[HITS] += 1
            return c.data[s]
        start = c.cover[s] if c.gen[s] == c.state[GENERATION] else 0
    else:
        s = _slot_for(c, j)
        start = 0
    c.state[MISSES] += 1
    _fill(c, s, kr, y, j, order, start, need, work)
    c.cover[s] = need
    c.gen[s] = c.state[GENERATION]
    return c.data[s]


@njit(cache=True, inline="always")
def new_generation(c):
    """``order`` is about to be permuted over all entries: partial columns become stale."""
    c.state[GENERATION] += 1
