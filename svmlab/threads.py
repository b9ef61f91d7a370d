"""When a loop is worth splitting over threads, measured on this machine (``n_jobs``).

A parallel region (numba's ``prange``) costs a start-up: the threads wake, take their parts and
join. A loop cut into T parts pays only when each part outweighs it, and both costs differ from
machine to machine and from data to data, so neither is a constant here: :func:`min_part` times
the start-up and the loop's own cost per entry when a fit starts, and gives the fewest entries a
part must have. Splitting never changes a result: each entry is computed by the same operations
whichever thread computes it, and reductions are combined in the order of the parts.
"""

import math
import time

import numpy as np
from numba import prange

from .jit import njit

SPLIT_PAYS = 1  # a part outweighs the start-up (4 kept most loops whole: 1.36 s, not 1.23 s, at 10k x 20, C=10)


def min_part(per_entry, threads, repeats=5):
    """The fewest entries a part of a split loop must have, for a loop of ``per_entry`` seconds
    an entry: SPLIT_PAYS times the start-up of a region of ``threads`` parts, in entries."""
    out = np.zeros(threads)
    return int(math.ceil(SPLIT_PAYS * best_time(lambda: _region(out), repeats) / max(per_entry, 1e-12)))


def best_time(run, repeats=5):
    """The least of ``repeats`` timings of ``run()``, after one call that is not timed."""
    run()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


@njit(cache=True, parallel=True)
def _region(out):
    """A parallel region that does next to nothing: its time is the start-up."""
    for c in prange(out.shape[0]):
        out[c] += 1.0


@njit(cache=True, inline="always")
def worth_splitting(length, threads, smallest):
    """Whether a loop of ``length`` entries is cut into ``threads`` parts: when each part has at
    least ``smallest`` entries (:func:`min_part`)."""
    return length >= threads * smallest


@njit(cache=True, inline="always")
def part(start, stop, c, parts):
    """Part c of [start, stop) cut into ``parts`` contiguous parts: (its start, its stop)."""
    length = stop - start
    return start + length * c // parts, start + length * (c + 1) // parts
