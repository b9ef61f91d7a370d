"""CoCoA+ on Dask against single-machine DCD and Spark MLlib's LinearSVC, to the same primal.

    .venv/bin/pip install pyspark pyarrow      # once; not part of the book's requirements
    .venv/bin/python -m benchmarks.bench_distributed [--quick]

Needs a Java 17 runtime for Spark (Debian: ``apt-get install openjdk-17-jre-headless``).

The problem is the same on every side: the hinge loss without bias, C-form
P(w) = 1/2 |w|^2 + C sum_i max(0, 1 - y_i w.x_i) (book eq. 1.3), which is n C times Spark's
objective (1/n) sum_i hinge + regParam/2 |w|^2 with regParam = 1 / (n C) and
standardization off. P* comes from a tight run of svmlab's DCD, whose duality gap is printed. Each
solver is timed to its first iterate with P(w) <= (1 + 1e-3) P*:

* svmlab.distributed.LinearSVM on a LocalCluster of 2 worker processes (one thread each): the
  rounds and their seconds from ``trace_``; moving the blocks onto the workers is reported apart;
* svmlab.LinearSVM(solver="dcd") on one core: epochs and seconds from ``trace_``;
* Spark's LinearSVC on ``local[2]``, reading the same data from Parquet (dense, an array column
  turned into vectors) or LIBSVM text (sparse); the iterations needed come from its objective
  history, then a fit with exactly that many iterations is timed; reading and caching the data is
  reported apart.

The ratio printed is svmlab-on-Dask's time over Spark's, and over single-machine DCD's.
"""

import argparse
import os
import tempfile
import time
import warnings

import numpy as np
import scipy.sparse as sp

from svmlab import ConvergenceWarning, LinearSVM, datasets
from svmlab.distributed import LinearSVM as DistributedSVM

TARGET = 1e-3
C = 1.0
MAX_SPARK_ITERATIONS = 1000


def primal(X, y, w):
    """P(w) of the C-form hinge SVM without bias."""
    margins = y * np.asarray(X @ w).ravel()
    return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - margins).sum()


def first_within(values, optimum):
    """Index of the first value within TARGET (relative) of the optimum, or None."""
    hit = np.flatnonzero(np.asarray(values) <= (1.0 + TARGET) * optimum)
    return int(hit[0]) if hit.size else None


def reference(X, y):
    """P* as the primal of a tight DCD run, and that run's relative duality gap (P* lies
    within it)."""
    model = LinearSVM(C=C, fit_intercept=False, tol=1e-5, max_iter=100_000).fit(X, y)
    p = primal(X, y, model.coef_[0])
    w = model.coef_[0]
    dual = model.alpha_.sum() - 0.5 * w @ w  # D(alpha) of the hinge, w = w(alpha) (eq. 2.9)
    return p, (p - dual) / p


def single_machine(X, y, optimum):
    """Epochs and seconds of DCD to the target, from its trace (one fit, warm)."""
    LinearSVM(C=C, fit_intercept=False, max_iter=2).fit(X[:1000], y[:1000])
    model = LinearSVM(C=C, fit_intercept=False, tol=1e-5, max_iter=10_000, trace=True).fit(X, y)
    k = first_within(model.trace_.primal, optimum)
    return model.trace_.epoch[k], model.trace_.time[k]


def on_dask(X, y, optimum):
    """Rounds and seconds of CoCoA+ to the target on 2 worker processes; setup seconds apart."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      worker_dashboard_address=":0") as cluster, Client(cluster):
        DistributedSVM(C=C, fit_intercept=False, max_rounds=2).fit(X[:1000], y[:1000])  # compile on the workers
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = DistributedSVM(C=C, fit_intercept=False, tol=TARGET, max_rounds=1000, local_passes=1.0,
                                   random_state=0, trace=True).fit(X, y)
        total = time.perf_counter() - start
    t = model.trace_
    k = first_within(t.primal, optimum)
    rounds_time = float(np.sum(t.time))
    return (None, None, total - rounds_time) if k is None else (k, float(np.sum(t.time[:k + 1])), total - rounds_time)


def write_for_spark(X, y, folder):
    """The data in a format Spark reads natively: Parquet (dense) or LIBSVM text (sparse)."""
    labels = (y > 0).astype(float)
    if sp.issparse(X):
        path = os.path.join(folder, "data.libsvm")
        X = X.tocsr()
        with open(path, "w") as f:
            for i in range(X.shape[0]):
                row = X.indices[X.indptr[i]:X.indptr[i + 1]]
                vals = X.data[X.indptr[i]:X.indptr[i + 1]]
                f.write(f"{labels[i]:g} " + " ".join(f"{j + 1}:{v:.17g}" for j, v in zip(row, vals)) + "\n")
        return path, "libsvm"
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(folder, "data.parquet")
    features = pa.FixedSizeListArray.from_arrays(pa.array(X.ravel()), X.shape[1])
    pq.write_table(pa.table({"label": labels, "features": features}), path)
    return path, "parquet"


def on_spark(X, y, optimum, folder):
    """Iterations and seconds of Spark's LinearSVC to the target; reading and caching apart."""
    from pyspark.ml.classification import LinearSVC
    from pyspark.ml.functions import array_to_vector
    from pyspark.sql import SparkSession

    path, kind = write_for_spark(X, y, folder)
    spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "12g")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        start = time.perf_counter()
        if kind == "parquet":
            frame = spark.read.parquet(path).select("label", array_to_vector("features").alias("features"))
        else:
            frame = spark.read.format("libsvm").option("numFeatures", X.shape[1]).load(path)
        frame = frame.cache()
        frame.count()
        load = time.perf_counter() - start
        reg = 1.0 / (X.shape[0] * C)

        def fit(iterations):
            svc = LinearSVC(regParam=reg, fitIntercept=False, standardization=False, maxIter=iterations, tol=1e-12)
            begin = time.perf_counter()
            model = svc.fit(frame)
            return model, time.perf_counter() - begin

        model, _ = fit(2)  # warm the JVM's code paths
        model, _ = fit(500)
        summary = model.summary() if callable(model.summary) else model.summary  # a method since Spark 4
        history = np.asarray(summary.objectiveHistory) * X.shape[0] * C  # in C-form units
        k = first_within(history, optimum)
        if k is None:
            return f"> {MAX_SPARK_ITERATIONS} (reached P/P* - 1 = {history.min() / optimum - 1:.1e})", None, load
        model, seconds = fit(max(k, 1))
        w = model.coefficients.toArray()
        if primal(X, y, w) > (1.0 + TARGET) * optimum:  # the history's k-th value is the start of iteration k
            model, seconds = fit(k + 1)
        return k, seconds, load
    finally:
        spark.stop()


def case(name, X, y):
    print(f"\n{name}: {X.shape[0]:,} x {X.shape[1]:,}{' sparse' if sp.issparse(X) else ' dense'}", flush=True)
    optimum, gap = reference(X, y)
    epochs, dcd_seconds = single_machine(X, y, optimum)
    rounds, dask_seconds, setup = on_dask(X, y, optimum)
    with tempfile.TemporaryDirectory() as folder:
        iterations, spark_seconds, load = on_spark(X, y, optimum, folder)
    print(f"  P* = {optimum:.6f} (certified to a relative gap of {gap:.1e}); time to P <= (1 + {TARGET:g}) P*, "
          "data loading apart")
    print(f"  svmlab on Dask (2 workers) {rounds} rounds  {_seconds(dask_seconds)}   (blocks onto workers {setup:.1f} s)")
    print(f"  svmlab DCD (1 core)        {epochs} epochs  {_seconds(dcd_seconds)}")
    print(f"  Spark LinearSVC local[2]   {iterations} iterations  {_seconds(spark_seconds)}   (read + cache {load:.1f} s)")
    if dask_seconds and spark_seconds:
        print(f"  ratio Dask / Spark = {dask_seconds / spark_seconds:.3f};  Dask / single-machine DCD = "
              f"{dask_seconds / dcd_seconds:.2f}")


def _seconds(value):
    return "   not reached" if value is None else f"{value:8.2f} s"


def main():
    warnings.simplefilter("ignore", ConvergenceWarning)  # the warm-up fits stop early on purpose
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    quick = parser.parse_args().quick
    n_dense = 200_000 if quick else 2_000_000
    case("dense", *datasets.make_dense(n_dense, 100, random_state=0))
    n_sparse = 20_000 if quick else 100_000
    case("sparse text-like", *datasets.make_sparse_text(n_sparse, 50_000, random_state=0))


if __name__ == "__main__":
    main()
