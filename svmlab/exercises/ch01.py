"""Checks of chapter 1's exercises (notebooks/01_primal.ipynb)."""

from functools import lru_cache

import numpy as np

from .. import LinearSVM, datasets
from ..reference import core
from . import close, exercise, fit_quietly, is_number, rounded, toy

CS = 10.0 ** np.arange(-3.0, 1.5, 0.5)  # the grid of exercise 1.4


@lru_cache(maxsize=1)
def _margin_fit():
    """(|w|, b) of exercise 1.1's fit: subgradient descent on the toy data."""
    Xs, ys = toy(400)
    model = fit_quietly(LinearSVM(C=1.0, solver="subgradient", tol=1e-2, max_iter=20000), Xs, ys)
    return np.linalg.norm(model.coef_.ravel()), model.intercept_[0]


def _margin_slips():
    norm, b = _margin_fit()
    return [2.0 / norm,   # the band between f = +-1
            b / norm]     # the signed distance


@exercise("1.1", wrong=[0.0, 2.5], derived=_margin_slips)
def _(answer):
    norm, b = _margin_fit()
    if close(answer, 2.0 / norm, rtol=1e-3):
        return ("that is the width of the band between the margin hyperplanes f = +-1; the question is where the "
                "boundary f = 0 lies")
    if close(answer, abs(b), rtol=1e-3):
        return "f(0) = b is a value of f, not a distance; §1.1 turns values of f into distances"
    if close(answer, b / norm, rtol=1e-3):
        return "that distance is signed (it says on which side the origin lies); give its size"
    if close(answer, abs(b) / norm, rtol=1e-3) and not close(answer, abs(b) / norm, rtol=1e-4):
        return rounded(4)
    if not close(answer, abs(b) / norm, rtol=1e-4):  # four digits, as a reader may copy them
        return "use the geometric margin of §1.1, the signed distance of a point to the boundary, at x = 0"
    return None


def _weights_after(t):
    """The weights of v_0 .. v_(t-1) in w_t for eta_s = 2/(s+1): the recursion run on unit vectors."""
    w = np.zeros(t)
    for s in range(1, t + 1):
        eta = 2.0 / (s + 1)
        v = np.zeros(t)
        v[s - 1] = 1.0
        w = (1.0 - eta) * w + eta * v
    return w


@exercise("1.2", wrong=[np.full(5, 0.2), np.arange(5.0, 0.0, -1.0) / 15, 2.0 / 6.0])
def _(answer):
    expected = _weights_after(5)
    if np.shape(answer) != expected.shape:
        return "give the five weights of v_0, ..., v_4 in w_5, as an array of length 5"
    if close(answer, np.full(5, 0.2)):
        return "equal weights belong to the step 1/t; redo the induction with eta_t = 2/(t+1)"
    if close(answer, expected, rtol=1e-3) and not close(answer, expected):
        return rounded()
    if not close(np.sum(answer), 1.0):
        return "the weights of an average add up to 1; check the induction step"
    if not close(answer, expected):
        return "write w_t = (1 - eta_t) w_(t-1) + eta_t v_(t-1) and follow each v_s through the products"
    return None


def _weighted_descent(X, y, C, B, epochs):
    """Algorithm 1.1 with the step 2/(t+1) (the hinge)."""
    Xa = core.augment(X, B)
    w = np.zeros(Xa.shape[1])
    for t in range(1, epochs + 1):
        c = C * (y * (Xa @ w) < 1.0)
        w = w - 2.0 / (t + 1) * (w - Xa.T @ (c * y))
    return w


def _ignores_B(X, y, C, B, epochs):
    """A wrong 1.3: appends a column of ones whatever B is."""
    return _weighted_descent(X, y, C, 1.0, epochs)


def _ignores_C(X, y, C, B, epochs):
    """A wrong 1.3: the step as if C were 1."""
    return _weighted_descent(X, y, 1.0, B, epochs)


def _returns_b(X, y, C, B, epochs):
    """A wrong 1.3: the last entry is the bias b = B * (b/B), not the feature's weight b/B."""
    w = _weighted_descent(X, y, C, B, epochs)
    w[-1] *= B
    return w


@exercise("1.3", wrong=[lambda X, y, C, B, epochs: core.subgradient_descent(X, y, C, "hinge", B, epochs),
                        lambda X, y, C, B, epochs: np.zeros(X.shape[1] + 1),
                        _ignores_B, _ignores_C, _returns_b])
def _(answer):
    if not callable(answer):
        return "the answer is a function weighted_descent(X, y, C, B, epochs) returning w"
    X, y = toy(400)
    for C, B in ((1.0, 1.0), (0.5, 2.0)):
        for epochs in (1, 2, 50):
            expected = _weighted_descent(X, y, C, B, epochs)
            got = np.asarray(answer(X.copy(), y.copy(), C, B, epochs), dtype=float)
            if got.shape != expected.shape:
                return f"return the augmented w of length d + 1 = {expected.size} (the bias weight last)"
            if close(got, expected, rtol=1e-8, atol=1e-10):
                continue
            if B != 1.0 and close(got, _returns_b(X, y, C, B, epochs), rtol=1e-8, atol=1e-10):
                return "the last entry is the weight of the feature B, not the bias b itself (1.5)"
            if (C, B) != (1.0, 1.0):  # (1, 1) passed: the answer ignores C or B somewhere
                return (f"right at C = B = 1, not at C = {C:g}, B = {B:g} (after {epochs} epoch(s)): check that "
                        "c_i uses C and that the appended feature has the value B (1.5)")
            return (f"after {epochs} epoch(s) your w differs from Algorithm 1.1 with eta_t = 2/(t+1); "
                    "check the step of epoch t and that the margins use the augmented x")
    return None


@lru_cache(maxsize=None)
def _split_scores():
    """Exercise 1.4's fits: the accuracy of each C of the grid on the test part and on the training part."""
    X, y = toy()
    X_tr, X_te, y_tr, y_te = datasets.train_test_split(X, y, random_state=0)
    models = [fit_quietly(LinearSVM(C=C, solver="subgradient", tol=1e-2, max_iter=3000), X_tr, y_tr) for C in CS]
    return np.array([m.score(X_te, y_te) for m in models]), np.array([m.score(X_tr, y_tr) for m in models])


# five C of the grid tie for the best test accuracy, so the answer is the whole curve, not one C a guess can hit
@exercise("1.4", wrong=[1.0, np.full(len(CS), 0.926), np.ones(len(CS)), CS])
def _(answer):
    if is_number(answer):
        return "give the whole curve: one test accuracy per C in Cs, nine numbers"
    if np.shape(answer) != (len(CS),):
        return "give one test accuracy per C in Cs: nine numbers, in the order of Cs"
    test, train = _split_scores()
    if close(answer, train):
        return "those are accuracies on the training part; score each fit on the test part"
    if close(np.sort(answer), np.sort(test)) and not close(answer, test):
        return "the right accuracies, in another order: give them in the order of Cs"
    if not close(answer, test):
        return "fit each C on the training part with the settings given, and score it on the test part"
    return None


@exercise("1.5", wrong=[0.0, -1.0, -2.95])
def _(answer):
    X, y = toy()
    B = 3.0
    model = fit_quietly(LinearSVM(C=1.0, solver="subgradient", tol=1e-2, max_iter=3000, intercept_scaling=B), X, y)
    b = model.intercept_[0]
    if not is_number(answer):
        return "the weight of the appended feature is one number"
    if close(answer, b, rtol=1e-6):
        return "that is the bias b itself; the question asks for the weight of the appended feature (eq. 1.5)"
    if close(answer, b * B, rtol=1e-6):
        return "w~ . x~ = w . x + b: the weight of the feature B times B must give b (eq. 1.5)"
    if not close(answer, b / B, rtol=1e-6):
        return "fit on [X, B] with B = 3 and fit_intercept=False, max_iter=3000, and read the last entry of coef_"
    return None
