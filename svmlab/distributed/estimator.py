"""svmlab.distributed.LinearSVM: the linear SVM of chapter 3 solved by CoCoA+ on a Dask cluster."""

import warnings

import numpy as np

from .. import estimators
from ..validation import (check_bool, check_random_state, check_X_y, class_labels, class_weights,
                          loss_code, one_of, positive_int, positive_number, trace_every)
from . import blocks, local
from .cocoa import CoCoA, place_block

LOCAL_SOLVERS = {"dcd": local.DCD_ORDER, "sdca": local.SDCA_ORDER}
AGGREGATIONS = ("adding", "averaging")


class LinearSVM(estimators.LinearSVM):
    """Linear SVM on the C-form primal (book eq. 1.3), solved by CoCoA+ on a Dask cluster.

    Parameters
    ----------
    C, loss, fit_intercept, intercept_scaling, class_weight, random_state : as
        :class:`svmlab.LinearSVM` (the bias is a regularized feature of value intercept_scaling).
    tol : float > 0, the certificate: stop when the relative duality gap (P - D) / P <= tol.
    max_rounds : int >= 1, the most rounds of communication.
    local_solver : "dcd" (permutations as DCD draws them) or "sdca" (as SDCA draws them): the
        coordinate steps each block takes on its local subproblem (see local.py).
    local_passes : float > 0, passes over its block each worker makes a round (H / n_k).
    aggregation : "adding" (sigma' = K, changes added: CoCoA+) or "averaging" (sigma' = 1,
        changes averaged: CoCoA).
    n_blocks : None (one block per worker thread, or X's row chunks for a Dask array) or an
        int: the blocks a NumPy or SciPy X is split into.
    trace : bool, record each round in ``trace_`` (a :class:`svmlab.distributed.cocoa.RoundTrace`).

    ``fit(X, y)`` takes a dask.array chunked by rows only (NumPy or SciPy CSR blocks) with a
    matching y, or NumPy / SciPy arrays, which it splits into blocks. It runs on the current
    ``distributed.Client``, or on a LocalCluster of threads it starts and closes, and says
    which in ``trace_.cluster``. More than two classes: one-vs-rest, as :class:`svmlab.LinearSVM`.
    """

    def __init__(self, C=1.0, loss="hinge", tol=1e-4, max_rounds=100, local_solver="dcd", local_passes=1.0,
                 aggregation="adding", fit_intercept=True, intercept_scaling=1.0, class_weight=None,
                 n_blocks=None, random_state=None, trace=False):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_rounds = max_rounds
        self.local_solver = local_solver
        self.local_passes = local_passes
        self.aggregation = aggregation
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.n_blocks = n_blocks
        self.random_state = random_state
        self.trace = trace

    def fit(self, X, y):
        """Solve on the cluster; returns self."""
        from distributed import Client, get_client

        options = self._options()
        try:
            client, own = get_client(), None
            self._cluster_name = "the current distributed.Client"
        except ValueError:  # no client: a LocalCluster of threads for this fit
            own = client = Client(processes=False, dashboard_address=":0")
            self._cluster_name = "a LocalCluster of threads started for this fit"
        try:
            self._fit_on(client, X, y, options)
        finally:
            if own is not None:
                own.close()
        return self

    def _options(self):
        positive_number(self.C, "C")
        code = loss_code(self.loss)
        return dict(code=code, tol=positive_number(self.tol, "tol"),
                    max_rounds=positive_int(self.max_rounds, "max_rounds"),
                    order=LOCAL_SOLVERS[one_of(self.local_solver, "local_solver", tuple(LOCAL_SOLVERS))],
                    passes=positive_number(self.local_passes, "local_passes"),
                    adding=one_of(self.aggregation, "aggregation", AGGREGATIONS) == "adding",
                    B=positive_number(self.intercept_scaling, "intercept_scaling")
                    if check_bool(self.fit_intercept, "fit_intercept") else 0.0,
                    trace=trace_every(self.trace) > 0, rng=check_random_state(self.random_state),
                    n_blocks=None if self.n_blocks is None else positive_int(self.n_blocks, "n_blocks"))

    def _fit_on(self, client, X, y, o):
        actors, rebuild, d, classes, codes = _blocks(client, X, y, o["n_blocks"])
        self.classes_ = classes
        self.n_features_in_ = d
        weights = class_weights(self.C, self.class_weight, classes, codes)
        K = len(actors)
        solver = CoCoA(actors, rebuild, d + 1, f"{self._cluster_name} at {client.scheduler.address}, {K} blocks")
        fits = []
        for key, (positive, C_positive, C_negative) in enumerate(self._problems(weights)):
            problem = blocks.Problem(positive, C_positive, C_negative, o["code"], o["B"],
                                     float(K) if o["adding"] else 1.0, 1.0 if o["adding"] else 1.0 / K,
                                     o["passes"], o["order"])
            seeds = [int(o["rng"].integers(2**31 - 1)) for _ in range(K)]
            fits.append(solver.run(key, problem, seeds, o["tol"], o["max_rounds"]))
        self._keep(fits, o["B"], d, o["trace"])

    def _problems(self, weights):
        """(the +1 class, its C_i, each class's C_i as -1) of each binary problem: one for two
        classes (classes_[1] is +1), one-vs-rest for more, as LIBLINEAR."""
        if len(self.classes_) == 2:
            return [(1, weights[1], weights)]
        C = positive_number(self.C, "C")
        return [(k, weights[k], np.full(len(weights), C)) for k in range(len(weights))]

    def _keep(self, fits, B, d, trace):
        self.coef_ = np.array([f.w[:d] for f in fits])
        self.intercept_ = np.array([B * f.w[d] for f in fits])
        alpha = np.array([f.alpha for f in fits])
        self.alpha_ = alpha[0] if len(fits) == 1 else alpha
        self.n_iter_ = max(f.n_rounds for f in fits)
        if not all(np.isfinite(f.w).all() and np.isfinite(f.alpha).all() for f in fits):
            raise ValueError("CoCoA+ produced NaN or infinite values on this data: the problem is numerically out of "
                             "range. Rescale X or lower C.")
        traces = [f.trace for f in fits] if trace else None
        self.trace_ = None if traces is None else (traces[0] if len(fits) == 1 else traces)
        if not all(f.converged for f in fits):
            warnings.warn(f"{type(self).__name__} stopped at max_rounds={self.max_rounds} before the relative "
                          f"duality gap reached tol={self.tol}; the model is usable but not certified to tol. "
                          "Increase max_rounds or tol.", estimators.ConvergenceWarning, stacklevel=3)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True  # the cluster's timing does not change the result, but its start does
        return tags


def _blocks(client, X, y, n_blocks):
    """One actor per block (:class:`blocks.Worker`), a function that makes block k again on
    a live worker, d, classes_ and the class code of each sample (for class_weight)."""
    if _is_dask(X):
        return _dask_blocks(client, X, y)
    X, y = check_X_y(X, y)
    classes, codes = class_labels(y)
    K = min(X.shape[0], n_blocks or _threads(client))
    bounds = np.linspace(0, X.shape[0], K + 1).astype(int)
    parts = [(X[a:b], codes[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]

    def rebuild(k, avoid=None):
        workers = [a for a in client.scheduler_info()["workers"] if a != avoid] or [avoid]
        where = [workers[k % len(workers)]]
        return _actor(client, *client.scatter(list(parts[k]), workers=where, hash=False), workers=where)
    return [place_block(rebuild, k) for k in range(K)], rebuild, X.shape[1], classes, codes


def _actor(client, X, codes, workers=None):
    return client.submit(blocks.Worker, X, codes, actor=True, workers=workers, pure=False).result()


def _dask_blocks(client, X, y):
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got a {X.ndim}-D Dask array.")
    if len(X.chunks[1]) != 1:
        raise ValueError(f"X is chunked along its columns too ({len(X.chunks[1])} column chunks); chunk it by "
                         "rows only: X.rechunk({1: -1}).")
    if not _is_dask(y):  # a NumPy y is cut as X is
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"X and y have different lengths: X has {X.shape[0]} samples, y has shape {y.shape}.")
        y = da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different lengths: X has {X.shape[0]} samples, y has shape {y.shape}.")
    if y.chunks[0] != X.chunks[0]:
        raise ValueError(f"y is chunked {y.chunks[0]} but X's rows are chunked {X.chunks[0]}; every block needs "
                         "its own labels: y.rechunk((X.chunks[0],)).")
    uniques = np.asarray(client.compute(da.unique(y)).result())
    if uniques.dtype.kind == "f" and not np.isfinite(uniques).all():
        raise ValueError("Input y contains NaN or infinity; every sample needs a class label.")
    classes, _ = class_labels(uniques)
    counts = np.asarray(client.compute(da.bincount(da.searchsorted(da.from_array(classes), y))).result())
    x_blocks, y_blocks = X.to_delayed().ravel(), y.to_delayed().ravel()

    def rebuild(k, avoid=None):  # Dask computes block k from X's graph, on a live worker
        return _actor(client, client.compute(x_blocks[k]),
                      client.submit(np.searchsorted, classes, client.compute(y_blocks[k]), pure=False))
    return [place_block(rebuild, k) for k in range(len(x_blocks))], rebuild, X.shape[1], classes, np.repeat(
        np.arange(len(classes)), counts)


def _is_dask(a):
    return type(a).__module__.startswith("dask.")


def _threads(client):
    return sum(w["nthreads"] for w in client.scheduler_info()["workers"].values())

