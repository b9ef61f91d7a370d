"""Support vector regression: the problem core, DCD for linear SVR, the regressors, against
LIBLINEAR and LIBSVM (through scikit-learn) and the readable reference."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes
from sklearn.metrics import r2_score
from sklearn.svm import SVR, LinearSVR

import svmlab
from svmlab import regression as reg
from svmlab.reference.svr import dcd_svr

LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive")
TIGHT = dict(tol=1e-10, max_iter=200_000)
needs_smo = pytest.mark.skipif(not svmlab.KernelSVR._solvers, reason="SMO for SVR is not registered yet")


@functools.cache
def data(name):
    """Standardized (X, z): scikit-learn's bundled diabetes, a noisy line in 20 dimensions, a
    noisy sine in one."""
    rng = np.random.default_rng(5)
    if name == "diabetes":
        X, z = load_diabetes(return_X_y=True)
    elif name == "line":
        X = rng.normal(size=(300, 20))
        z = X @ rng.normal(size=20) + 0.5 * rng.normal(size=300)
    else:
        X = np.sort(rng.uniform(-3, 3, size=(200, 1)), axis=0)
        z = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=200)
    return (X - X.mean(axis=0)) / X.std(axis=0), (z - z.mean()) / z.std()


def problem(X, z, loss="epsilon_insensitive", C=1.0, epsilon=0.1, B=0.0, **kw):
    bias = kw.pop("bias", "regularized" if B else "none")
    return svmlab.SVRProblem(X, z, C, epsilon, loss, bias, B or 1.0, **kw)


@functools.cache
def liblinear_primal(name, loss, B, C=1.0, epsilon=0.1):
    X, z = data(name)
    model = LinearSVR(C=C, epsilon=epsilon, loss=loss, dual=True, tol=1e-10, max_iter=1_000_000, random_state=0,
                      fit_intercept=B > 0, intercept_scaling=B or 1.0).fit(X, z)
    return problem(X, z, loss, C, epsilon, B).primal(model.coef_, model.intercept_)


def fit(X, z, **params):
    return svmlab.LinearSVR(**{"epsilon": 0.1, "random_state": 0, **params}).fit(X, z)


# -- the problem core ------------------------------------------------------------------------
def test_losses():
    r = np.array([-2.0, -0.5, 0.0, 0.3, 1.5])
    for code, power in ((reg.EPSILON_INSENSITIVE, 1), (reg.SQUARED_EPSILON_INSENSITIVE, 2)):
        got = [reg.loss(v, 0.5, code) for v in r]
        np.testing.assert_allclose(got, np.maximum(np.abs(r) - 0.5, 0.0) ** power)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("bias", ["none", "regularized", "free"])
def test_dual_formula_gradient_and_weak_duality(loss, bias):
    """D(beta) = -(1/2 beta'(Q + D)beta - z'beta + epsilon |beta|_1); G is the gradient of its
    smooth part; every feasible beta (sum beta = 0 with a free bias) has D(beta) <= P(w(beta))."""
    X, z = (a[:40] for a in data("line"))
    rng = np.random.default_rng(0)
    C = rng.uniform(0.5, 2.0, 40)
    p = problem(X, z, loss, C, 0.3, B=2.0 if bias == "regularized" else 0.0, bias=bias)
    Dg = np.zeros(40) if loss == LOSSES[0] else 0.5 / C
    for _ in range(5):
        beta = rng.uniform(-1, 1, 40) * np.minimum(C, 3.0)
        if bias == "free":
            beta -= beta.mean()
            beta = np.clip(beta, -C, C)
            beta[np.argmax(C - np.abs(beta))] -= beta.sum()
        Q = p.Q()
        f = 0.5 * beta @ (Q + np.diag(Dg)) @ beta - z @ beta + 0.3 * np.abs(beta).sum()
        assert p.dual(beta) == pytest.approx(-f, rel=1e-12)
        np.testing.assert_allclose(p.gradient(beta), (Q + np.diag(Dg)) @ beta - z, rtol=1e-10, atol=1e-10)
        assert p.dual(beta) <= p.primal_at(beta) + 1e-9


@pytest.mark.parametrize("name", ["diabetes", "line", "sine"])
def test_libsvm_solution_is_certified_by_the_core(name):
    """At LIBSVM's epsilon-SVR solution the core's gap and KKT violation are near zero and its
    bias rule gives LIBSVM's intercept (the free-bias parts of the core, on the pair form)."""
    X, z = data(name)
    model = SVR(C=2.0, epsilon=0.1, gamma=0.5, tol=1e-9).fit(X, z)
    beta = np.zeros(len(z))
    beta[model.support_] = model.dual_coef_[0]
    p = problem(X, z, C=2.0, kernel="rbf", gamma=0.5, bias="free")
    assert p.kkt_violation(beta) < 1e-6
    assert 0.0 <= p.gap(beta) <= 1e-6 * abs(p.dual(beta))
    assert p.bias_from_beta(beta) == pytest.approx(model.intercept_[0], abs=1e-6)
    assert np.abs(p.projected_gradient(beta)).max() < 1e-6


# -- DCD for linear SVR ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["diabetes", "line"])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("B", [0.0, 1.0])
def test_primal_equals_liblinear(name, loss, B):
    X, z = data(name)
    reference = liblinear_primal(name, loss, B)
    for shrinking in (True, False):
        for Xs in (X, sp.csr_matrix(X)):
            model = fit(Xs, z, loss=loss, shrinking=shrinking, fit_intercept=B > 0, intercept_scaling=B or 1.0,
                        **TIGHT)
            ours = problem(X, z, loss, B=B).primal(model.coef_, model.intercept_)
            assert ours == pytest.approx(reference, rel=1e-6)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("B", [0.0, 2.0])
def test_kernel_takes_the_steps_of_the_reference(loss, B):
    X, z = (a[:60] for a in data("diabetes"))
    model = fit(X, z, loss=loss, C=0.5, epsilon=0.2, order="cyclic", shrinking=False, tol=1e-3,
                fit_intercept=B > 0, intercept_scaling=B or 1.0, max_iter=20_000)
    beta, w, epochs, converged = dcd_svr(X, z, 0.5, 0.2, loss, B, 1e-3, 20_000, "cyclic")
    assert converged and model.n_iter_ == epochs
    np.testing.assert_array_equal(model.alpha_, beta)  # the same additions in the same order
    np.testing.assert_array_equal(model.coef_, w[:X.shape[1]])
    assert model.intercept_[0] == (B * w[-1] if B else 0.0)


@pytest.mark.parametrize("loss", LOSSES)
def test_dual_never_exceeds_primal_and_the_gap_closes(loss):
    X, z = data("diabetes")
    model = fit(X, z, loss=loss, C=2.0, trace=True, tol=1e-8, max_iter=100_000)
    t = model.trace_
    assert (t.dual <= t.primal + 1e-9 * np.abs(t.primal)).all()
    assert t.gap[-1] <= 1e-6 * t.primal[-1] and t.kkt[-1] < 1e-4
    p = problem(X, z, loss, C=2.0, B=1.0)
    assert t.primal[-1] == pytest.approx(p.primal(model.coef_, model.intercept_), rel=1e-12)
    assert t.dual[-1] == pytest.approx(p.dual(model.alpha_), rel=1e-9)
    w, b = p.w_from_beta(model.alpha_)  # the w kept up to date equals w(beta)
    np.testing.assert_allclose(model.coef_, w, atol=1e-10)
    assert model.intercept_[0] == pytest.approx(b, abs=1e-10)
    if loss == LOSSES[0]:
        assert (np.abs(model.alpha_) <= 2.0).all()


@pytest.mark.parametrize("loss", LOSSES)
def test_problem_on_csr_equals_dense_and_certifies_the_fit(loss):
    X, z = data("diabetes")
    model = fit(X, z, loss=loss, fit_intercept=False, tol=1e-6, max_iter=50_000)
    dense, csr = (problem(Xs, z, loss) for Xs in (X, sp.csr_matrix(X)))
    beta = model.alpha_
    for name in ("dual", "gap", "kkt_violation", "primal_at"):
        assert getattr(csr, name)(beta) == pytest.approx(getattr(dense, name)(beta), rel=1e-10, abs=1e-12)
    assert dense.kkt_violation(beta) < 1e-3 and np.abs(dense.projected_gradient(beta)).max() < 1e-3
    assert 0.0 <= dense.gap(beta) <= 1e-5 * dense.primal(model.coef_)


def test_csr_equals_dense_and_random_state_reproduces():
    X, z = data("line")
    X = np.where(np.abs(X) < 0.5, 0.0, X)  # sparse-ish
    dense, csr, again = (fit(Xs, z, C=0.1, tol=1e-3) for Xs in (X, sp.csr_matrix(X), X))
    assert dense.n_iter_ == csr.n_iter_ == again.n_iter_
    # a dense row's products are added in four running sums, a CSR row's one by one: the last bits differ
    np.testing.assert_allclose(csr.alpha_, dense.alpha_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(again.alpha_, dense.alpha_)
    assert not np.array_equal(fit(X, z, C=0.1, tol=1e-3, random_state=1).alpha_, dense.alpha_)


def test_slices_take_the_steps_of_one_call():
    """The solver's state advanced one epoch a slice gives the iterates of one call, bit for bit."""
    from svmlab.solvers import dcd_svr
    from svmlab.solvers.coordinate import Stop
    from svmlab.trace import Recorder

    X, z = data("diabetes")
    problem = dcd_svr.Problem(X, z, np.full(len(z), 0.5), 0.1, reg.EPSILON_INSENSITIVE, 1.0)
    def state():  # one run at a time: numba's generator, seeded by start, persists between slices
        return dcd_svr.start(problem, Stop(1e-3, 1000), Recorder(0, 1, len(z), 11).buffers,
                             np.random.default_rng(3))

    whole = state()
    whole.advance(1000)
    one = whole.result()
    sliced, finished = state(), False
    while not finished:
        _, finished = sliced.advance(1)
    sliced = sliced.result()
    assert one.converged and one.n_iter == sliced.n_iter > 1
    np.testing.assert_array_equal(one.alpha, sliced.alpha)
    np.testing.assert_array_equal(one.w, sliced.w)


def test_attributes_score_and_support():
    X, z = data("line")
    model = fit(X, z, C=1.0, epsilon=0.5)
    assert model.coef_.shape == (20,) and model.intercept_.shape == (1,) and model.alpha_.shape == (300,)
    np.testing.assert_array_equal(model.support_, np.flatnonzero(model.alpha_))
    np.testing.assert_array_equal(model.dual_coef_, model.alpha_[model.support_][None, :])
    assert 0 < len(model.support_) < 300  # points strictly inside the tube have beta_i = 0
    f = model.predict(X)
    inside = np.abs(z - f) < 0.5 - 1e-3
    assert not model.alpha_[inside].any()
    assert model.score(X, z) == pytest.approx(r2_score(z, f), rel=1e-12)


# -- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("Model", [svmlab.LinearSVR, pytest.param(svmlab.KernelSVR, marks=needs_smo)])
def test_bad_targets_are_refused_clearly(Model):
    X, z = (a[:30] for a in data("line"))
    with pytest.raises(ValueError, match="multi-output"):
        Model().fit(X, np.c_[z, z])
    bad = z.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="y contains NaN or infinity"):
        Model().fit(X, bad)
    with pytest.raises(ValueError, match="y must hold real numbers"):
        Model().fit(X, np.array(["a", "b"] * 15))
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0"):
        Model(epsilon=-0.1).fit(X, z)
    assert np.isnan(bad[3])  # the caller's array is left as it was


def test_bad_parameters_are_refused_clearly():
    X, z = (a[:30] for a in data("line"))
    with pytest.raises(ValueError, match="loss='hinge' is not supported"):
        svmlab.LinearSVR(loss="hinge").fit(X, z)
    with pytest.raises(ValueError, match="solver='smo' is not supported"):
        svmlab.LinearSVR(solver="smo").fit(X, z)
    with pytest.warns(svmlab.DataConversionWarning, match="column-vector"):
        svmlab.LinearSVR(C=0.1, tol=1e-2).fit(X, z[:, None])
    with pytest.raises(svmlab.NotFittedError, match="not fitted yet"):
        svmlab.LinearSVR().predict(X)


def test_max_iter_warns():
    X, z = data("diabetes")
    with pytest.warns(svmlab.ConvergenceWarning, match="max_iter=2"):
        fit(X, z, max_iter=2, tol=1e-12)


# -- KernelSVR (SMO for SVR) -----------------------------------------------------------------
@needs_smo
@pytest.mark.parametrize("name", ["diabetes", "line", "sine"])
@pytest.mark.parametrize("C, epsilon", [(1.0, 0.1), (10.0, 0.3)])
def test_kernel_svr_equals_libsvm(name, C, epsilon):
    X, z = data(name)
    ref = SVR(C=C, epsilon=epsilon, gamma=0.5, tol=1e-8).fit(X, z)
    ours = svmlab.KernelSVR(C=C, epsilon=epsilon, gamma=0.5, tol=1e-8, max_iter=100_000).fit(X, z)
    p = problem(X, z, C=C, epsilon=epsilon, kernel="rbf", gamma=0.5, bias="free")
    beta = np.zeros(len(z))
    beta[ref.support_] = ref.dual_coef_[0]
    assert p.dual(ours.alpha_) == pytest.approx(p.dual(beta), rel=1e-6)
    assert ours.intercept_[0] == pytest.approx(ref.intercept_[0], abs=1e-4)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(ref.support_))
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)
    assert ours.support_vectors_.shape == (len(ours.support_), X.shape[1])
    assert ours.score(X, z) == pytest.approx(r2_score(z, ours.predict(X)), rel=1e-12)
