"""n_jobs: kernel columns and SMO's loops split over threads give the same model bit for bit."""

import warnings

import numpy as np
import pytest
from scipy import sparse

import svmlab
from svmlab import threads
from svmlab.solvers import kernel_cache
from svmlab.kernel_rows import column, prepare, work_vector
from svmlab.kernels import make_kernel
from svmlab.validation import n_jobs_threads


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    return X, np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1, -1)


def test_split_column_is_bit_identical():
    X, _ = _data(3000)
    k = make_kernel("rbf", X)
    one, two = prepare(X, k), prepare(X, k, 2)._replace(min_split=np.int64(1))  # force the split
    index = np.random.default_rng(1).permutation(3000)
    a, b = np.full(3000, np.nan), np.full(3000, np.nan)
    column(one, 7, index, 100, 2900, work_vector(one), a)
    column(two, 7, index, 100, 2900, work_vector(two), b)
    assert np.array_equal(a, b, equal_nan=True) and np.isnan(a[:100]).all()


@pytest.mark.parametrize("selection", ["second_order", "max_violating", "random"])
def test_smo_threads_give_the_same_model(selection, monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_PAYS", 0)  # split every loop, however short
    # every pair update opens parallel regions, each waiting for a core when another process holds
    # it: random selection's thousands of updates took 18 s in a test run (0.1 s on an idle box).
    # So 300 samples (about 70 free support vectors), and random selection stops after two epochs
    # of pair updates, the same ones on one thread and on two
    X, y = _data(300)
    budget = dict(max_iter=2) if selection == "random" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        one = svmlab.KernelSVM(C=10.0, selection=selection, random_state=0, **budget).fit(X, y)
        two = svmlab.KernelSVM(C=10.0, selection=selection, random_state=0, n_jobs=2, **budget).fit(X, y)
    assert np.array_equal(one.alpha_, two.alpha_) and one.intercept_[0] == two.intercept_[0]
    assert one.n_iter_ == two.n_iter_


def test_svr_threads_give_the_same_model(monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_PAYS", 0)
    X, _ = _data(600)
    z = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    one = svmlab.KernelSVR(C=5.0, epsilon=0.05).fit(X, z)
    two = svmlab.KernelSVR(C=5.0, epsilon=0.05, n_jobs=-1).fit(X, z)
    assert np.array_equal(one.alpha_, two.alpha_) and one.intercept_[0] == two.intercept_[0]


def test_sparse_columns_on_two_threads():
    """CSR data on two threads, the column code (kernel_rows.column) and the cache's filling of a
    missing column (kernel_cache.get_column) the same bit for bit as on one thread: numba's
    parallel loops take no CSR matrix inside the kernel's tuple, so both pass it apart."""
    X, y = _data(800)
    X[np.abs(X) < 0.8] = 0.0
    X = sparse.csr_matrix(X)
    k = make_kernel("rbf", X)
    one, two = prepare(X, k), prepare(X, k, 2)._replace(min_split=np.int64(1))  # force the split
    index = np.random.default_rng(1).permutation(800)
    a, b = np.empty(800), np.empty(800)
    column(one, 7, index, 0, 800, work_vector(one), a)
    column(two, 7, index, 0, 800, work_vector(two), b)
    assert np.array_equal(a, b)
    y = y.astype(np.float64)
    cols = []
    for kr in (one, two):
        cache = kernel_cache.new_cache(800, 1.0)
        start = kernel_cache.get_column(cache, kr, y, 7, index, 800, work_vector(kr))
        cols.append(kernel_cache.slot_view(cache, start)[cache.pos].copy())
    by_sample = np.empty(800)
    by_sample[index] = a  # a[t] is K(x_k, x_7) for k = index[t]
    assert np.array_equal(cols[0], cols[1]) and np.array_equal(cols[0], (by_sample * y * y[7]).astype(cols[0].dtype))


def test_n_jobs_follows_scikit_learn():
    from numba import config
    assert n_jobs_threads(None, "n_jobs") == 1 and n_jobs_threads(3, "n_jobs") == 3
    assert n_jobs_threads(-1, "n_jobs") == config.NUMBA_NUM_THREADS
    assert n_jobs_threads(-1000, "n_jobs") == 1
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs must be None, a positive integer"):
            svmlab.KernelSVM(n_jobs=bad).fit(*_data(20))
