"""Timing helpers shared by the benchmark scripts (run them as ``python -m benchmarks.<name>``)."""

import statistics
import time
import warnings


def median_time(fn, repeat, warm_up=True):
    """Median wall time of ``repeat`` calls of ``fn`` (after one untimed call that absorbs
    numba's compilation), and the last call's result."""
    if warm_up:
        fn()
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def interleaved(fns, repeat, summary=statistics.median):
    """The ``summary`` (median, or e.g. ``min`` for the best) of the wall times and the last result
    of each function in ``fns``, the calls taken in turn (f1, f2, f1, f2, ...) so that a slow spell
    of the machine falls on all of them alike."""
    times, results = rounds(fns, repeat)
    return [(summary(t), r) for t, r in zip(times, results)]


def rounds(fns, repeat):
    """The wall times of ``repeat`` rounds, each calling every function in ``fns`` once in turn:
    a list of ``repeat`` times for each function (entry r from round r), and each one's last result.
    A ratio of two functions' times in one round compares them under the same spell of the machine."""
    times, results = [[] for _ in fns], [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            results[k] = fn()
            times[k].append(time.perf_counter() - start)
    return times, results


def round_ratios(times, reference):
    """The ratios times[r] / reference[r] of each round r (:func:`rounds`), as "least-most"."""
    ratios = [t / ref for t, ref in zip(times, reference)]
    return f"{min(ratios):.2f}-{max(ratios):.2f}"


def per_epoch(fit_for, repeat, base=1, extra=10):
    """Steady-state seconds an epoch: (time of base + extra epochs - time of base) / extra.

    ``fit_for(epochs)`` returns a function that runs a fit of exactly that many epochs; the
    difference removes what a fit pays once (validation, setup, a final check)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fixed number of epochs stops short of tol on purpose
        short, _ = median_time(fit_for(base), repeat)
        long, _ = median_time(fit_for(base + extra), repeat)
    return max(long - short, 0.0) / extra
