"""Chapters 1-2 solvers: primal subgradient descent and projected gradient on the dual."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC, LinearSVC

import svmlab
from svmlab import datasets
from svmlab.reference import core as ref


def fit(**params):
    """Fit quietly: these tests run solvers for a fixed number of epochs on purpose."""
    X, y = params.pop("data")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        return svmlab.LinearSVM(**params).fit(X, y)


@pytest.fixture(scope="module")
def toy():
    X, y = datasets.make_toy(200, random_state=3)
    return X, y


@pytest.fixture(scope="module")
def cancer():
    X, y = datasets.load_breast_cancer()
    return X[::4], y[::4]


def liblinear_primal(X, y, loss, C, B):
    """The optimum of the same C-form problem, from scikit-learn's LIBLINEAR run tight: its
    dual coordinate descent for the hinge, its primal Newton method for the squared hinge
    (whose dual is too ill-conditioned on this data for DCD to reach 1e-10)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = LinearSVC(loss=loss, C=C, dual=loss == "hinge", tol=1e-10, max_iter=1_000_000, random_state=0,
                          fit_intercept=B > 0, intercept_scaling=B or 1.0).fit(X, y)
    prob = svmlab.SVMProblem(X, y, C=C, loss=loss, bias="regularized" if B else "none", intercept_scaling=B or 1.0)
    return prob, prob.primal(model.coef_, model.intercept_)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("B", [0.0, 1.0])
def test_subgradient_iterates_equal_the_readable_version(toy, loss, B):
    X, y = toy
    model = fit(data=toy, solver="subgradient", loss=loss, C=0.5, tol=1e-15, max_iter=25,
                fit_intercept=B > 0, intercept_scaling=B or 1.0, trace=True)
    # the trace's last snapshot is the 25th iterate; the model holds the best of them
    w = ref.subgradient_descent(X, y, 0.5, loss, B, 25)
    last = np.append(model.trace_.snapshot_coef[-1], model.trace_.snapshot_intercept[-1] / (B or 1.0))
    np.testing.assert_allclose(last[: len(w)], w, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("B", [0.0, 1.0])
def test_dual_gradient_iterates_equal_the_readable_version(toy, loss, B):
    X, y = toy
    model = fit(data=toy, solver="dual_gradient", loss=loss, C=0.5, tol=1e-15, max_iter=30,
                fit_intercept=B > 0, intercept_scaling=B or 1.0)
    # power iteration and eigvalsh agree on L, so the iterates agree to rounding
    np.testing.assert_allclose(model.alpha_, ref.dual_projected_gradient(X, y, 0.5, loss, B, 30),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("loss, epochs, rtol", [("hinge", 20000, 2e-3), ("squared_hinge", 30000, 1e-7)])
def test_subgradient_approaches_the_liblinear_optimum(cancer, loss, epochs, rtol):
    """Hinge: O(log T / T) with step 1/t, so 2e-3 relative after 20000 epochs on 143 x 30;
    squared hinge: linear convergence of gradient descent (rate 1 - 1/L), 1e-7 after 30000."""
    X, y = cancer
    prob, p_star = liblinear_primal(X, y, loss, 1.0, 1.0)
    model = fit(data=cancer, solver="subgradient", loss=loss, C=1.0, tol=1e-12, max_iter=epochs)
    p = prob.primal(model.coef_, model.intercept_)
    assert p_star <= p * (1 + 1e-12)
    assert (p - p_star) / p_star < rtol


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dual_gradient_approaches_the_liblinear_optimum(cancer, loss):
    """Projected gradient with step 1/L converges linearly here: 1e-5 relative in P after
    20000 epochs on 143 x 30 at C = 0.1 (and to LIBLINEAR's digits after about 65000)."""
    X, y = cancer
    prob, p_star = liblinear_primal(X, y, loss, 0.1, 1.0)
    model = fit(data=cancer, solver="dual_gradient", loss=loss, C=0.1, tol=1e-12, max_iter=20000)
    p = prob.primal(model.coef_, model.intercept_)
    assert abs(p - p_star) / p_star < 1e-5
    assert prob.dual(model.alpha_) <= p_star * (1 + 1e-12)


@pytest.mark.parametrize("solver", ["subgradient", "dual_gradient"])
def test_converged_fit_is_certified_by_its_tolerance(toy, solver):
    X, y = toy
    tol = 1e-3
    model = svmlab.LinearSVM(solver=solver, loss="squared_hinge", C=0.1, tol=tol, max_iter=100000).fit(X, y)
    prob = svmlab.SVMProblem(X, y, C=0.1, loss="squared_hinge", bias="regularized")
    if solver == "subgradient":  # tol is the relative duality gap of (w, alpha)
        p = prob.primal(model.coef_, model.intercept_)
        assert 0 <= p - prob.dual(model.alpha_) <= tol * p
    else:  # tol is the KKT violation of alpha, and the model's w is w(alpha)
        assert prob.kkt_violation(model.alpha_) <= tol
        w, b = prob.w_from_alpha(model.alpha_)
        np.testing.assert_allclose(model.coef_[0], w, rtol=1e-10)
        assert model.intercept_[0] == pytest.approx(b, rel=1e-10)


def test_hinge_subgradient_carries_a_feasible_dual_point(toy):
    """w_t = w(alpha_t) with alpha_t in [0, C]: the averaged subgradients are a dual point."""
    X, y = toy
    model = fit(data=toy, solver="subgradient", C=2.0, tol=1e-12, max_iter=300)
    prob = svmlab.SVMProblem(X, y, C=2.0, bias="regularized")
    assert np.all((model.alpha_ >= 0) & (model.alpha_ <= 2.0))
    w, b = prob.w_from_alpha(model.alpha_)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-9)
    assert model.intercept_[0] == pytest.approx(b, rel=1e-9)


def test_dual_gradient_trace_never_decreases_the_dual(toy):
    model = fit(data=toy, solver="dual_gradient", C=1.0, tol=1e-12, max_iter=200, trace=True)
    tr = model.trace_
    assert np.all(np.diff(tr.dual) >= -1e-10 * np.abs(tr.dual[1:]))
    assert np.all(tr.gap >= -1e-9 * np.abs(tr.primal))
    np.testing.assert_array_equal(tr.epoch, np.arange(201))


@pytest.mark.parametrize("solver", ["subgradient", "dual_gradient"])
def test_trace_is_bounded_and_recording_changes_nothing(toy, solver):
    X, y = toy
    quiet = fit(data=toy, solver=solver, tol=1e-12, max_iter=500)
    traced = fit(data=toy, solver=solver, tol=1e-12, max_iter=500, trace=7)
    assert quiet.trace_ is None
    np.testing.assert_array_equal(quiet.alpha_, traced.alpha_)
    np.testing.assert_array_equal(quiet.coef_, traced.coef_)
    tr = traced.trace_
    assert list(tr.epoch[:3]) == [0, 7, 14] and tr.epoch[-1] == 500
    assert len(tr.snapshot_epoch) <= svmlab.trace.MAX_SNAPSHOTS
    assert tr.snapshot_epoch[0] == 0 and tr.snapshot_epoch[-1] == 500
    assert np.all(np.diff(tr.snapshot_epoch) > 0)
    assert tr.snapshot_alpha.shape == (len(tr.snapshot_epoch), len(y))
    assert tr.snapshot_coef.shape == (len(tr.snapshot_epoch), 2)
    assert np.all(np.diff(tr.time) >= 0)
    np.testing.assert_allclose(tr.gap, tr.primal - tr.dual)


@pytest.mark.parametrize("solver", ["subgradient", "dual_gradient"])
def test_dense_and_csr_fits_agree(cancer, solver):
    X, y = cancer
    X = np.where(np.abs(X) < 0.5, 0.0, X)
    dense = fit(data=(X, y), solver=solver, tol=1e-12, max_iter=200)
    sparse = fit(data=(sp.csr_matrix(X), y), solver=solver, tol=1e-12, max_iter=200)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense.alpha_, sparse.alpha_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_kernel_dual_gradient_with_free_bias_matches_libsvm(kernel):
    X, y = datasets.make_toy(150, random_state=5)
    reference = SVC(kernel=kernel, C=1.0, tol=1e-10).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model = svmlab.KernelSVM(kernel=kernel, C=1.0, tol=1e-7, max_iter=50000).fit(X, y)
    prob = svmlab.SVMProblem(X, y, C=1.0, bias="free", kernel=kernel)
    alpha_ref = np.zeros(len(y))
    alpha_ref[reference.support_] = np.abs(reference.dual_coef_[0])
    assert prob.dual(model.alpha_) == pytest.approx(prob.dual(alpha_ref), rel=1e-5)
    assert abs(model.alpha_ @ y) < 1e-9 * model.alpha_.sum()
    assert np.mean(model.predict(X) == reference.predict(X)) >= 0.99
