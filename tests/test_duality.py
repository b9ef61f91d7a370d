"""The problem core (svmlab.SVMProblem, svmlab.objective) against independent references.

References: plain NumPy formulas written out below, scikit-learn's LinearSVC (LIBLINEAR) and
SVC (LIBSVM) solved at a tight tolerance. LinearSVC returns only w, so the dual variables are
recovered from it through the optimality conditions of chapter 2 (eqs. 2.6 and 2.12):
alpha_i = 2 C xi_i for the squared hinge; for the hinge alpha_i = C where y_i f_i < 1, 0 where
y_i f_i > 1, and the few margin vectors (y_i f_i = 1) take the values that make
w = sum_i alpha_i y_i x_i hold.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC, LinearSVC

from svmlab import SVMProblem, datasets
from svmlab import objective as obj

LOSSES = ("hinge", "squared_hinge")
CS = (0.1, 1.0, 10.0)


@pytest.fixture(scope="module")
def toy():
    return datasets.make_toy(200, random_state=0)


# ------------------------------------------------------------------ plain NumPy references

def augment(X, B):
    """[X, B] (the bias by augmentation), or X itself when B = 0."""
    return np.column_stack([X, np.full(X.shape[0], B)]) if B else X


def primal_numpy(X, y, w, b, C, loss, B):
    """1/2 |w|^2 [+ 1/2 (b/B)^2] + C sum_i loss(y_i (w.x_i + b)), B = 0 meaning no bias."""
    xi = np.maximum(0.0, 1.0 - y * (X @ w + b))
    reg = w @ w + ((b / B) ** 2 if B else 0.0)
    return 0.5 * reg + C * np.sum(xi if loss == "hinge" else xi ** 2)


def dual_numpy(X, y, alpha, C, loss, B):
    """e'alpha - 1/2 alpha' (Q + D) alpha with Q_ij = y_i y_j [x_i, B].[x_j, B]."""
    Xa = augment(X, B)
    Q = (y[:, None] * Xa) @ (y[:, None] * Xa).T
    d = 0.0 if loss == "hinge" else 1.0 / (2.0 * C)
    return alpha.sum() - 0.5 * alpha @ Q @ alpha - 0.5 * d * alpha @ alpha


def tight_linear_svc(X, y, C, loss, fit_intercept):
    """LIBLINEAR run to 1e-12 (its dual solver for the hinge, its primal Newton solver for the
    squared hinge, which reaches that tolerance in a few steps); returns (w, b)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # must converge, or the reference is not a reference
        ref = LinearSVC(C=C, loss=loss, dual=loss == "hinge", tol=1e-12, max_iter=1_000_000,
                        fit_intercept=fit_intercept, random_state=0).fit(X, y)
    return ref.coef_[0], float(np.ravel(ref.intercept_)[0])


def alpha_from_primal(X, y, w, b, C, loss, B):
    """The dual solution implied by a primal solution (see the module docstring)."""
    Xa = augment(X, B)
    wa = np.append(w, b / B) if B else w
    m = y * (Xa @ wa)
    if loss == "squared_hinge":
        return 2.0 * C * np.maximum(0.0, 1.0 - m)
    alpha = np.where(m < 1.0, C, 0.0)
    on_margin = np.abs(m - 1.0) < 1e-7
    alpha[on_margin] = 0.0
    rest = wa - Xa.T @ (alpha * y)
    alpha[on_margin] = np.linalg.lstsq((Xa[on_margin] * y[on_margin, None]).T, rest, rcond=None)[0]
    return alpha


def svc_alpha(X, y, C):
    """LIBSVM's dual solution with a free bias: alpha (n,) and b."""
    svc = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    assert np.array_equal(np.sign(svc.dual_coef_[0]), y[svc.support_])  # dual_coef_ = alpha y
    return alpha, float(svc.intercept_[0]), svc.coef_[0]


def lagrangian_projected_gradient(problem, alpha, b):
    """PG of the dual with the free bias's multiplier b: what is left of G_i + y_i b in the box."""
    G = problem.gradient(alpha) + b * problem.y
    return np.array([obj.projected(a, g, u) for a, g, u in zip(alpha, G, problem.upper)])


# ------------------------------------------------------------------ (a) primal and dual at the optimum

@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_primal_matches_the_numpy_formula_at_liblinear_solution(toy, loss, fit_intercept):
    X, y = toy
    for C in CS:
        w, b = tight_linear_svc(X, y, C, loss, fit_intercept)
        B = 1.0 if fit_intercept else 0.0
        problem = SVMProblem(X, y, C=C, loss=loss, bias="regularized" if fit_intercept else "none")
        assert problem.primal(w, b) == pytest.approx(primal_numpy(X, y, w, b, C, loss, B), rel=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
def test_strong_duality_at_liblinear_solution(toy, loss, fit_intercept):
    """P(w*) = D(alpha*), w(alpha*) = w*, PG(alpha*) = 0, with alpha* recovered from w*."""
    X, y = toy
    B = 1.0 if fit_intercept else 0.0
    for C in CS:
        w, b = tight_linear_svc(X, y, C, loss, fit_intercept)
        alpha = alpha_from_primal(X, y, w, b, C, loss, B)
        problem = SVMProblem(X, y, C=C, loss=loss, bias="regularized" if fit_intercept else "none")
        assert alpha.min() >= -1e-9 and (loss == "squared_hinge" or alpha.max() <= C + 1e-9)
        P, D = problem.primal(w, b), problem.dual(alpha)
        assert D == pytest.approx(dual_numpy(X, y, alpha, C, loss, B), rel=1e-12)
        assert abs(P - D) <= 1e-9 * P
        w_alpha, b_alpha = problem.w_from_alpha(alpha)
        np.testing.assert_allclose(w_alpha, w, rtol=1e-7, atol=1e-9)
        assert b_alpha == pytest.approx(b, rel=1e-7, abs=1e-9)
        assert np.abs(problem.projected_gradient(alpha)).max() <= 1e-7
        assert problem.kkt_violation(alpha) <= 1e-7


@pytest.mark.parametrize("C", CS)
def test_strong_duality_and_kkt_with_a_free_bias_at_libsvm_solution(toy, C):
    X, y = toy
    alpha, b, coef = svc_alpha(X, y, C)
    problem = SVMProblem(X, y, C=C, bias="free")
    P, D = problem.primal_at(alpha, b), problem.dual(alpha)
    assert P == pytest.approx(problem.primal(coef, b), rel=1e-12)
    assert abs(P - D) <= 1e-6 * P
    assert abs(alpha @ y) <= 1e-10 * C  # the balance of forces
    np.testing.assert_allclose(problem.w_from_alpha(alpha)[0], coef, rtol=1e-10)  # of torques
    # LIBSVM caches Q in single precision (svm.cpp: typedef float Qfloat), so its gradient,
    # and with it the KKT measure and b, hold to about 1e-6 only.
    assert problem.kkt_violation(alpha) <= 2e-5
    assert problem.bias_from_alpha(alpha) == pytest.approx(b, abs=2e-5)


# ------------------------------------------------------------------ (d) the projected gradient

@pytest.mark.parametrize("C", CS)
def test_projected_gradient_vanishes_at_libsvm_solution(toy, C):
    X, y = toy
    alpha, b, _ = svc_alpha(X, y, C)
    problem = SVMProblem(X, y, C=C, bias="free")
    assert np.abs(lagrangian_projected_gradient(problem, alpha, b)).max() <= 2e-5
    # complementary slackness, coordinate by coordinate
    m = problem.y * (problem.X @ problem.w_from_alpha(alpha)[0] + b)
    assert np.all(m[alpha == 0.0] >= 1 - 2e-5)
    assert np.all(np.abs(m[(alpha > 0) & (alpha < C)] - 1.0) <= 2e-5)
    assert np.all(m[alpha == C] <= 1 + 2e-5)


@pytest.mark.parametrize("loss", LOSSES)
def test_projected_gradient_and_gap_are_positive_away_from_the_optimum(toy, loss):
    X, y = toy
    C = 1.0
    w, _ = tight_linear_svc(X, y, C, loss, False)
    alpha = alpha_from_primal(X, y, w, 0.0, C, loss, 0.0)
    problem = SVMProblem(X, y, C=C, loss=loss)
    moved = alpha.copy()
    i = int(np.argmax(alpha))
    moved[i] *= 0.5  # still feasible
    assert problem.gap(moved) > 1e-6
    assert problem.projected_gradient(moved)[i] < -1e-6  # raising alpha_i would help
    assert problem.kkt_violation(moved) > 1e-6


# ------------------------------------------------------------------ (b) dense and CSR agree

def _random_problem_data(seed, n=40, d=15):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.3)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return X, y, rng


@pytest.mark.parametrize("kernel", [None, "rbf"])
@pytest.mark.parametrize("bias", ["none", "regularized", "free"])
@pytest.mark.parametrize("loss", LOSSES)
def test_dense_and_csr_give_the_same_values(loss, bias, kernel):
    X, y, rng = _random_problem_data(1)
    C = rng.uniform(0.5, 2.0, len(y))  # per-sample C_i
    dense = SVMProblem(X, y, C=C, loss=loss, bias=bias, intercept_scaling=2.0, kernel=kernel)
    sparse = SVMProblem(sp.csr_matrix(X), y, C=C, loss=loss, bias=bias, intercept_scaling=2.0, kernel=kernel)
    alpha = rng.uniform(0.0, 1.0, len(y)) * C
    alpha[::4] = 0.0
    if loss == "hinge":
        alpha[1::7] = C[1::7]
    for method in ("dual", "gap", "gradient", "projected_gradient", "kkt_violation", "bias_from_alpha",
                   "margins", "primal_at"):
        np.testing.assert_allclose(getattr(sparse, method)(alpha), getattr(dense, method)(alpha),
                                   rtol=1e-12, atol=1e-12, err_msg=method)
    if kernel is None:
        w = rng.standard_normal(X.shape[1])
        assert sparse.primal(w, 0.3) == pytest.approx(dense.primal(w, 0.3), rel=1e-12)
        for a, b in zip(sparse.w_from_alpha(alpha), dense.w_from_alpha(alpha)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ (c) weak duality

def _feasible_alpha(rng, y, C, loss, free):
    """A random dual-feasible alpha (sum_i y_i alpha_i = 0 as well, when the bias is free)."""
    top = C if loss == "hinge" else 3.0 * C
    alpha = rng.uniform(0.0, 1.0, len(y)) * top * (rng.random(len(y)) < 0.6)
    if free:  # shrink the class with the larger total until both totals agree
        pos, neg = alpha[y > 0].sum(), alpha[y < 0].sum()
        alpha[y > 0 if pos > neg else y < 0] *= min(pos, neg) / max(pos, neg)
    return alpha


@pytest.mark.parametrize("kernel", [None, "poly"])
@pytest.mark.parametrize("bias", ["none", "regularized", "free"])
@pytest.mark.parametrize("loss", LOSSES)
def test_weak_duality_for_random_feasible_points(loss, bias, kernel):
    X, y, rng = _random_problem_data(2, n=30, d=4)
    for _ in range(30):
        C = float(rng.choice([0.01, 1.0, 100.0]))
        problem = SVMProblem(X, y, C=C, loss=loss, bias=bias, intercept_scaling=0.5, kernel=kernel,
                             degree=2, coef0=1.0)
        alpha = _feasible_alpha(rng, y, C, loss, bias == "free")
        b = rng.normal(0.0, 2.0)
        if kernel is None:
            P = problem.primal(rng.normal(0.0, 2.0, X.shape[1]), b)
        else:  # a w in the span of the data: w(beta) for any beta
            P = problem.primal_at(rng.uniform(0.0, 2.0 * C, len(y)), b)
        D = problem.dual(alpha)
        assert D <= P + 1e-10 * abs(P)
        assert problem.gap(alpha) >= -1e-10 * abs(D)  # P(w(alpha), b(alpha)) >= D(alpha)


def test_l2_dual_with_diagonal_one_over_c_belongs_to_half_the_penalty(toy):
    """Seed 000's slip: the diagonal 1/C is the dual of C/2 sum xi^2 (its eq. 3), not of
    C sum xi^2 (its eq. 2, what LIBLINEAR solves, whose diagonal is 1/(2C))."""
    X, y = toy
    C = 1.0
    w, _ = tight_linear_svc(X, y, C, "squared_hinge", False)
    alpha = alpha_from_primal(X, y, w, 0.0, C, "squared_hinge", 0.0)
    right = SVMProblem(X, y, C=C, loss="squared_hinge")
    wrong = SVMProblem(X, y, C=C / 2, loss="squared_hinge")  # D_ii = 1 / (2 (C/2)) = 1/C
    P = right.primal(w)
    assert right.dual(alpha) == pytest.approx(P, rel=1e-9)
    assert P - wrong.dual(alpha) > 1e-3 * P
    w_half, _ = tight_linear_svc(X, y, C / 2, "squared_hinge", False)
    alpha_half = alpha_from_primal(X, y, w_half, 0.0, C / 2, "squared_hinge", 0.0)
    assert wrong.dual(alpha_half) == pytest.approx(primal_numpy(X, y, w_half, 0.0, C / 2, "squared_hinge", 0.0),
                                                   rel=1e-9)
