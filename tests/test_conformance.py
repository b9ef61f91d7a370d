"""scikit-learn conformance: its own estimator checks, multi-class, and its tools.

scikit-learn's suite (`check_estimator`), which nobody here wrote, runs against each
estimator with each solver, the regressors included. No check is marked as an expected
failure: scikit-learn's LinearSVC, SVC, LinearSVR and SVR need two (the sample-weight
equivalence checks), which do not apply here since svmlab's estimators take no sample_weight.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmlab
from svmlab import solvers

EXPECTED_FAILED_CHECKS = {}


def every_configuration():
    """Each estimator with each of its solvers (the bias-free kernel DCD without a bias)."""
    for name in solvers.LINEAR:
        yield svmlab.LinearSVM(solver=name)
    for name in solvers.KERNEL:
        yield svmlab.KernelSVM(solver=name, fit_intercept=name != "dcd")
    for Regressor in (svmlab.LinearSVR, svmlab.KernelSVR):
        for name in Regressor._solvers:
            yield Regressor(solver=name)


@pytest.mark.filterwarnings("ignore::svmlab.ConvergenceWarning")
@parametrize_with_checks(list(every_configuration()), expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[::2], y[::2], X[1::2], y[1::2]


def test_one_vs_rest_matches_liblinear_on_ten_digits(digits):
    X, y, X_test, _ = digits
    ours = svmlab.LinearSVM(C=0.5, tol=1e-8, max_iter=20000, random_state=0).fit(X, y)
    ref = LinearSVC(C=0.5, loss="hinge", tol=1e-8, max_iter=200000, dual=True).fit(X, y)
    assert ours.coef_.shape == ref.coef_.shape == (10, 64)
    assert ours.decision_function(X_test).shape == (len(X_test), 10)
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


def test_one_vs_one_matches_libsvm_on_ten_digits(digits):
    X, y, X_test, _ = digits
    ours = svmlab.KernelSVM(C=2.0, gamma=0.05, tol=1e-6).fit(X, y)
    ref = SVC(C=2.0, gamma=0.05, tol=1e-6).fit(X, y)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(ref.support_))
    assert ours.decision_function(X_test).shape == ref.decision_function(X_test).shape == (len(X_test), 10)
    np.testing.assert_allclose(ours.decision_function(X_test), ref.decision_function(X_test), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


def test_grid_search_over_C_and_gamma_in_a_pipeline(digits):
    X, y, X_test, y_test = digits
    mask, mask_test = np.isin(y, (3, 8)), np.isin(y_test, (3, 8))
    pipe = make_pipeline(StandardScaler(), svmlab.KernelSVM())
    assert is_classifier(pipe[-1])
    search = GridSearchCV(pipe, {"kernelsvm__C": [0.1, 10.0], "kernelsvm__gamma": [1e-3, 1e-2]}, cv=3)
    search.fit(X[mask], y[mask])
    assert set(search.best_params_) == {"kernelsvm__C", "kernelsvm__gamma"}
    assert search.score(X_test[mask_test], y_test[mask_test]) > 0.95


def test_clone_and_pickle(digits):
    X, y, X_test, _ = digits
    for model in (svmlab.LinearSVM(C=0.3, random_state=1), svmlab.KernelSVM(C=3.0)):
        twin = clone(model)
        assert twin is not model and twin.get_params() == model.get_params()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
            model.fit(X, y)
        loaded = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(loaded.predict(X_test), model.predict(X_test))
        np.testing.assert_array_equal(loaded.decision_function(X_test), model.decision_function(X_test))
