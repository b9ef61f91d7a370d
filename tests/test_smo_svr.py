"""SMO for epsilon-SVR (LIBSVM's 2n-variable dual through the Q-matrix interface): parity with
scikit-learn's SVR, the certificate of its trace, the unchanged classification."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.svm import SVR

import svmlab
from svmlab import regression as reg
from svmlab.kernels import kernel_matrix, make_kernel
from svmlab.solvers import KERNEL_REGRESSION, KernelRegressionProblem, options, slices, starter
from svmlab.solvers.coordinate import Stop
from svmlab.trace import Recorder


def _scaled(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _sine():
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(0.0, 6.0, (80, 1)), axis=0)
    return X, np.sin(X[:, 0]) + 0.2 * rng.normal(size=80)


def _diabetes():
    X, z = load_diabetes(return_X_y=True)
    return _scaled(X[:250]), (z[:250] - z[:250].mean()) / z[:250].std()


def _friedman():
    X, z = make_friedman1(150, 6, noise=0.5, random_state=2)
    return _scaled(X), z


DATA = {"sine": _sine, "diabetes": _diabetes, "friedman": _friedman}


def _dual(X, kernel, z, beta, C, epsilon):
    """D(beta) of the SVR dual (svmlab.regression), with beta'K beta from the kernel matrix."""
    wnorm2 = beta @ kernel_matrix(kernel, X, X) @ beta
    return reg.dual_value(beta, wnorm2, z, np.full(len(z), C), epsilon, reg.EPSILON_INSENSITIVE)


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("C, epsilon", [(1.0, 0.1), (10.0, 0.3)])
def test_parity_with_libsvm_svr(data, C, epsilon):
    """Dual within 1e-6 relative of SVR's, intercept within 1e-4, the same support set."""
    X, z = DATA[data]()
    kernel = make_kernel("rbf", X)
    start = starter(KERNEL_REGRESSION, "smo")
    checked = options(KERNEL_REGRESSION, "smo", {"shrinking": True, "cache_size": 200, "n_jobs": None})
    buf = Recorder(0, 1000, len(z), 0).buffers
    problem = KernelRegressionProblem(X, kernel, z, np.full(len(z), C), epsilon)
    result = slices.run(start(problem, Stop(1e-8, 1000), buf, np.random.default_rng(0), **checked)).result()
    svr = SVR(C=C, epsilon=epsilon, gamma=kernel.gamma, tol=1e-8).fit(X, z)
    beta_svr = np.zeros(len(z))
    beta_svr[svr.support_] = svr.dual_coef_[0]
    assert result.converged
    d, d_svr = _dual(X, kernel, z, result.alpha, C, epsilon), _dual(X, kernel, z, beta_svr, C, epsilon)
    assert d == pytest.approx(d_svr, rel=1e-6)
    assert result.b == pytest.approx(svr.intercept_[0], abs=1e-4)
    np.testing.assert_array_equal(np.flatnonzero(result.alpha), svr.support_)
    assert abs(result.alpha.sum()) < 1e-10  # the equality constraint sum beta = 0
    assert np.all(np.abs(result.alpha) <= C)


@pytest.mark.parametrize("shrinking", [True, False])
def test_trace_certifies_the_svr_solution(shrinking):
    """The trace rows (svmlab.regression's primal, dual, KKT) end at a gap and violation near
    zero, and the dual never decreases much between records (SMO decreases f every step)."""
    X, z = _sine()
    model = svmlab.KernelSVR(C=10.0, epsilon=0.1, tol=1e-8, shrinking=shrinking, trace=20).fit(X, z)
    tr = model.trace_
    assert len(tr) > 3
    assert tr.kkt[-1] < 1e-6 and 0.0 <= tr.gap[-1] < 1e-6 * abs(tr.primal[-1])
    assert np.all(np.diff(tr.dual) > -1e-9)
    np.testing.assert_allclose(tr.snapshot_alpha[-1], model.alpha_)


def test_shrinking_and_cache_size_change_the_work_not_the_result():
    """Without shrinking, and with a cache too small for Q, the same solution."""
    X, z = _diabetes()
    fits = [svmlab.KernelSVR(C=3.0, tol=1e-8, shrinking=s, cache_size=c).fit(X, z)
            for s, c in ((True, 200), (False, 200), (True, 0.1))]
    for fit, atol in zip(fits[1:], (1e-6, 1e-4)):  # a 0.1 MB cache holds Q in float32
        np.testing.assert_allclose(fit.alpha_, fits[0].alpha_, atol=atol)
        assert fit.intercept_[0] == pytest.approx(fits[0].intercept_[0], abs=atol)
