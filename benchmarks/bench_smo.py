"""SMO against LIBSVM (scikit-learn's SVC): fit time, support vectors, cache size, selection rules.

Run from the repository root with ``python -m benchmarks.bench_smo [--quick]``. Every time is
the median of several fits in this process, and each ratio divides by SVC's median measured here, on the same
data, with the same C, gamma, tol, cache_size and shrinking. Prints Markdown tables and writes
them to ``benchmarks/results/smo.md``; ``--quick`` (small sizes, one fit each) takes under a minute.
"""

import argparse
import statistics

import numpy as np
from sklearn.datasets import make_classification
from sklearn.svm import SVC
from tqdm import tqdm

import svmlab
from svmlab.kernels import make_kernel
from svmlab.solvers import KernelProblem, smo
from svmlab.solvers.coordinate import Stop
from svmlab.solvers.kernel_cache import layout
from svmlab.trace import Recorder

from benchmarks.report import write_markdown
from benchmarks.timing import median_time, round_ratios, rounds


def standardized_data(n, d=20, seed=0):
    X, y = make_classification(n_samples=n, n_features=d, random_state=seed)
    return (X - X.mean(axis=0)) / X.std(axis=0), np.where(y > 0, 1.0, -1.0)


def against_svc(sizes, Cs, repeats):
    """svmlab on one thread and on every core (n_jobs=-1) against SVC, the three fits taken in turn
    (a round); the ratios are of the median times, and beside them the least and the most of the
    rounds' own ratios, which show how far the machine moved them. The last column says whether
    one and all threads gave the same alpha bit for bit."""
    rows = []
    for n, C in tqdm([(n, C) for n in sizes for C in Cs], desc="against SVC", unit="case"):
        X, y = standardized_data(n)
        reps = repeats if n <= 10_000 else max(1, repeats - 1)
        params = dict(C=C, tol=1e-3, cache_size=200, shrinking=True)
        gamma = make_kernel("rbf", X).gamma
        (ones, alls, svcs), (one, every, svc) = rounds(
            [lambda: svmlab.KernelSVM(**params).fit(X, y), lambda: svmlab.KernelSVM(n_jobs=-1, **params).fit(X, y),
             lambda: SVC(gamma=gamma, **params).fit(X, y)], reps)
        t_one, t_all, t_svc = (statistics.median(t) for t in (ones, alls, svcs))
        n_lab, n_svc = len(every.support_), len(svc.support_)
        updates = _updates(X, y, C, 1e-3, 200, "second_order")
        rows.append([f"{n} x {X.shape[1]}", f"{C:g}", f"{t_one:.3f}", f"{t_all:.3f}", f"{t_svc:.3f}",
                     f"{t_one / t_svc:.2f}", f"**{t_all / t_svc:.2f}**", round_ratios(alls, svcs), n_lab, n_svc,
                     f"{100 * abs(n_lab - n_svc) / n_svc:.2f}", f"{updates} / {int(svc.n_iter_[0])}",
                     "yes" if np.array_equal(one.alpha_, every.alpha_) else "NO"])
    header = ["n x d", "C", "svmlab 1 thread s", f"svmlab {_cores()} threads s", "SVC s", "ratio 1 thread",
              "ratio all threads", "all threads / SVC in each round", "SVs svmlab", "SVs SVC", "SV diff %", "iterations svmlab / SVC",
              "same alpha for 1 and all threads"]
    return ("RBF kernel, gamma = 'scale', tol 1e-3, cache 200 MB, shrinking; the fits taken in turn; SVC uses one "
            "thread", header, rows)


def _cores():
    from numba import config
    return config.NUMBA_NUM_THREADS


def _run(X, y, C, tol, cache_size, selection, shrinking=True):
    """smo.run on the hinge with a free bias: (SolverResult, SMOInfo)."""
    problem = KernelProblem(X, make_kernel("rbf", X), y, np.full(len(y), C), 0, True)
    buf = Recorder(0, 1000, len(y), 0).buffers
    return smo.run(problem, Stop(tol, 1000), buf, np.random.default_rng(0), shrinking=shrinking, selection=selection,
                   cache_size=cache_size)


def _updates(X, y, C, tol, cache_size, selection):
    return _run(X, y, C, tol, cache_size, selection)[1].updates


def cache_sweep(n, C, sizes, repeats):
    X, y = standardized_data(n)
    gamma = make_kernel("rbf", X).gamma
    rows = []
    for size, shrinking in tqdm([(s, h) for s in sizes for h in (True, False)], desc="cache sizes", unit="case"):
        t, (_, info) = median_time(lambda: _run(X, y, C, 1e-3, size, "second_order", shrinking), repeats)
        t_svc, _ = median_time(lambda: SVC(C=C, gamma=gamma, tol=1e-3, cache_size=size,
                                           shrinking=shrinking).fit(X, y), repeats, warm_up=False)
        slots, dtype = layout(size, n)
        rows.append([f"{size:g}", f"{slots} ({np.dtype(dtype).name})", shrinking, f"{t:.3f}",
                     f"{info.kernel_evaluations:,}", f"{info.cache_hits:,}", f"{info.cache_misses:,}", f"{t_svc:.3f}"])
    header = ["cache MB", "columns held (dtype)", "shrinking", "svmlab s", "kernel evaluations", "hits", "misses",
              "SVC s"]
    return f"Fit time against cache size (RBF, {n} x 20, C = {C:g}, tol 1e-3)", header, rows


def selection_rules(n, C, repeats):
    X, y = standardized_data(n)
    rows = []
    for rule in tqdm(smo.SELECTIONS, desc="selection rules", unit="rule"):
        t, (_, info) = median_time(lambda: _run(X, y, C, 1e-3, 200, rule), repeats, warm_up=False)
        rows.append([rule, f"{info.updates:,}", f"{info.kernel_evaluations:,}", f"{t:.3f}"])
    return (f"Selection rules (RBF, {n} x 20, C = {C:g}, tol 1e-3)",
            ["selection", "updates", "kernel evaluations", "time s"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat (a smoke test)")
    args = parser.parse_args()
    X, y = standardized_data(300)
    svmlab.KernelSVM().fit(X, y)  # compile (or load the numba cache) before timing
    svmlab.KernelSVM(n_jobs=-1).fit(X, y)
    if args.quick:
        sections = [against_svc([2000], [1.0, 10.0], 1), cache_sweep(2000, 1.0, [1, 200], 1),
                    selection_rules(1000, 1.0, 1)]
    else:  # median of 5 fits (4 for 20,000)
        sections = [against_svc([10_000, 20_000], [1.0, 10.0], 5), cache_sweep(10_000, 1.0, [1, 10, 50, 200, 1000], 3),
                    selection_rules(5_000, 1.0, 3)]
    write_markdown("smo", __doc__.splitlines()[0], sections)


if __name__ == "__main__":
    main()
