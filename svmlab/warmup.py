"""Compile every numba kernel of svmlab into the cache, in parallel, with a progress bar.

    python -m svmlab.warmup            # the README's set-up command ends with this
    python -m svmlab.warmup --jobs 1   # one worker process

Each job fits one solver on small data in a worker process: dense and, for the linear solvers,
CSR data; for SMO and kernel DCD also with a cache too small for float64 columns (stored in
float32); with a trace and without (a solver compiled for a fit without a trace has no
recording code: a kernel of its own), and with each set of options of :func:`variants` (options
that compile other code, such as ``n_jobs``); then it predicts and evaluates the objective. One
more job fits ``svmlab.distributed.LinearSVM`` on a LocalCluster of threads, which compiles CoCoA+'s local
kernels as its Dask workers run them. That compiles the kernels into the cache of
:mod:`svmlab._numba_cache`, the folder keyed on the sources that every later ``import svmlab``
with the same ``NUMBA_CACHE_DIR`` reads. The jobs run on all cores; the bar names each job as it
finishes. Folders of older sources next to the current one are deleted (they can never be used
again). Run it again after editing svmlab: only a changed source makes it compile anything.
"""

import argparse
import os
import shutil
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from svmlab import solvers  # importing svmlab sets NUMBA_CACHE_DIR, inherited by the workers

# estimator -> its registry table: every registered solver is compiled
TABLES = {"LinearSVM": solvers.LINEAR, "KernelSVM": solvers.KERNEL,
          "LinearSVR": solvers.LINEAR_REGRESSION, "KernelSVR": solvers.KERNEL_REGRESSION}


def layouts(estimator, solver):
    """The data layouts a solver is compiled for: dense and CSR for the linear ones; dense and a
    cache too small for float64 columns (stored in float32) for those with a kernel cache."""
    if estimator.startswith("Linear"):
        return ("dense", "sparse")
    cached = any(option.name == "cache_size" for option in TABLES[estimator][solver].options)
    return ("dense", "float32 cache") if cached else ("dense",)


# options that compile other code than the defaults (a part passed as None by default: DCD's w of
# the last epoch for the dw rule, SDCA's average and ASDCA's v, Pegasos' average), each fitted too
VARIANTS = {("LinearSVM", "dcd"): [dict(stopping="dw")],
            ("LinearSVM", "sdca"): [dict(output="average"), dict(accelerated=True, smoothing=0.1)],
            ("LinearSVM", "pegasos"): [dict(output="average")]}


def variants(estimator, solver):
    """The options fitted besides the defaults: :data:`VARIANTS`, each with a trace and without,
    and ``n_jobs=2`` without a trace for a solver that takes n_jobs (its parallel loops are
    compiled for a thread count; one thread is None). The book never fits with both n_jobs and a
    trace (of the tests, only test_trace_clock.py does, once); such a fit compiles its own loop at
    its first fit (SMO: 17 s on a 2-core Xeon), and leaving it out saves every set-up about 20 s."""
    threaded = any(option.name == "n_jobs" for option in TABLES[estimator][solver].options)
    listed = [dict(variant, trace=trace) for variant in VARIANTS.get((estimator, solver), []) for trace in (True, False)]
    return listed + ([dict(n_jobs=2, trace=False)] if threaded else [])

JOBS = [(estimator, solver, layout) for estimator, table in TABLES.items() for solver in table
        for layout in layouts(estimator, solver)] + [("distributed.LinearSVM", "cocoa", "dense")]


def fit_one(estimator, solver, layout):
    """Fit, predict and evaluate one solver on 60 x 3 data (classifiers: 3 classes with a trace,
    then 2 without, so one-vs-rest or one-vs-one and a binary fit; regressors: a noisy linear
    target, with a trace and without); returns the seconds it took. Compiles whatever is not in
    the cache yet."""
    import scipy.sparse as sp

    import svmlab

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.repeat([0, 1, 2], 20)
    z = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=60)
    if layout == "sparse":
        X = sp.csr_matrix(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter=5 stops short of tol on purpose
        if estimator == "distributed.LinearSVM":
            _fit_distributed(X, y)
            return time.perf_counter() - start
        options = dict(fit_intercept=False) if solvers.NO_BIAS in TABLES[estimator][solver].requires else {}
        if layout == "float32 cache":
            options["cache_size"] = 0.01  # MB: less than the 60 x 60 float64 kernel matrix
        base = dict(solver=solver, max_iter=5, **options)
        model = getattr(svmlab, estimator)(trace=True, **base)
        target = z if estimator.endswith("SVR") else y
        if estimator.endswith("SVR"):
            model.fit(X, z).score(X, z)
            model.set_params(trace=False).fit(X, z)
        else:
            model.fit(X, y).score(X, y)
            model.set_params(trace=False).fit(X, (y > 0).astype(int)).decision_function(X)
        for variant in variants(estimator, solver):
            getattr(svmlab, estimator)(**base, **variant).fit(X, target)
        if estimator == "LinearSVM":
            evaluate_problem(svmlab.SVMProblem(X, np.where(y > 0, 1.0, -1.0), 1.0, "hinge", "free"))
            book_calls()
        elif estimator == "LinearSVR":
            evaluate_problem(svmlab.SVRProblem(X, z, 1.0, 0.1, bias="free"))
    return time.perf_counter() - start


def evaluate_problem(problem):
    """The methods of an :class:`svmlab.SVMProblem` or :class:`svmlab.SVRProblem` that reach the
    objective's kernels (P, D and the gap, the projected gradient, the KKT violation, the bias):
    the book calls them from Python, and a kernel that the solvers inline (``inline="always"``)
    is compiled apart for such a call."""
    n, d = problem.X.shape
    v = np.full(n, 0.5)
    problem.primal(np.zeros(d)), problem.gap(v), problem.projected_gradient(v), problem.kkt_violation(v)


def book_calls():
    """The other inlined kernels that the book calls from Python: the losses, D_ii and U_i of
    chapters 1-3 and plots.plot_losses, and SMO's pair step of chapter 5 (all arguments float64,
    as the chapters pass them)."""
    from svmlab import objective
    from svmlab.solvers import smo

    for code in (objective.HINGE, objective.SQUARED_HINGE):
        objective.loss(0.5, code), objective.diag(1.0, code), objective.upper(1.0, code)
    smo.pair_step(0.5, 0.5, 1.0, -1.0, 1.0, 1.0, -1.0, 0.5, 2.0)


def _fit_distributed(X, y):
    """CoCoA+'s local kernels, compiled as its Dask workers run them (a LocalCluster of threads),
    with each local solver."""
    from svmlab.distributed import LinearSVM

    for local_solver in ("dcd", "sdca"):
        LinearSVM(max_rounds=2, local_solver=local_solver).fit(X, y)


def prune(folder):
    """Delete the keyed folders of other sources next to ``folder``; returns their number."""
    from svmlab._numba_cache import KEYED

    base, mine = os.path.split(folder)
    stale = [f for f in os.listdir(base) if KEYED.fullmatch(f) and f != mine]
    for name in stale:
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return len(stale)


def main(jobs=None):
    from tqdm import tqdm

    folder = os.environ["NUMBA_CACHE_DIR"]
    removed = prune(folder)
    jobs = jobs or os.cpu_count() or 1
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(fit_one, *job): job for job in JOBS}
        with tqdm(total=len(JOBS), desc="compiling svmlab's kernels", unit="solver") as bar:
            for future in as_completed(futures):
                estimator, solver, layout = futures[future]
                seconds = future.result()
                bar.set_postfix_str(f"{estimator} {solver} ({layout}): {seconds:.1f} s")
                bar.update()
    files = sum(len(f) for _, _, f in os.walk(folder))
    print(f"numba cache {folder}: {files} files, filled in {time.perf_counter() - start:.0f} s on {jobs} "
          f"processes" + (f"; {removed} folder(s) of older sources deleted" if removed else ""))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    main(parser.parse_args().jobs)
