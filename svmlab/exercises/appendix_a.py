"""Checks of Appendix A's exercises (notebooks/08_multiclass.ipynb)."""

from functools import lru_cache

import numpy as np

from .. import LinearSVM, datasets
from . import close, exercise, is_number


@lru_cache(maxsize=1)
def digits():
    """The appendix's split of scikit-learn's bundled digits (pixels in [0, 1]) and its OvR model."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = datasets.train_test_split(X / 16.0, y, test_size=0.3, random_state=0)
    ovr = LinearSVM(C=0.5, tol=1e-8, max_iter=20000, random_state=0).fit(X_train, y_train)
    return X_train, X_test, y_train, y_test, ovr


def _classes():
    return len(np.unique(digits()[2]))


def _samples():
    """(samples of each one-vs-rest problem, samples of the one-vs-one problem of classes 0 and 1)."""
    y_train = digits()[2]
    return len(y_train), int(np.sum((y_train == 0) | (y_train == 1)))


@exercise("A.1", wrong=[(10, 45), (1257, 1257), (1257, 251)])
def _(answer):
    n, pair = _samples()
    if np.shape(answer) != (2,):
        return "give a pair (samples of a one-vs-rest problem, samples of the one-vs-one problem of 0 and 1)"
    if close(answer, (pair, n)):
        return "the other way round: one-vs-rest first"
    if close(answer[0], n) and close(answer[1], 2 * n / 10, rtol=1e-3):
        return "2n/K is the average over the pairs; count the training samples of classes 0 and 1"
    if not close(answer, (n, pair)):
        return ("one-vs-rest: class k against every other sample; one-vs-one: only the samples of the two classes "
                "(count them in y_train)")
    return None


def _through_the_model(coef, intercept, classes, X):
    """The fitted model's own predictions looked up in ``classes``: right only while the labels are positions."""
    return classes[digits()[4].predict(X)]


def _positions(coef, intercept, classes, X):
    """The argmax alone: positions in ``classes``, which equal the digits' labels only by chance."""
    return np.argmax(X @ coef.T + intercept, axis=1)


@exercise("A.2", wrong=[_positions, lambda coef, intercept, classes, X: np.zeros(X.shape[0]), "predict",
                        _through_the_model])
def _(answer):
    if not callable(answer):
        return "the answer is a function my_predict(coef, intercept, classes, X) returning one class per row of X"
    _, X_test, _, _, ovr = digits()
    back = np.arange(len(ovr.classes_))[::-1]
    # the model as fitted, then its classes in reverse order and relabelled (rows of coef and intercept with
    # them): a look-up must use the arguments, not the digits' labels or the fitted model
    for coef, intercept, classes in ((ovr.coef_, ovr.intercept_, ovr.classes_),
                                     (ovr.coef_[back], ovr.intercept_[back], ovr.classes_[back] + 10)):
        got = answer(coef, intercept, classes, X_test)
        index = np.argmax(X_test @ coef.T + intercept, axis=1)
        if np.shape(got) != (X_test.shape[0],):
            return f"return one predicted class per row of X ({X_test.shape[0]} for X_test)"
        if np.array_equal(got, index) and not np.array_equal(classes[index], index):
            return "these are positions, not classes: look them up in classes"
        if not np.array_equal(got, classes[index]):
            return "the class of the largest w_k . x + b_k wins: argmax over the columns, then map to classes"
    return None


def _confusions():
    _, X_test, _, y_test, ovr = digits()
    counts = {}
    for t, p in zip(y_test, ovr.predict(X_test)):
        if t != p:
            key = tuple(sorted((int(t), int(p))))
            counts[key] = counts.get(key, 0) + 1
    return counts


@exercise("A.3", wrong=[(9, 1), (0, 0), (0, 1)])
def _(answer):
    counts = _confusions()
    if not isinstance(answer, tuple) or len(answer) != 2 or tuple(sorted(answer)) != answer:
        return "give a sorted tuple of two digits, such as (1, 8)"
    if counts.get(answer, 0) != max(counts.values()):
        return "count the off-diagonal cells of the confusion matrix, both directions together"
    return None


def _pair_count_slips():
    n, K = len(digits()[2]), _classes()
    return [n * K * (K - 1) // 2,   # every sample in every one-vs-one problem
            n]                      # every sample once


@exercise("A.4", wrong=[0, 1.5], derived=_pair_count_slips)
def _(answer):
    n, K = len(digits()[2]), _classes()
    if not is_number(answer):
        return "give the total as a number"
    if close(answer, n * K * (K - 1) // 2):
        return "a sample enters only the problems that involve its own class"
    if not close(answer, n * (K - 1)):
        return "count, for one sample, the pairs of classes (k, k') that contain its class; then sum over the samples"
    return None
