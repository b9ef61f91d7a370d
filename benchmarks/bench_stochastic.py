"""One epoch of SDCA and of Pegasos against one epoch of scikit-learn's SGDClassifier.

Issue 5's target: on the dense 100,000 x 100 set (unit rows) and on the sparse text-like set,
one epoch of each of our solvers takes at most 1.0 x one epoch of
``SGDClassifier(loss="hinge", tol=None)``, measured in the same process.

Three figures a solver, each a median of ``--repeat`` runs after a warm-up (which compiles
the numba kernels): "fit of one epoch" is ``LinearSVM(...).fit`` with ``max_iter=1`` (input
validation, setup, the epoch, and for SDCA the duality-gap check that ends it), against
SGDClassifier's fit with ``max_iter=1``; "solver alone" calls the solver on validated data;
"an epoch" is the steady-state cost, (fit of 11 epochs - fit of 1) / 10, for both sides
(``benchmarks.timing.per_epoch``), and the target is judged on it.
Run from the repository root: ``python -m benchmarks.bench_stochastic [--repeat 5]``.
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import SGDClassifier

from svmlab import ConvergenceWarning, LinearSVM, datasets
from svmlab.rows import as_rows
from svmlab.solvers import LINEAR, get
from svmlab.solvers.coordinate import Problem, Stop
from svmlab.trace import Recorder
from svmlab.validation import check_array

from benchmarks.timing import median_time, per_epoch

C = 1.0


def sgd_fit(X, y, epochs):
    # alpha = lambda = 1/(n C): the same problem, scaled
    model = SGDClassifier(loss="hinge", alpha=1.0 / (X.shape[0] * C), max_iter=epochs, tol=None,
                          fit_intercept=False, random_state=0)
    return lambda: model.fit(X, y)


def our_fit(X, y, solver, epochs):
    model = LinearSVM(solver=solver, C=C, max_iter=epochs, tol=1e-12, fit_intercept=False, random_state=0)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
    return run


def kernel_epoch(X, y, solver):
    rows = as_rows(check_array(X))
    Ci = np.full(X.shape[0], C)
    start, options = get(LINEAR, solver, LinearSVM().get_params())
    buf = Recorder(0, 1, X.shape[0], X.shape[1] + 1).buffers
    problem = Problem(rows, y, Ci, 0, 0.0)
    return lambda: start(problem, Stop(1e-12, 1), buf, np.random.default_rng(0), **options).advance(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    sets = {"dense 100,000 x 100": datasets.make_dense, "sparse text 100,000 x 50,000": datasets.make_sparse_text}
    print(f"medians of {repeat} runs; ratio = ours / SGDClassifier (target <= 1.0, judged on the epoch)")
    for name, make in sets.items():
        X, y = make()
        sgd_once, _ = median_time(sgd_fit(X, y, 1), repeat)
        sgd = per_epoch(lambda e: sgd_fit(X, y, e), repeat)
        print(f"\n{name}: SGDClassifier fit of one epoch {sgd_once * 1e3:.1f} ms, an epoch {sgd * 1e3:.1f} ms")
        for solver in ("sdca", "pegasos"):
            once, _ = median_time(our_fit(X, y, solver, 1), repeat)
            kernel, _ = median_time(kernel_epoch(X, y, solver), repeat)
            epoch = per_epoch(lambda e: our_fit(X, y, solver, e), repeat)
            verdict = "met" if epoch <= sgd else "NOT met"
            print(f"  {solver:8s} fit of one epoch {once * 1e3:6.1f} ms ({once / sgd_once:4.2f}), solver alone "
                  f"{kernel * 1e3:6.1f} ms, an epoch {epoch * 1e3:6.1f} ms: ratio {epoch / sgd:4.2f}, target {verdict}")


if __name__ == "__main__":
    main()
