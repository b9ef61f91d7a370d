"""Checks of chapter 2's exercises (notebooks/02_duality.ipynb)."""

from functools import lru_cache

import numpy as np

from .. import KernelSVM, LinearSVM, SVMProblem, datasets
from . import close, exercise, is_number


def _toy():
    """The chapter's 200 points."""
    X, y = datasets.make_toy()
    return X[:200], y[:200]


@exercise("2.1", wrong=[0.0, -1.0])
def _(answer):
    X, y = _toy()
    model = LinearSVM(C=1.0, loss="hinge", solver="dual_gradient", tol=1e-6, max_iter=100_000).fit(X, y)
    alpha = model.alpha_
    expected = SVMProblem(X, y, C=1.0, loss="hinge", bias="regularized").dual(alpha)
    if not is_number(answer):
        return "the dual value is one number"
    v = X.T @ (alpha * y)
    if close(answer, alpha.sum() - 0.5 * v @ v, rtol=1e-8):
        return "the model has a regularized bias: w(alpha) has a last entry for the feature B = 1 (2.10)"
    if not close(answer, expected, rtol=1e-8):
        return "evaluate (2.8) with w(alpha) = sum_i alpha_i y_i x_i on the augmented data [x_i, 1]"
    return None


@lru_cache(maxsize=1)
def _free_bias_counts():
    """(free alpha_i, alpha_i at C) of the free-bias model of section 2.8."""
    X, y = _toy()
    a = KernelSVM(kernel="linear", C=1.0, solver="dual_gradient", tol=1e-4, max_iter=100_000).fit(X, y).alpha_
    return int(np.sum((a > 0) & (a < 1.0))), int(np.sum(a == 1.0))


@exercise("2.2", wrong=[(0, 0), (38, 0)])
def _(answer):
    expected = _free_bias_counts()
    if np.shape(answer) != (2,):
        return "give two integers: (on the margin, at the bound)"
    if close(answer, expected[::-1]):
        return "the two counts are swapped: first the points on the margin, then those inside it"
    if not close(answer, expected):
        return "on the margin: |y_i f(x_i) - 1| <= 1e-3; at the bound: y_i f(x_i) < 1 - 1e-3 (use decision_function)"
    return None


@lru_cache(maxsize=1)
def _max_dual_with_diagonal_one_over_C(C=1.0):
    """max of sum(alpha) - 1/2 alpha'(Q + I/C)alpha over alpha >= 0, Q with the bias feature B = 1."""
    X, y = _toy()
    Q = SVMProblem(X, y, C=C, loss="squared_hinge", bias="regularized").Q()
    # the maximiser of this dual, from svmlab's solver (its D_ii = 1/(2 C_i) equals 1/C at C_i = C/2)
    a = LinearSVM(C=C / 2, loss="squared_hinge", solver="dual_gradient", tol=1e-10, max_iter=400_000).fit(X, y).alpha_
    return a.sum() - 0.5 * a @ (Q + np.eye(len(y)) / C) @ a


@exercise("2.3", wrong=[1.0, 2.0])
def _(answer):
    if not is_number(answer) or not answer > 0:
        return "C' is a positive number"
    X, y = _toy()
    # the optimum of 1/2 |w|^2 + 1/2 b^2 + C' sum xi^2: svmlab's C-form primal with the bias feature B = 1
    fit = LinearSVM(C=float(answer), loss="squared_hinge", solver="dcd", tol=1e-10, max_iter=100_000).fit(X, y)
    primal = SVMProblem(X, y, C=float(answer), loss="squared_hinge", bias="regularized").primal(fit.coef_, fit.intercept_)
    if not close(primal, _max_dual_with_diagonal_one_over_C(1.0), rtol=1e-6):
        return ("with that C' the primal optimum and the maximum of the 1/C dual differ; redo (2.12) with C' "
                "and compare the diagonal it gives with 1/C")
    return None


@exercise("2.4", wrong=[0.0, -1.0])
def _(answer):
    X, y = _toy()
    model = LinearSVM(C=1.0, intercept_scaling=2.0, solver="dual_gradient", tol=1e-6, max_iter=100_000).fit(X, y)
    expected = model.intercept_[0]
    if not is_number(answer):
        return "the bias is one number"
    if close(answer, expected / 2, rtol=1e-8) or close(answer, expected / 4, rtol=1e-8):
        return "the bias is B times the weight of the feature B, and that weight is itself a sum with a factor B"
    if not close(answer, expected, rtol=1e-8):
        return "use (2.10) with B = 2, model4.alpha_ and y"
    return None


def _accelerated(Q_bar, U, epochs):
    """FISTA (Beck & Teboulle) on f = 1/2 a'Qa - e'a over the box [0, U], as exercise 2.5 states it."""
    L = np.linalg.eigvalsh(Q_bar).max()
    alpha = beta = np.zeros(len(Q_bar))
    t = 1.0
    for _ in range(epochs):
        previous, alpha = alpha, np.clip(beta - (Q_bar @ beta - 1.0) / L, 0.0, U)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        beta = alpha + (t - 1.0) / t_next * (alpha - previous)
        t = t_next
    return alpha


def _plain(Q_bar, U, epochs):
    L = np.linalg.eigvalsh(Q_bar).max()
    alpha = np.zeros(len(Q_bar))
    for _ in range(epochs):
        alpha = np.clip(alpha - (Q_bar @ alpha - 1.0) / L, 0.0, U)
    return alpha


@exercise("2.5", wrong=[_plain, lambda Q_bar, U, epochs: np.zeros(len(Q_bar))])
def _(answer):
    if not callable(answer):
        return "the answer is a function accelerated_ascent(Q_bar, U, epochs) returning alpha"
    X, y = _toy()
    Q_bar = SVMProblem(X, y, C=1.0, loss="hinge", bias="regularized").Q()
    U = np.full(len(y), 1.0)
    for epochs in (1, 3, 50):
        got = np.asarray(answer(Q_bar.copy(), U.copy(), epochs), dtype=float)
        if got.shape != U.shape:
            return "return alpha, one value per sample"
        if not close(got, _accelerated(Q_bar, U, epochs), rtol=1e-8, atol=1e-10):
            return (f"after {epochs} step(s) your alpha differs from the accelerated method as stated; check "
                    "where the gradient is taken (at beta) and the momentum factor (t_k - 1)/t_(k+1)")
    return None
