"""Estimator conventions (scikit-learn's protocol, our own code) and the validation layer."""

import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import svmlab
import svmlab.solvers
from svmlab import datasets

ESTIMATORS = [svmlab.LinearSVM, svmlab.KernelSVM]


@pytest.fixture(scope="module")
def toy():
    return datasets.make_toy(120, random_state=7)


def test_import_is_cheap_and_side_effect_free():
    code = ("import sys, svmlab; "
            "assert 'numba' not in sys.modules, 'numba'; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib'; "
            "assert 'sklearn' not in sys.modules, 'sklearn'; "
            "svmlab.LinearSVM; assert 'sklearn' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_numba_cache_can_be_redirected(tmp_path):
    """For a read-only install: NUMBA_CACHE_DIR moves the compiled kernels out of the package."""
    code = ("import numpy as np, svmlab; "
            "X = np.array([[0., 1.], [1., 0.], [2., 2.], [3., 1.]]); "
            "svmlab.LinearSVM(solver='subgradient', max_iter=5, tol=0.5).fit(X, [0, 0, 1, 1])")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=True, env=env)
    assert any(tmp_path.rglob("*subgradient*.nbi")), "the kernel's cache index should be in NUMBA_CACHE_DIR"


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_constructor_stores_parameters_and_set_params_round_trips(Estimator):
    est = Estimator(C=3.0, tol=1e-2)
    params = est.get_params()
    assert params["C"] == 3.0 and params["tol"] == 1e-2
    assert Estimator(**params).get_params() == params
    assert est.set_params(C=0.5) is est and est.C == 0.5
    assert repr(est) == f"{Estimator.__name__}(C=0.5, tol=0.01)"
    with pytest.raises(ValueError, match="has no parameter 'gama'"):
        est.set_params(gama=1.0)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_any_two_labels_and_the_prediction_protocol(Estimator, toy):
    X, y = toy
    labels = np.where(y > 0, "spam", "ham")
    model = Estimator(max_iter=5000).fit(X, labels)
    assert list(model.classes_) == ["ham", "spam"]
    f = model.decision_function(X)
    assert f.shape == (len(y),)
    np.testing.assert_array_equal(model.predict(X), np.where(f > 0, "spam", "ham"))
    assert model.score(X, labels) == pytest.approx(np.mean(model.predict(X) == labels))
    assert model.score(X, labels) > 0.85
    assert model.dual_coef_.shape == (1, len(model.support_))
    np.testing.assert_array_equal(model.support_, np.flatnonzero(model.alpha_ > 0))
    np.testing.assert_allclose(model.dual_coef_[0], (model.alpha_ * y)[model.support_])
    assert isinstance(model.n_iter_, int) and model.n_iter_ >= 1


def test_linear_attributes_are_w_of_alpha(toy):
    X, y = toy
    model = svmlab.LinearSVM(intercept_scaling=2.0, max_iter=5000).fit(X, y)
    assert model.coef_.shape == (1, 2) and model.intercept_.shape == (1,)
    np.testing.assert_allclose(model.coef_[0], model.dual_coef_[0] @ X[model.support_], rtol=1e-10)
    # regularized bias: b = B * (weight of the feature B) = B^2 sum alpha_i y_i
    assert model.intercept_[0] == pytest.approx(4.0 * model.dual_coef_.sum(), rel=1e-10)


def test_kernel_decision_is_the_support_vector_expansion(toy):
    X, y = toy
    model = svmlab.KernelSVM(kernel="rbf", gamma=0.5, max_iter=5000).fit(X, y)
    Z = X[:7] + 0.1
    K = np.exp(-0.5 * ((Z[:, None, :] - model.support_vectors_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(model.decision_function(Z), K @ model.dual_coef_[0] + model.intercept_[0], rtol=1e-10)


@pytest.mark.filterwarnings("ignore::svmlab.ConvergenceWarning")
@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_inputs_are_never_modified(Estimator, toy):
    X, y = toy
    Xf = np.asfortranarray(X)
    Xs = sp.csr_matrix(X)
    copies = (X.copy(), y.copy(), Xf.copy(), Xs.copy())
    Estimator(max_iter=50, tol=1e-1).fit(X, y)
    Estimator(max_iter=50, tol=1e-1).fit(Xf, y)
    Estimator(max_iter=50, tol=1e-1).fit(Xs, y)
    for before, after in zip(copies, (X, y, Xf, Xs)):
        if sp.issparse(before):
            assert (before != after).nnz == 0
        else:
            np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_float32_int_fortran_and_csr_inputs_give_the_same_model(Estimator, toy):
    X, y = toy
    Xr = np.round(X * 4)  # integer-valued, so every dtype below holds it exactly
    reference = Estimator(max_iter=200, tol=1e-12, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        base = reference.fit(Xr, y).alpha_.copy()
        wide = np.repeat(Xr, 2, axis=1)
        rows, cols = np.nonzero(Xr[:, ::-1])  # each row's entries listed last column first
        cols = Xr.shape[1] - 1 - cols
        shuffled = sp.csr_matrix((Xr[rows, cols], cols, np.searchsorted(rows, np.arange(len(Xr) + 1))),
                                 shape=Xr.shape)
        assert not shuffled.has_sorted_indices
        for variant in (Xr.astype(np.float32), Xr.astype(np.int64), np.asfortranarray(Xr), sp.csr_matrix(Xr),
                        Xr.tolist(), wide[:, ::2], shuffled):
            np.testing.assert_allclose(Estimator(max_iter=200, tol=1e-12, random_state=0).fit(variant, y).alpha_, base,
                                       rtol=1e-9, atol=1e-12)


def test_max_iter_warns_and_keeps_a_usable_model(toy):
    X, y = toy
    with pytest.warns(svmlab.ConvergenceWarning, match="max_iter=3"):
        model = svmlab.LinearSVM(solver="subgradient", max_iter=3, tol=1e-12).fit(X, y)
    assert model.n_iter_ == 3 and np.isfinite(model.coef_).all()


def test_class_weight_scales_C_per_class(toy):
    X, y = toy
    weights = {-1.0: 1.0, 1.0: 5.0}
    # a seeded order: the stopping rule reads the projected gradients of the last epoch as it went, and
    # recomputed at the final alpha they exceed tol = 1e-8 in about 1 order in 700 (up to 1.14e-8)
    model = svmlab.LinearSVM(class_weight=weights, C=0.3, max_iter=20000, tol=1e-8, random_state=0).fit(X, y)
    assert np.all(model.alpha_[y > 0] <= 1.5 + 1e-12) and np.all(model.alpha_[y < 0] <= 0.3 + 1e-12)
    prob = svmlab.SVMProblem(X, y, C=np.where(y > 0, 1.5, 0.3), bias="regularized")
    assert prob.kkt_violation(model.alpha_) <= 1e-8
    Xi, yi = X[: 80], np.where(np.arange(80) < 60, -1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model = svmlab.LinearSVM(class_weight="balanced", C=1.0, max_iter=20).fit(Xi, yi)
    assert model.alpha_[yi > 0].max() <= 80 / 40 + 1e-12 and model.alpha_[yi < 0].max() <= 80 / 120 + 1e-12


def test_pickle_round_trip_keeps_predictions(toy):
    X, y = toy
    for model in (svmlab.LinearSVM().fit(X, y), svmlab.KernelSVM(max_iter=5000).fit(X, y)):
        loaded = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))


# -- the validation layer: every bad input gets a ValueError that says what to fix ----------
BAD_FIT_INPUT = [
    ("nan", lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, X), y), "NaN or infinity"),
    ("inf", lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 3, -np.inf, X), y), "NaN or infinity"),
    ("empty", lambda X, y: (X[:0], y[:0]), "empty"),
    ("no features", lambda X, y: (X[:, :0], y), "empty"),
    ("one class", lambda X, y: (X, np.ones_like(y)), "one class only"),
    ("continuous y", lambda X, y: (X, y + 0.5 * X[:, 0]), "Unknown label type: continuous"),
    ("y is None", lambda X, y: (X, None), "requires y to be passed"),
    ("1-D X", lambda X, y: (X[:, 0], y), "must be 2-D .* Reshape"),
    ("3-D X", lambda X, y: (X[:, :, None], y), "must be 2-D"),
    ("short y", lambda X, y: (X, y[:-1]), "different lengths"),
    ("2-D y", lambda X, y: (X, np.c_[y, y]), "y must be 1-D"),
    ("text X", lambda X, y: (X.astype(str), y), "real numbers"),
    ("sparse nan", lambda X, y: (sp.csr_matrix(np.where(X > 1, np.nan, X)), y), "NaN or infinity"),
]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("case, make, message", BAD_FIT_INPUT, ids=[c[0] for c in BAD_FIT_INPUT])
def test_bad_input_is_rejected_clearly(Estimator, toy, case, make, message):
    X, y = make(*toy)
    with pytest.raises(ValueError, match=message):
        Estimator().fit(X, y)


BAD_PARAMS = [
    ({"C": 0.0}, "C must be a positive"), ({"C": -1}, "C must be a positive"), ({"C": "big"}, "C must be a positive"),
    ({"C": np.nan}, "C must be a positive"), ({"tol": 0}, "tol must be a positive"), ({"max_iter": 0}, "max_iter"),
    ({"max_iter": 2.5}, "max_iter"), ({"solver": "newton"}, "solver='newton' is not supported; accepted"),
    ({"loss": "log"}, "loss='log' is not supported; accepted: 'hinge', 'squared_hinge'"),
    ({"trace": -1}, "trace must be"), ({"random_state": "x"}, "random_state"),
    ({"class_weight": "even"}, "class_weight"), ({"class_weight": {7: 1.0}}, "not in y"),
    ({"fit_intercept": "yes"}, "fit_intercept must be True or False"),
]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("params, message", BAD_PARAMS, ids=[str(p[0]) for p in BAD_PARAMS])
def test_bad_parameters_are_rejected_clearly(Estimator, toy, params, message):
    with pytest.raises(ValueError, match=message):
        Estimator(**params).fit(*toy)


@pytest.mark.parametrize("params, message", [
    ({"kernel": "sigmoid"}, "kernel='sigmoid' is not supported; accepted: 'linear', 'poly', 'rbf'"),
    ({"gamma": -1.0}, "gamma must be 'scale' or a positive number"), ({"gamma": "auto"}, "gamma='auto'"),
    ({"kernel": "poly", "degree": 0}, "degree must be an integer >= 1"),
])
def test_bad_kernel_parameters_are_rejected_clearly(toy, params, message):
    with pytest.raises(ValueError, match=message):
        svmlab.KernelSVM(**params).fit(*toy)


def test_intercept_scaling_and_prediction_shape_are_checked(toy):
    X, y = toy
    with pytest.raises(ValueError, match="intercept_scaling must be a positive"):
        svmlab.LinearSVM(intercept_scaling=0).fit(X, y)
    model = svmlab.LinearSVM().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but LinearSVM is expecting 2 features"):
        model.predict(np.ones((2, 3)))
    with pytest.raises(svmlab.NotFittedError, match="not fitted yet"):
        svmlab.KernelSVM().predict(np.ones((2, 3)))


SOLVER_OPTIONS = [
    (svmlab.LinearSVM, {"solver": "dcd", "order": "sideways"}, "order='sideways' is not supported; accepted"),
    (svmlab.LinearSVM, {"solver": "dcd", "stopping": "never"}, "stopping='never' is not supported; accepted"),
    (svmlab.LinearSVM, {"solver": "dcd", "shrinking": "yes"}, "shrinking must be True or False"),
    (svmlab.LinearSVM, {"solver": "sdca", "batch_size": 0}, "batch_size must be an integer >= 1"),
    (svmlab.LinearSVM, {"solver": "sdca", "output": "best"}, "output='best' is not supported"),
    (svmlab.LinearSVM, {"solver": "sdca", "loss": "squared_hinge", "smoothing": 0.5}, "smoothing > 0"),
    (svmlab.LinearSVM, {"solver": "pegasos", "loss": "squared_hinge"}, "supports loss='hinge' only"),
    (svmlab.LinearSVM, {"solver": "pegasos", "projection": 1}, "projection must be True or False"),
    (svmlab.KernelSVM, {"solver": "smo", "selection": "best"}, "selection='best' is not supported; accepted"),
    (svmlab.KernelSVM, {"solver": "smo", "cache_size": 0}, "cache_size must be a positive"),
    (svmlab.KernelSVM, {"solver": "smo", "fit_intercept": False}, "needs the free bias"),
    (svmlab.KernelSVM, {"solver": "dcd", "fit_intercept": True}, "without a bias"),
]


@pytest.mark.parametrize("Estimator, params, message", SOLVER_OPTIONS, ids=[str(p[1]) for p in SOLVER_OPTIONS])
def test_bad_solver_options_are_rejected_clearly(Estimator, toy, params, message):
    with pytest.raises(ValueError, match=message):
        Estimator(**params).fit(*toy)


@pytest.mark.filterwarnings("ignore::svmlab.ConvergenceWarning")
@pytest.mark.parametrize("Estimator, params", [(svmlab.LinearSVM, {"solver": name}) for name in svmlab.solvers.LINEAR]
                         + [(svmlab.KernelSVM, {"solver": name, "fit_intercept": name != "dcd"})
                            for name in svmlab.solvers.KERNEL])
def test_same_random_state_gives_the_same_bits(Estimator, params, toy):
    X, y = toy
    first = Estimator(random_state=3, max_iter=50, **params).fit(X, y)
    second = Estimator(random_state=3, max_iter=50, **params).fit(X, y)
    np.testing.assert_array_equal(first.alpha_, second.alpha_)
    np.testing.assert_array_equal(first.decision_function(X), second.decision_function(X))



@pytest.mark.parametrize("Estimator, solver", [(svmlab.LinearSVM, s) for s in svmlab.solvers.LINEAR]
                         + [(svmlab.LinearSVR, s) for s in svmlab.solvers.LINEAR_REGRESSION])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_a_linear_trace_records_the_intercept_of_each_record(Estimator, solver, fit_intercept, toy):
    """The trace's intercept column is b at each record (B times the bias feature's weight, 0
    without a bias): at the last record it is the model's intercept, and every snapshot's
    intercept is its coef's companion."""
    X, y = toy
    target = y if Estimator is svmlab.LinearSVM else X @ np.array([1.0, -2.0]) + 0.5
    model = Estimator(solver=solver, fit_intercept=fit_intercept, intercept_scaling=2.0, max_iter=20, trace=True,
                      random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 20 epochs may stop short of tol
        model.fit(X, target)
    trace = model.trace_
    assert np.all(np.isfinite(trace.intercept))
    if not fit_intercept:
        assert np.all(trace.intercept == 0.0) and np.all(trace.snapshot_intercept == 0.0)
    else:
        assert trace.intercept[-1] == pytest.approx(float(np.ravel(model.intercept_)[0]), rel=1e-12, abs=1e-12)
    assert trace.snapshot_intercept[-1] == trace.intercept[-1]
