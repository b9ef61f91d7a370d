"""Numerical edge cases: no solver may crash, hang or return NaN on them.

Each either converges or stops at max_iter with a ConvergenceWarning, and in both cases
leaves a usable model (finite decision values that agree with predict).
"""

import warnings

import numpy as np
import pytest

import svmlab
from svmlab import solvers


def _blobs(n, d, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d)) + 1.5 * y[:, None]
    return X * scale, y


def zero_rows():
    X, y = _blobs(30, 3, 0)
    X[::5] = 0.0  # Q_ii = 0 for these rows (without a bias feature)
    return X, y


def opposite_duplicates():
    X, y = _blobs(30, 2, 1)
    return np.vstack([X, X[:6]]), np.concatenate([y, -y[:6]])


def separable():
    X, y = _blobs(30, 2, 2)
    return X + 4.0 * y[:, None], y


def wild_scales():
    X, y = _blobs(30, 2, 3)
    return X * np.array([1e-6, 1e6]), y


CASES = {
    "all-zero rows": (zero_rows, {}),
    "duplicates with opposite labels": (opposite_duplicates, {}),
    "separable, C = 1e6": (separable, {"C": 1e6}),
    "tiny C = 1e-6": (lambda: _blobs(30, 2, 4), {"C": 1e-6}),
    "features at 1e-6 and 1e6": (wild_scales, {}),
    "n = 2": (lambda: (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([-1.0, 1.0])), {}),
    "d = 1": (lambda: _blobs(30, 1, 5), {}),
    "d >> n": (lambda: _blobs(10, 300, 6), {}),
}


def configurations():
    for name in solvers.LINEAR:
        yield pytest.param(svmlab.LinearSVM, {"solver": name, "fit_intercept": False}, id=f"linear-{name}-nobias")
        yield pytest.param(svmlab.LinearSVM, {"solver": name}, id=f"linear-{name}")
    for name in solvers.KERNEL:
        yield pytest.param(svmlab.KernelSVM, {"solver": name, "fit_intercept": name != "dcd"}, id=f"kernel-{name}")


@pytest.mark.parametrize("Estimator, params", list(configurations()))
@pytest.mark.parametrize("case", CASES)
def test_edge_case_gives_a_usable_model(Estimator, params, case):
    make, extra = CASES[case]
    X, y = make()
    model = Estimator(max_iter=300, random_state=0, **params, **extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model.fit(X, y)
    f = model.decision_function(X)
    assert np.all(np.isfinite(f)), "decision values must be finite"
    assert np.all(np.isfinite(model.alpha_))
    assert np.all(model.alpha_ >= 0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(f > 0).astype(int)])
