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
Run from the repository root: ``python -m benchmarks.bench_stochastic [--repeat 5] [--quick]``
(``--quick``: 20,000-row versions of both sets, one run each, under a minute). The table is
printed and written to ``benchmarks/results/stochastic.md``.
"""

import argparse
import warnings

import numpy as np
from sklearn.linear_model import SGDClassifier
from tqdm import tqdm

from svmlab import ConvergenceWarning, LinearSVM, datasets
from svmlab.rows import as_rows
from svmlab.solvers import LINEAR, options, starter
from svmlab.solvers.coordinate import Problem, Stop
from svmlab.trace import Recorder
from svmlab.validation import check_array

from benchmarks.report import write_markdown
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
    start, checked = starter(LINEAR, solver), options(LINEAR, solver, LinearSVM().get_params())
    buf = Recorder(0, 1, X.shape[0], X.shape[1] + 1).buffers
    problem = Problem(rows, y, Ci, 0, 0.0)
    return lambda: start(problem, Stop(1e-12, 1), buf, np.random.default_rng(0), **checked).advance(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="20,000 rows, one run each (under a minute)")
    args = parser.parse_args()
    n, repeat = (20_000, 1) if args.quick else (100_000, args.repeat)
    sets = {f"dense {n:,} x 100": lambda: datasets.make_dense(n),
            f"sparse text {n:,} x 50,000": lambda: datasets.make_sparse_text(n)}
    rows = []
    cases = [(name, solver) for name in sets for solver in ("sdca", "pegasos")]
    data = {}
    for name, solver in tqdm(cases, desc="stochastic", unit="case"):
        if name not in data:
            X, y = sets[name]()
            sgd_once, _ = median_time(sgd_fit(X, y, 1), repeat)
            data[name] = (X, y, sgd_once, per_epoch(lambda e: sgd_fit(X, y, e), repeat))
        X, y, sgd_once, sgd = data[name]
        once, _ = median_time(our_fit(X, y, solver, 1), repeat)
        kernel, _ = median_time(kernel_epoch(X, y, solver), repeat)
        epoch = per_epoch(lambda e: our_fit(X, y, solver, e), repeat)
        rows.append([name, solver, f"{once * 1e3:.1f} ({once / sgd_once:.2f})", f"{kernel * 1e3:.1f}",
                     f"{epoch * 1e3:.1f}", f"{sgd * 1e3:.1f}", f"{epoch / sgd:.2f}", "yes" if epoch <= sgd else "NO"])
    header = ["data", "solver", "fit of one epoch ms (/ SGD's)", "solver alone ms", "an epoch ms",
              "SGD epoch ms", "ratio", "<= 1.0"]
    write_markdown("stochastic", __doc__.splitlines()[0],
                   [(f"medians of {repeat} runs; ratio = ours / SGDClassifier, judged on the epoch", header, rows)])


if __name__ == "__main__":
    main()
