"""SDCA and ASDCA (svmlab/solvers/sdca.py): optimum, dual units, certificates, options."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from svmlab import ConvergenceWarning, LinearSVM, SVMProblem, datasets
from svmlab.solvers import LINEAR, sdca
from svmlab.solvers.coordinate import Problem, Stop
from svmlab.trace import Recorder
from svmlab.reference.stochastic import sdca_hinge

C = 0.5
DUAL_SOLVER = "dcd" if "dcd" in LINEAR else "dual_gradient"


@pytest.fixture(scope="module")
def data():
    return datasets.make_random(n_samples=300, n_features=10, random_state=1)


def _fit(X, y, **params):
    base = dict(solver="sdca", C=C, tol=1e-8, max_iter=5000, fit_intercept=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return LinearSVM(**{**base, **params}).fit(X, y)


def _budget(X, y, **params):
    """A run of exactly max_iter epochs (tol out of reach)."""
    base = dict(solver="sdca", C=C, tol=1e-14, fit_intercept=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVM(**{**base, **params}).fit(X, y)


@pytest.mark.filterwarnings("ignore:Liblinear failed")  # it stops near 1e-9 relative, ample here
def test_reaches_liblinear_optimum_with_its_own_certificate(data):
    X, y = data
    model = _fit(X, y)
    ref = LinearSVC(C=C, loss="hinge", fit_intercept=False, tol=1e-10, max_iter=1_000_000, random_state=0).fit(X, y)
    problem = SVMProblem(X, y, C=C)
    p_ref = problem.primal(ref.coef_)
    p = problem.primal(model.coef_)
    assert abs(p - p_ref) <= 1e-6 * p_ref
    assert 0.0 <= problem.gap(model.alpha_) <= 1e-6 * p
    np.testing.assert_allclose(model.coef_, ref.coef_, atol=1e-3 * np.abs(ref.coef_).max())


def test_alpha_is_liblinear_alpha_up_to_C_y(data):
    """Paper units (reference, lambda = 1/(n C)) times C y give the library's alpha_, which is
    the dual solution a LIBLINEAR-style dual solver finds and satisfies LIBLINEAR's KKT."""
    X, y = data
    n = len(y)
    epochs = 400
    model = _budget(X, y, max_iter=epochs, order="cyclic")
    alpha_sdca, w_ref = sdca_hinge(X, y, 1.0 / (n * C), np.tile(np.arange(n), epochs))
    np.testing.assert_allclose(model.alpha_, C * y * alpha_sdca, rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.coef_[0], w_ref, rtol=0, atol=1e-9)
    dual = LinearSVM(solver=DUAL_SOLVER, C=C, tol=1e-10, max_iter=100_000, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(model.alpha_, dual.alpha_, rtol=0, atol=1e-5 * C)
    margins = y * (X @ model.coef_[0])
    assert np.all(model.alpha_[margins < 1 - 1e-4] > C * (1 - 1e-4))
    assert np.all(model.alpha_[margins > 1 + 1e-4] < 1e-4 * C)


@pytest.mark.parametrize("order", sdca.ORDERS)
def test_kernel_matches_reference_on_the_same_sequence(data, order):
    X, y = data
    n = len(y)
    seed = int(np.random.default_rng(3).integers(2**31 - 1))  # what solve draws first
    sequence = sdca.epoch_orders(seed, sdca.ORDERS.index(order), n, 7).ravel()
    alpha_sdca, w_ref = sdca_hinge(X, y, 1.0 / (n * C), sequence)
    model = _budget(X, y, max_iter=7, order=order, random_state=3, batch_size=1)
    np.testing.assert_allclose(model.alpha_, C * y * alpha_sdca, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.coef_[0], w_ref, rtol=0, atol=1e-10)


CASES = [
    dict(),
    dict(loss="squared_hinge"),
    dict(fit_intercept=True),
    dict(smoothing=0.05),
    dict(batch_size=16),
    dict(smoothing=0.5, accelerated=True, batch_size=8),
    dict(class_weight={-1.0: 1.0, 1.0: 3.0}),
]


@pytest.mark.parametrize("params", CASES, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "plain")
def test_gap_is_never_negative_and_falls_to_tol(data, params):
    X, y = data
    tol = 1e-4
    model = _fit(X, y, tol=tol, trace=True, **params)
    tr = model.trace_
    assert len(tr) >= 2 and np.all(tr.gap >= -1e-12 * tr.primal) and tr.gap[0] > tol * tr.primal[0]
    Ci = C * np.where(y > 0, 3.0, 1.0) if model.class_weight else C
    problem = SVMProblem(X, y, C=Ci, loss=model.loss, bias="regularized" if model.fit_intercept else "none")
    p = problem.primal(model.coef_, model.intercept_)
    d = problem.dual(model.alpha_)
    assert np.isclose(p, tr.primal[-1], rtol=1e-10) and np.isclose(d, tr.dual[-1], rtol=1e-10)
    assert np.all(model.alpha_ >= 0) and np.all(model.alpha_ <= problem.upper * (1 + 1e-12))
    gamma = params.get("smoothing", 0.0)
    if gamma:  # the certificate is the smoothed problem's (eq. 6.5)
        r = np.clip(1.0 - y * (X @ model.coef_[0]), 0.0, None)
        p -= np.sum(Ci * np.where(r >= gamma, gamma / 2, r - r**2 / (2 * gamma)))
        d -= np.sum(gamma * model.alpha_**2 / (2 * Ci))
    assert 0.0 <= p - d <= tol * p


def test_dual_never_falls_for_sdca_and_minibatch(data):
    X, y = data
    for params in (dict(), dict(batch_size=16), dict(order="random")):
        tr = _budget(X, y, max_iter=30, trace=True, **params).trace_
        assert np.all(np.diff(tr.dual) >= -1e-10 * abs(tr.dual[-1]))


@pytest.mark.parametrize("params", [dict(), dict(output="average"), dict(output="random"),
                                    dict(smoothing=0.5, accelerated=True, batch_size=8, output="average"),
                                    dict(order="random", batch_size=5)])
def test_same_random_state_same_result_and_csr_equals_dense(data, params):
    X, y = data
    a = _budget(X, y, max_iter=20, random_state=7, fit_intercept=True, **params)
    b = _budget(X, y, max_iter=20, random_state=7, fit_intercept=True, **params)
    c = _budget(sp.csr_matrix(X), y, max_iter=20, random_state=7, fit_intercept=True, **params)
    other = _budget(X, y, max_iter=20, random_state=8, fit_intercept=True, **params)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_allclose(c.alpha_, a.alpha_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.coef_, a.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.intercept_, a.intercept_, rtol=0, atol=1e-12)
    assert not np.array_equal(other.alpha_, a.alpha_)


def test_average_and_random_outputs_are_states_of_the_run(data):
    """Output "average" is the mean of the states T0..T-1 of the run (paper's Option), and
    "random" one of those states; checked against the reference on the same sequence."""
    X, y = data
    n, epochs = len(y), 6
    seed = int(np.random.default_rng(5).integers(2**31 - 1))
    sequence = sdca.epoch_orders(seed, 0, n, epochs).ravel()
    run = sdca_hinge(X, y, 1.0 / (n * C), sequence, all_states=True)  # run[t]: alpha after t steps
    states = [C * y * alpha for alpha in run[n * epochs // 2:n * epochs]]
    mean = np.mean(states, axis=0)
    avg = _budget(X, y, max_iter=epochs, random_state=5, output="average")
    np.testing.assert_allclose(avg.alpha_, mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(avg.coef_[0], X.T @ (mean * y), rtol=0, atol=1e-9)
    rnd = _budget(X, y, max_iter=epochs, random_state=5, output="random")
    assert min(np.abs(s - rnd.alpha_).max() for s in states) <= 1e-10


@pytest.mark.parametrize("batch_size", [1, 15])
def test_minibatch_matches_reference_and_size_one_is_plain_sdca(data, batch_size):
    """b = 15 divides n = 300, so the kernel's per-epoch batches are consecutive runs of the
    flat sequence, as in the reference; b = 1 is the plain method of the same seed."""
    X, y = data
    n, epochs = len(y), 5
    seed = int(np.random.default_rng(4).integers(2**31 - 1))
    sequence = sdca.epoch_orders(seed, 0, n, epochs).ravel()
    alpha_sdca, w_ref = sdca_hinge(X, y, 1.0 / (n * C), sequence, batch_size)
    model = _budget(X, y, max_iter=epochs, random_state=4, batch_size=batch_size)
    np.testing.assert_allclose(model.alpha_, C * y * alpha_sdca, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.coef_[0], w_ref, rtol=0, atol=1e-10)
    if batch_size == 1:
        plain = _budget(X, y, max_iter=epochs, random_state=4)
        np.testing.assert_array_equal(plain.alpha_, model.alpha_)


@pytest.mark.parametrize("params, word", [
    (dict(order="shuffled"), "order"),
    (dict(output="best"), "output"),
    (dict(batch_size=0), "batch_size"),
    (dict(smoothing=-1.0), "smoothing"),
    (dict(smoothing=0.1, loss="squared_hinge"), "smoothing"),
    (dict(accelerated=True), "accelerated"),
    (dict(accelerated="yes"), "accelerated"),
])
def test_bad_options_are_named(data, params, word):
    X, y = data
    with pytest.raises(ValueError, match=word):
        LinearSVM(solver="sdca", **params).fit(X, y)


def test_callers_arrays_are_left_alone(data):
    X, y = data
    X0, y0 = X.copy(), y.copy()
    _budget(X, y, max_iter=3, fit_intercept=True)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_recording_off_records_nothing(data):
    X, y = data
    rec = Recorder(0, 5, len(y), X.shape[1] + 1)
    state = sdca.start(Problem(X, y, np.full(len(y), C), 0, 0.0), Stop(1e-3, 5), rec.buffers, np.random.default_rng(0))
    state.advance(5)
    assert rec.buffers.rows.shape[0] == 0 and rec.to_trace("sdca", None) is None
