"""One epoch of SDCA and of Pegasos against one epoch of scikit-learn's SGDClassifier.

Issue 5's target: on the dense 100,000 x 100 set (unit rows) and on the sparse text-like set,
one epoch of each of our solvers takes at most 1.0 x one epoch of
``SGDClassifier(loss="hinge", max_iter=1, tol=None)``, measured in the same process.

Each figure is the median of ``--repeats`` fits after one warm-up fit (which also compiles
the numba kernels). "fit" is ``LinearSVM(...).fit`` with ``max_iter=1`` (input validation,
the epoch, and for SDCA the duality-gap check that ends it: one more pass); "kernel" calls
the solver on already validated data. Run: ``python benchmarks/bench_stochastic.py``.
"""

import argparse
import statistics
import time
import warnings

import numpy as np
from sklearn.linear_model import SGDClassifier

from svmlab import ConvergenceWarning, LinearSVM, datasets
from svmlab.rows import as_rows
from svmlab.solvers import LINEAR, get
from svmlab.trace import Recorder
from svmlab.validation import check_array

C = 1.0


def median_time(fn, repeats):
    fn()  # warm-up (and numba compilation)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sgd_epoch(X, y):
    # alpha = lambda = 1/(n C): the same problem, scaled
    model = SGDClassifier(loss="hinge", alpha=1.0 / (X.shape[0] * C), max_iter=1, tol=None,
                          fit_intercept=False, random_state=0)
    return lambda: model.fit(X, y)


def fit_epoch(X, y, solver):
    model = LinearSVM(solver=solver, C=C, max_iter=1, tol=1e-12, fit_intercept=False, random_state=0)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
    return run


def kernel_epoch(X, y, solver):
    rows = as_rows(check_array(X))
    Ci = np.full(X.shape[0], C)
    solve, options = get(LINEAR, solver, LinearSVM().get_params())
    buf = Recorder(0, 1, X.shape[0], X.shape[1] + 1).buffers
    return lambda: solve(rows, y, Ci, 0, 0.0, 1e-12, 1, np.random.default_rng(0), buf, **options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    sets = {"dense 100,000 x 100": datasets.make_dense, "sparse text 100,000 x 50,000": datasets.make_sparse_text}
    print(f"median of {args.repeats} runs; ratio = ours / SGDClassifier epoch (target <= 1.0)")
    for name, make in sets.items():
        X, y = make()
        sgd = median_time(sgd_epoch(X, y), args.repeats)
        print(f"\n{name}: SGDClassifier one epoch {sgd * 1e3:.1f} ms")
        for solver in ("sdca", "pegasos"):
            for how, factory in (("fit", fit_epoch), ("kernel", kernel_epoch)):
                t = median_time(factory(X, y, solver), args.repeats)
                verdict = "met" if t <= sgd else "NOT met"
                print(f"  {solver:8s} {how:6s} {t * 1e3:7.1f} ms   ratio {t / sgd:4.2f}   target {verdict}")


if __name__ == "__main__":
    main()
