"""The Q-matrix interface (svmlab.solvers.qmatrix): columns and diagonal of the classification
and of the epsilon-SVR dual, as the solvers see them through the cache; the regression's columns
built from n-length kernel columns under shrinking and eviction, and the kernel evaluations
that layout saves."""

import contextlib

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1

import svmlab
from svmlab import datasets
from svmlab.kernel_rows import column, prepare
from svmlab.kernels import kernel_matrix, make_kernel
from svmlab.solvers import dual_state, kernel_cache, qmatrix


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_columns_and_diagonal_are_those_of_q(task):
    """Q_jk = s_j s_k K(x_(j mod n), x_(k mod n)) entry for entry, over every variable, full and
    on a shrunk active set, and Q_jj on the diagonal."""
    X, y = datasets.make_random(40, 5, random_state=0)
    kernel = make_kernel("rbf", X)
    K = kernel_matrix(kernel, X, X)
    if task == "classification":
        s, Kfull = y, K
    else:
        s, Kfull = qmatrix.regression_signs(len(y)), np.block([[K, K], [K, K]])
    expected = s[:, None] * Kfull * s[None, :]
    m = len(s)
    cache = kernel_cache.new_cache(len(y), 1.0)  # the regression caches kernel columns of length n
    kr = prepare(X, kernel)
    Q = qmatrix.classification(cache, kr, y) if task == "classification" else qmatrix.regression(cache, kr)
    np.testing.assert_array_equal(Q.s, s)
    order, work = np.arange(m), np.zeros(X.shape[1])
    for j in (0, 7, m - 1):
        np.testing.assert_allclose(qmatrix.q_full_column(Q, j, order, work), expected[:, j], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(qmatrix.diagonal(Q), np.diag(expected), rtol=1e-12)
    active = order[::-1].copy()  # a permuted order; the first half is the active set
    kernel_cache.new_generation(Q.cache)
    col = qmatrix.q_column(Q, 3, active, m // 2, work)
    assert Q.cache.pos is None  # a cache that holds all of Q (and the regression's view): entry k at k
    np.testing.assert_allclose(col[active[:m // 2]], expected[active[:m // 2], 3], rtol=1e-12, atol=1e-15)


def test_regression_wants_a_cache_of_kernel_columns():
    X, z = datasets.make_random(20, 3, random_state=0)
    kr = prepare(X, make_kernel("rbf", X))
    with pytest.raises(ValueError, match="length n = 20"):
        qmatrix.regression(kernel_cache.new_cache(40, 1.0), kr)


def _exact_q(kr, n, dtype):
    """The 2n x 2n Q of epsilon-SVR from the kernel columns the cache computes (kernel_rows.column),
    rounded to the cache's type, with the signs: what the cached columns must equal bit for bit."""
    K = np.empty((n, n))
    work, everyone = np.zeros(kr.X.shape[1]), np.arange(n)
    for j in range(n):
        column(kr, j, everyone, 0, n, work, K[:, j])
    K = K.astype(dtype).astype(np.float64)
    s = qmatrix.regression_signs(n)
    return s[:, None] * np.block([[K, K], [K, K]]) * s[None, :]


@pytest.mark.parametrize("slots", [4, 12])
def test_regression_columns_under_shrinking_and_eviction(slots):
    """The solver's protocol (SMO's _shrink: new generations, stable partitions of the active
    prefix, fit_to_active; two columns held at once for the pair step; the whole set back for
    the final check) on a cache of a few float32 kernel columns that evicts all the time and
    shortens its slots: every column over the active set, and every full column, equals the
    dense Q's."""
    n = 60
    X, _ = datasets.make_random(n, 4, random_state=1)
    kr = prepare(X, make_kernel("rbf", X))
    cache = kernel_cache.new_cache(n, 4 * n * slots / kernel_cache.MB)
    assert cache.pool.dtype == np.float32 and cache.state[kernel_cache.SLOTS] == slots
    Q = qmatrix.regression(cache, kr)
    expected = _exact_q(kr, n, np.float32)
    m, work = 2 * n, np.zeros(X.shape[1])
    rng = np.random.default_rng(0)
    order = np.arange(m)
    lengths = []

    def check(active_size):
        active = order[:active_size]  # the solver's view holds every variable at its own place (pos None)
        for _ in range(6):
            i, j = rng.choice(active, 2, replace=False)
            Qi = qmatrix.q_column(Q, i, order, active_size, work)
            Qj = qmatrix.q_column(Q, j, order, active_size, work)
            np.testing.assert_array_equal(Qi[active], expected[active, i])  # still valid beside Qj
            np.testing.assert_array_equal(Qj[active], expected[active, j])
            np.testing.assert_array_equal(qmatrix.q_column(Q, i, order, active_size, work)[active],
                                          expected[active, i])
        j = rng.choice(active)
        np.testing.assert_array_equal(qmatrix.q_full_column(Q, j, order, work), expected[:, j])
        lengths.append(cache.state[kernel_cache.LENGTH])

    for _ in range(3):  # generations
        kernel_cache.new_generation(Q.cache)
        order[:] = np.arange(m)
        active_size = m
        check(active_size)
        while active_size > 8:
            keep = rng.random(active_size) < 0.7
            kept, dropped = order[:active_size][keep], order[:active_size][~keep]
            order[:active_size] = np.concatenate([kept, dropped])  # a stable partition of the prefix
            active_size = len(kept)
            kernel_cache.fit_to_active(Q.cache, order, active_size)
            if active_size >= 2:
                check(active_size)
        check(m)  # the shrunk problem solved: the whole set back without a new generation
    assert cache.state[kernel_cache.MISSES] > 3 * n  # evicted again and again
    assert min(lengths) < n  # and the kernel slots were shortened to the active samples
    state = Q.cache.state  # the solver's view counts the kernel cache's work
    assert state[kernel_cache.EVALUATIONS] == cache.state[kernel_cache.EVALUATIONS]
    assert state[kernel_cache.MISSES] == cache.state[kernel_cache.MISSES]


def _scaled(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _kernel_evaluations(X, z, **params):
    """The kernel evaluations of a KernelSVR fit by SMO, read from its cache (opened by
    dual_state.held_cache)."""
    seen, opened = {}, dual_state.opened

    @contextlib.contextmanager
    def watched(*args):
        with opened(*args) as cache:
            seen["cache"] = cache
            yield cache

    dual_state.opened = watched
    try:
        svmlab.KernelSVR(**params).fit(X, z)
    finally:
        dual_state.opened = opened
    return int(seen["cache"].state[kernel_cache.EVALUATIONS])


@pytest.mark.parametrize("data", ["diabetes", "friedman"])
@pytest.mark.parametrize("shrinking", [False, True])
def test_regression_computes_each_kernel_column_once(data, shrinking):
    """With a cache that holds all of K, an SVR fit computes at most n^2 kernel values: each
    sample's kernel column once, shared by its two variables (the 2n-long columns of Q cached
    per variable took 1.8 n^2 to 1.9 n^2 on these fits). Without shrinking each column is computed
    once, whole; with it the columns are computed on the active samples and extended."""
    if data == "diabetes":
        X, z = load_diabetes(return_X_y=True)
        X, z = _scaled(X), (z - z.mean()) / z.std()
    else:
        X, z = make_friedman1(600, 8, noise=0.5, random_state=2)
        X = _scaled(X)
    n = len(z)
    evaluations = _kernel_evaluations(X, z, C=1.0, epsilon=0.1, tol=1e-3, shrinking=shrinking, cache_size=200)
    assert 0.5 * n * n < evaluations <= n * n
