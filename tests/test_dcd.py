"""Chapters 3-4: dual coordinate descent with shrinking, against LIBLINEAR and the reference."""

import functools
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

import svmlab
from svmlab import datasets
from svmlab.validation import sample_C
from svmlab.reference import dcd as ref

TIGHT = dict(tol=1e-9, max_iter=200_000)
LOSSES = ("hinge", "squared_hinge")


@functools.cache
def data(name):
    if name == "toy":
        return datasets.make_toy(200, random_state=3)
    if name == "cancer":
        return datasets.load_breast_cancer()
    if name == "digits":
        return datasets.load_digits_1v7()
    return datasets.make_random(300, 20, random_state=1)


def problem(X, y, loss, C=1.0, B=0.0, class_weight=None):
    Ci = sample_C(C, class_weight, np.array([-1.0, 1.0]), y)
    return svmlab.SVMProblem(X, y, Ci, loss, "regularized" if B else "none", B or 1.0)


@functools.cache
def liblinear_primal(name, loss, B, C=1.0, class_weight=None):
    """The optimum from scikit-learn's LIBLINEAR, run tight. (Below tol ~ 1e-11 LIBLINEAR can
    stall on a shrunk set whose PG spread never falls under tol: steps below 1e-12 are skipped.)"""
    X, y = data(name)
    weights = dict(class_weight) if class_weight else None
    model = LinearSVC(loss=loss, C=C, dual=True, tol=1e-10, max_iter=1_000_000, random_state=0,
                      class_weight=weights, fit_intercept=B > 0, intercept_scaling=B or 1.0).fit(X, y)
    return problem(X, y, loss, C, B, weights).primal(model.coef_, model.intercept_)


def fit(X, y, **params):
    params = {"solver": "dcd", "random_state": 0, **params}
    return svmlab.LinearSVM(**params).fit(X, y)


def primal(model, X, y, loss, B, **kw):
    return problem(X, y, loss, B=B, **kw).primal(model.coef_, model.intercept_)


@pytest.mark.parametrize("name", ["toy", "cancer", "digits", "random"])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("B", [0.0, 1.0])
def test_objective_equals_liblinear(name, loss, B):
    X, y = data(name)
    reference = liblinear_primal(name, loss, B)
    for shrinking in (True, False):
        for Xs in (X, sp.csr_matrix(X)):
            model = fit(Xs, y, loss=loss, shrinking=shrinking, fit_intercept=B > 0, intercept_scaling=B or 1.0,
                        **TIGHT)
            assert primal(model, X, y, loss, B) == pytest.approx(reference, rel=1e-6)


@pytest.mark.parametrize("class_weight", [((-1.0, 3.0), (1.0, 0.5)), ((1.0, 4.0),)])
@pytest.mark.parametrize("loss", LOSSES)
def test_class_weights_equal_liblinear(class_weight, loss):
    X, y = data("cancer")
    weights = dict(class_weight)
    model = fit(X, y, loss=loss, class_weight=weights, C=0.5, **TIGHT)
    expected = liblinear_primal("cancer", loss, 1.0, 0.5, class_weight)
    assert problem(X, y, loss, 0.5, 1.0, weights).primal(model.coef_, model.intercept_) == pytest.approx(
        expected, rel=1e-6)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("shrinking", [True, False])
def test_kkt_and_w_at_solution(loss, shrinking):
    X, y = data("digits")
    tol = 1e-3
    model = fit(X, y, loss=loss, C=10.0, tol=tol, shrinking=shrinking)
    prob = problem(X, y, loss, C=10.0, B=1.0)
    assert prob.kkt_violation(model.alpha_) <= tol
    assert (model.alpha_ >= 0).all() and (loss != "hinge" or (model.alpha_ <= 10.0).all())
    w, b = prob.w_from_alpha(model.alpha_)  # the w kept up to date equals w(alpha)
    np.testing.assert_allclose(model.coef_[0], w, atol=1e-10)
    assert model.intercept_[0] == pytest.approx(b, abs=1e-10)
    assert 0.0 <= prob.gap(model.alpha_) <= 1e-2 * prob.primal(model.coef_, model.intercept_)


@pytest.mark.parametrize("loss", LOSSES)
def test_shrinking_on_and_off_reach_the_same_objective(loss):
    X, y = data("cancer")
    on, off = (fit(X, y, loss=loss, C=2.0, shrinking=s, **TIGHT) for s in (True, False))
    assert primal(on, X, y, loss, 1.0) == pytest.approx(primal(off, X, y, loss, 1.0), rel=1e-9)


def test_same_random_state_is_bitwise_reproducible():
    X, y = data("random")
    for order in ("permutation", "random"):
        a, b = (fit(X, y, order=order, random_state=7, max_iter=20_000) for _ in range(2))
        assert a.n_iter_ == b.n_iter_
        assert np.array_equal(a.alpha_, b.alpha_) and np.array_equal(a.coef_, b.coef_)
    seeds = [fit(X, y, random_state=s, max_iter=20_000).alpha_ for s in (1, 2)]
    assert not np.array_equal(*seeds)  # the seed does change the order


@pytest.mark.parametrize("order", ["permutation", "cyclic", "random"])
def test_every_order_reaches_the_optimum(order):
    X, y = data("cancer")
    model = fit(X, y, order=order, **TIGHT)
    assert primal(model, X, y, "hinge", 1.0) == pytest.approx(liblinear_primal("cancer", "hinge", 1.0), rel=1e-6)


@pytest.mark.parametrize("order", ["permutation", "random"])
def test_csr_equals_dense(order):
    X, y = data("digits")  # many zero pixels
    dense, csr = (fit(Xs, y, order=order, C=10.0, tol=1e-4) for Xs in (X, sp.csr_matrix(X)))
    assert dense.n_iter_ == csr.n_iter_
    np.testing.assert_allclose(csr.alpha_, dense.alpha_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(csr.coef_, dense.coef_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("B", [0.0, 2.0])
@pytest.mark.parametrize("stopping", ["pg", "dw"])
def test_kernel_takes_the_steps_of_the_reference(loss, B, stopping):
    X, y = data("random")
    X, y = X[:80, :7], y[:80]  # 7 features: the kernel's four running sums, then three products after them
    Ci = np.where(y > 0, 2.0, 0.5)
    model = svmlab.LinearSVM(loss=loss, C=1.0, class_weight={1.0: 2.0, -1.0: 0.5}, order="cyclic",
                             shrinking=False, stopping=stopping, tol=1e-4, fit_intercept=B > 0,
                             intercept_scaling=B or 1.0, max_iter=20_000).fit(X, y)
    alpha, w, epochs, converged = ref.dcd(X, y, Ci, loss, B, 1e-4, 20_000, "cyclic", stopping=stopping)
    assert converged and model.n_iter_ == epochs
    np.testing.assert_array_equal(model.alpha_, alpha)  # the same additions in the same order
    np.testing.assert_array_equal(model.coef_[0], w[:7])


def test_kernel_columns_compiled_first_leave_dcd_bit_for_bit(tmp_path):
    """numba compiles an overload such as rows.row_dot once, with the flags of its first caller.
    So, with an empty numba cache, a kernel column computed before any DCD fit must leave DCD
    adding in the reference's order (a fastmath caller would not)."""
    code = ("import numpy as np\n"
            "from svmlab import datasets\n"
            "from svmlab.kernel_rows import column, prepare\n"
            "from svmlab.kernels import make_kernel\n"
            "X, y = datasets.make_toy(20, random_state=0)\n"
            "column(prepare(X, make_kernel('rbf', X)), 0, np.arange(20), 0, 20, np.zeros(2), np.empty(20))\n"
            "from tests.test_dcd import test_kernel_takes_the_steps_of_the_reference as check\n"
            "check('hinge', 0.0, 'pg')\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    root = pathlib.Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_dw_rule_stops_when_w_stops_moving():
    X, y = data("cancer")
    tol = 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("error", svmlab.ConvergenceWarning)
        model = fit(X, y, stopping="dw", tol=tol, trace=True)
    dw = model.trace_.dw_norm
    assert dw[-1] < tol and model.trace_.n_active[-1] == len(y)
    assert primal(model, X, y, "hinge", 1.0) == pytest.approx(liblinear_primal("cancer", "hinge", 1.0), rel=1e-3)


def test_max_iter_warns():
    X, y = data("toy")
    with pytest.warns(svmlab.ConvergenceWarning, match="max_iter=3"):
        model = fit(X, y, max_iter=3, tol=1e-8)
    assert model.n_iter_ == 3


@pytest.mark.parametrize("loss", LOSSES)
def test_trace_per_pass(loss):
    X, y = data("digits")
    model = fit(X, y, loss=loss, C=10.0, tol=1e-4, trace=True)
    tr = model.trace_
    assert list(tr.epoch) == list(range(model.n_iter_ + 1))
    assert (tr.gap >= -1e-9 * tr.primal).all() and tr.gap[-1] < tr.gap[0]
    assert tr.n_active[-1] == len(y) and tr.n_active.min() < len(y)  # shrinking, then the final full pass
    assert (np.diff(tr.time) >= 0).all()
    assert 2 <= len(tr.snapshot_epoch) <= svmlab.trace.MAX_SNAPSHOTS and tr.snapshot_epoch[-1] == model.n_iter_
    np.testing.assert_array_equal(tr.snapshot_alpha[-1], model.alpha_)
    prob = problem(X, y, loss, C=10.0, B=1.0)
    assert tr.primal[-1] == pytest.approx(prob.primal(model.coef_, model.intercept_), rel=1e-12)
    assert tr.dual[-1] == pytest.approx(prob.dual(model.alpha_), rel=1e-9)
    assert tr.kkt[-1] == pytest.approx(prob.kkt_violation(model.alpha_), rel=1e-6, abs=1e-12)
    assert fit(X, y, loss=loss, C=10.0, tol=1e-4).trace_ is None


def test_default_solver_and_inputs_untouched():
    X, y = data("random")
    X_csr = sp.csr_matrix(X)
    copies = X.copy(), y.copy(), X_csr.copy()
    model = svmlab.LinearSVM(random_state=0).fit(X, y)
    svmlab.LinearSVM(random_state=0).fit(X_csr, y)
    assert model.solver == "dcd"
    assert np.array_equal(X, copies[0]) and np.array_equal(y, copies[1])
    assert (X_csr != copies[2]).nnz == 0


@pytest.mark.parametrize("param, value, words", [
    ("order", "shuffled", "order='shuffled' is not supported; accepted: 'permutation', 'cyclic', 'random'"),
    ("stopping", "gap", "stopping='gap' is not supported; accepted: 'pg', 'dw'"),
    ("shrinking", "yes", "shrinking must be True or False"),
])
def test_bad_options_are_named(param, value, words):
    X, y = data("toy")
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        svmlab.LinearSVM(**{param: value}).fit(X, y)


def test_shrinking_unshrinks_when_no_step_is_left_to_take():
    """A tol below what the steps can reach (LIBLINEAR steps only where |PG_i| > 1e-12): the
    shrunk problem stops moving before its M - m reaches tol, and only an unshrink lets the
    variables shrunk too early come back. Without it the run sat on 11 variables for 2900
    epochs at a relative gap of 1.5e-3."""
    X, y = datasets.load_breast_cancer()
    problem = svmlab.SVMProblem(X, np.where(y > 0, 1.0, -1.0), C=0.1, bias="regularized")
    with pytest.warns(svmlab.ConvergenceWarning):
        model = svmlab.LinearSVM(C=0.1, tol=1e-12, max_iter=3000, shrinking=True, random_state=0).fit(X, y)
    alpha = model.alpha_.ravel()
    primal = problem.primal(model.coef_[0], model.intercept_[0])
    assert (primal - problem.dual(alpha)) / primal <= 1e-10
    assert problem.kkt_violation(alpha) <= 1e-10
