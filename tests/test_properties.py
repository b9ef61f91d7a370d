"""Properties over small random problems, for every solver (hypothesis, a bounded budget).

Always: predictions are the sign of the decision function, and the primal at the returned w
is never below the dual at the returned alpha (weak duality; for every solver whose alpha is
dual-feasible). When a solver reports convergence, what its ``tol`` certifies holds at the
returned point: the relative duality gap (subgradient, SDCA) or the KKT violation
(projected gradient on the dual, SMO). Dual coordinate descent's rule bounds the projected
gradients seen during its last pass, not at the returned point, as LIBLINEAR's does, so only
the always-properties apply to it (its KKT accuracy is tested against LIBLINEAR elsewhere).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import svmlab
from svmlab import solvers

CERTIFIES = {("linear", "subgradient"): "gap", ("linear", "sdca"): "gap", ("linear", "dual_gradient"): "kkt",
             ("kernel", "dual_gradient"): "kkt", ("kernel", "smo"): "kkt"}
NOT_DUAL_FEASIBLE = {("linear", "pegasos")}  # its alpha may leave [0, C]: no bound on P*


@st.composite
def problems(draw):
    n = draw(st.integers(4, 24))
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.where(np.arange(n) < max(1, n // 3), 1.0, -1.0))
    X = rng.normal(size=(n, d)) + draw(st.floats(0.0, 2.0)) * y[:, None]
    C = 10.0 ** draw(st.floats(-2, 2))
    loss = draw(st.sampled_from(["hinge", "squared_hinge"]))
    return X, y, C, loss


def configurations():
    for name in solvers.LINEAR:
        yield "linear", name
    for name in solvers.KERNEL:
        yield "kernel", name


def fit(kind, name, X, y, C, loss, tol):
    if kind == "linear":
        model = svmlab.LinearSVM(solver=name, C=C, loss=loss, tol=tol, max_iter=3000, random_state=0)
        bias = {"bias": "regularized"}
    else:
        model = svmlab.KernelSVM(solver=name, kernel="rbf", gamma=0.5, C=C, loss=loss, tol=tol, max_iter=3000,
                                 fit_intercept=name != "dcd", random_state=0)
        bias = {"bias": "free" if name != "dcd" else "none", "kernel": "rbf", "gamma": 0.5}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", svmlab.ConvergenceWarning)
        try:
            model.fit(X, y)
        except ValueError as error:  # a solver that does not take this loss says so
            assert "loss" in str(error)
            return None, None, None
    converged = not any(issubclass(w.category, svmlab.ConvergenceWarning) for w in caught)
    return model, svmlab.SVMProblem(X, y, C=C, loss=loss, **bias), converged


@pytest.mark.parametrize("kind, name", list(configurations()))
@settings(max_examples=12, deadline=None, derandomize=True)
@given(problem=problems())
def test_solver_properties(kind, name, problem):
    X, y, C, loss = problem
    tol = 1e-3
    model, prob, converged = fit(kind, name, X, y, C, loss, tol)
    if model is None:
        return
    f = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), np.where(f > 0, 1.0, -1.0))
    alpha = model.alpha_
    P = prob.primal(model.coef_, model.intercept_) if kind == "linear" else prob.primal_at(alpha, model.intercept_[0])
    if (kind, name) not in NOT_DUAL_FEASIBLE:
        assert np.all(alpha >= 0) and (loss == "squared_hinge" or np.all(alpha <= C * (1 + 1e-12)))
        assert P >= prob.dual(alpha) - 1e-9 * abs(P)
    certificate = CERTIFIES.get((kind, name))
    if converged and certificate == "gap":
        assert P - prob.dual(alpha) <= tol * P * (1 + 1e-9)
    if converged and certificate == "kkt":
        assert prob.kkt_violation(alpha) <= tol * (1 + 1e-6) + 1e-12
