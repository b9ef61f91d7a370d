"""The one definition of the problem (svmlab.objective, SVMProblem) against readable NumPy."""

import numpy as np
import pytest
import scipy.sparse as sp

import svmlab
from svmlab import objective as obj
from svmlab.reference import core as ref


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    X[rng.random(X.shape) < 0.4] = 0.0  # some zeros, so CSR is really sparse
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    C = rng.uniform(0.5, 2.0, size=40)
    return X, y, C


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("bias", ["none", "regularized"])
def test_primal_and_dual_equal_the_readable_formulas(data, loss, bias):
    X, y, C = data
    B = 2.0 if bias == "regularized" else 0.0
    rng = np.random.default_rng(1)
    w, b = rng.normal(size=5), (0.7 if B else 0.0)
    alpha = rng.uniform(0, 1, size=40) * C
    prob = svmlab.SVMProblem(X, y, C=C, loss=loss, bias=bias, intercept_scaling=B or 1.0)
    assert prob.primal(w, b) == pytest.approx(ref.primal(X, y, C, loss, w, b, B), rel=1e-13)
    assert prob.dual(alpha) == pytest.approx(ref.dual(X, y, C, loss, alpha, B), rel=1e-13)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_weak_duality_and_gap_identity(data, loss):
    X, y, C = data
    prob = svmlab.SVMProblem(X, y, C=C, loss=loss, bias="regularized")
    rng = np.random.default_rng(2)
    for _ in range(20):
        alpha = rng.uniform(0, 1, size=40) * C  # feasible for both losses
        w, b = prob.w_from_alpha(alpha)
        assert prob.dual(alpha) <= prob.primal(rng.normal(size=5), rng.normal())
        assert prob.gap(alpha) == pytest.approx(prob.primal(w, b) - prob.dual(alpha), rel=1e-12)
        assert prob.gap(alpha) >= 0.0


def test_gradient_projected_gradient_and_bias_rule(data):
    X, y, C = data
    rng = np.random.default_rng(3)
    alpha = np.where(rng.random(40) < 0.3, 0.0, np.where(rng.random(40) < 0.5, C, rng.uniform(0, 1, 40) * C))
    prob = svmlab.SVMProblem(X, y, C=C, loss="hinge", bias="free")
    Q = prob.Q()
    G = Q @ alpha - 1.0
    np.testing.assert_allclose(prob.gradient(alpha), G, rtol=1e-12, atol=1e-12)
    b = ref.libsvm_bias(alpha, G, C, y)
    assert prob.bias_from_alpha(alpha) == pytest.approx(b, rel=1e-12)
    # with a free bias the projected gradient is that of the Lagrangian, G + y b
    np.testing.assert_allclose(prob.projected_gradient(alpha), ref.projected_gradient(alpha, G + y * b, C),
                               atol=1e-12)
    np.testing.assert_allclose(prob.projected_gradient(alpha, b=0.0), ref.projected_gradient(alpha, G, C), atol=1e-12)
    # with no free variable the rule takes the midpoint of the interval the bounds leave
    at_bounds = np.where(alpha > 0, C, 0.0)
    G = Q @ at_bounds - 1.0
    assert prob.bias_from_alpha(at_bounds) == pytest.approx(ref.libsvm_bias(at_bounds, G, C, y), rel=1e-12)


def test_kkt_violation_is_max_projected_gradient_without_free_bias(data):
    X, y, C = data
    prob = svmlab.SVMProblem(X, y, C=C, loss="squared_hinge", bias="none")
    alpha = np.random.default_rng(4).uniform(0, 2, 40)
    alpha[:10] = 0.0
    assert prob.kkt_violation(alpha) == pytest.approx(np.abs(prob.projected_gradient(alpha)).max(), rel=1e-14)


def test_free_bias_violation_counts_the_equality_constraint(data):
    X, y, C = data
    prob = svmlab.SVMProblem(X, y, C=C, loss="hinge", bias="free")
    alpha = np.zeros(40)
    alpha[np.flatnonzero(y > 0)[:2]] = 0.5  # sum y alpha = 1
    G = prob.gradient(alpha)
    up = [-y[i] * G[i] for i in range(40) if (y[i] > 0 and alpha[i] < C[i]) or (y[i] < 0 and alpha[i] > 0)]
    low = [-y[i] * G[i] for i in range(40) if (y[i] > 0 and alpha[i] > 0) or (y[i] < 0 and alpha[i] < C[i])]
    assert prob.kkt_violation(alpha) == pytest.approx(max(max(up) - min(low), 0) + 1.0, rel=1e-12)


@pytest.mark.parametrize("kernel", [None, "linear", "rbf", "poly"])
def test_dense_and_csr_give_the_same_numbers(data, kernel):
    X, y, C = data
    alpha = np.random.default_rng(5).uniform(0, 1, 40) * C
    dense = svmlab.SVMProblem(X, y, C=C, bias="free", kernel=kernel, coef0=1.0)
    sparse = svmlab.SVMProblem(sp.csr_matrix(X), y, C=C, bias="free", kernel=kernel, coef0=1.0)
    for name in ("dual", "gap", "kkt_violation", "bias_from_alpha"):
        assert getattr(dense, name)(alpha) == pytest.approx(getattr(sparse, name)(alpha), rel=1e-12), name


def test_linear_kernel_equals_explicit_features(data):
    X, y, C = data
    alpha = np.random.default_rng(6).uniform(0, 1, 40) * C
    explicit = svmlab.SVMProblem(X, y, C=C, bias="regularized", intercept_scaling=1.5)
    kernel = svmlab.SVMProblem(X, y, C=C, bias="regularized", intercept_scaling=1.5, kernel="linear")
    assert explicit.dual(alpha) == pytest.approx(kernel.dual(alpha), rel=1e-12)
    assert explicit.gap(alpha) == pytest.approx(kernel.gap(alpha), rel=1e-12)


def test_gamma_scale_matches_scikit_learn(data):
    from sklearn.svm import SVC

    X, y, _ = data
    prob = svmlab.SVMProblem(X * 3.0, y, kernel="rbf")
    fitted = SVC(kernel="rbf", gamma="scale").fit(X * 3.0, y)
    assert prob.kernel.gamma == pytest.approx(fitted._gamma, rel=1e-12)


def test_loss_and_bounds_scalars():
    assert obj.loss(0.25, obj.HINGE) == 0.75
    assert obj.loss(0.25, obj.SQUARED_HINGE) == 0.5625
    assert obj.loss(1.5, obj.HINGE) == 0.0
    assert obj.upper(2.0, obj.HINGE) == 2.0 and obj.upper(2.0, obj.SQUARED_HINGE) == np.inf
    assert obj.diag(2.0, obj.HINGE) == 0.0 and obj.diag(2.0, obj.SQUARED_HINGE) == 0.25


def test_problem_rejects_bad_input(data):
    X, y, C = data
    with pytest.raises(ValueError, match="bias"):
        svmlab.SVMProblem(X, y, bias="sometimes")
    with pytest.raises(ValueError, match="-1, \\+1"):
        svmlab.SVMProblem(X, (y > 0).astype(float))
    with pytest.raises(ValueError, match="one label"):  # a scalar is not a label per row, even of one row
        svmlab.SVMProblem(X[:1], 1.0)
    with pytest.raises(ValueError, match="one finite target"):
        svmlab.SVRProblem(X[:1], 0.5)
    with pytest.raises(ValueError, match="C must be positive"):
        svmlab.SVMProblem(X, y, C=-1.0)
    with pytest.raises(ValueError, match="alpha must have one entry per sample"):
        svmlab.SVMProblem(X, y).dual(np.zeros(3))
    with pytest.raises(ValueError, match="kernel"):
        svmlab.SVMProblem(X, y, kernel="rbf").primal(np.zeros(5))
