"""Checks of chapter 2's exercises (notebooks/02_duality.ipynb)."""

from functools import lru_cache

import numpy as np

from .. import KernelSVM, LinearSVM, SVMProblem, datasets, objective
from . import close, exercise, is_number, is_rounding, rounded


def _toy():
    """The chapter's 200 points."""
    X, y = datasets.make_toy()
    return X[:200], y[:200]


def _dual_without_bias(alpha, X, y, B):
    v = X.T @ (alpha * y)
    return alpha.sum() - 0.5 * v @ v


def _dual_with_unit_feature(alpha, X, y, B):
    v = np.append(X.T @ (alpha * y), alpha @ y)  # the feature's value taken as 1 whatever B is
    return alpha.sum() - 0.5 * v @ v


def _dual_cases():
    """(alpha, X, y, B) on which 2.1's function is tried: the toy's points, feasible alphas of
    the hinge box [0, 1] (half of them at 0), and two values of the bias feature."""
    X, y = _toy()
    rng = np.random.default_rng(21)
    for B in (1.0, 2.0):
        alpha = rng.uniform(0.0, 1.0, len(y)) * (rng.uniform(size=len(y)) < 0.5)
        yield alpha, X, y, B


@exercise("2.1", wrong=[0.0, _dual_without_bias, _dual_with_unit_feature, lambda alpha, X, y, B: 0.0])
def _(answer):
    if not callable(answer):
        return "the answer is a function dual_value(alpha, X, y, B) returning one number"
    for alpha, X, y, B in _dual_cases():
        got = answer(alpha.copy(), X.copy(), y.copy(), B)
        if not is_number(got) and not (isinstance(got, np.ndarray) and got.size == 1):
            return "return one number, the dual value"
        expected = SVMProblem(X, y, C=1.0, loss="hinge", bias="regularized", intercept_scaling=B).dual(alpha)
        if close(float(got), expected, rtol=1e-10):
            continue
        if close(float(got), _dual_without_bias(alpha, X, y, B), rtol=1e-10):
            return "that is the dual without a bias: w(alpha) has a last entry for the feature B (2.10)"
        if B != 1.0 and close(float(got), _dual_with_unit_feature(alpha, X, y, B), rtol=1e-10):
            return "right for B = 1, not for B = 2: the feature's value B enters each x_i and so w(alpha) (2.6)"
        return f"wrong for B = {B:g}: evaluate (2.8) with w(alpha) = sum_i alpha_i y_i [x_i, B] (2.6 on the augmented data)"
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


@exercise("2.3", wrong=[0.5, 1.0, 2.0, np.sqrt(2.0)])
def _(answer):
    if not is_number(answer) or not answer > 0:
        return "s is a positive number"
    D = objective.diag(1.0, objective.SQUARED_HINGE)  # D_ii of the L2 dual (2.9) at C = 1
    s = float(answer)
    if close(s, D, rtol=1e-3):
        return ("the private feature enters Q-hat_ii through the inner product of [.., s e_i] with itself; "
                "compare what it adds there with D_ii")
    if close(s * s, 1.0, rtol=1e-3):
        return ("that gives the diagonal 1/C of Roethel & Brynda's eqs. (9)/(12); (2.9) for svmlab's problem "
                "(their eq. 2) has another D_ii")
    if close(s * s, D, rtol=1e-3) and not close(s * s, D, rtol=1e-6):
        return rounded()
    if not close(s * s, D, rtol=1e-6):  # Q-hat_ii = Q_ii + s^2 against Q-bar_ii = Q_ii + D_ii
        return "write Q-hat_ij = y_i y_j x-hat_i . x-hat_j and compare it entry by entry with Q-bar of (2.9)"
    return None


@exercise("2.4", wrong=[0.0, -1.0, 2.5])
def _(answer):
    X, y = _toy()
    B = 2.0
    model = LinearSVM(C=1.0, intercept_scaling=B, solver="dual_gradient", tol=1e-6, max_iter=100_000).fit(X, y)
    b = model.intercept_[0]
    if not is_number(answer):
        return "the penalty is one number"
    if close(answer, 0.5 * b * b, rtol=1e-6):
        return "that is 1/2 b^2; with the feature B the primal penalises the weight of that feature, not b (1.5)"
    if close(answer, 0.5 * (b / B**2) ** 2, rtol=1e-6):
        return "that weight is (2.6) on the augmented data: each term alpha_i y_i x~_i carries the feature's value B"
    if not close(answer, 0.5 * (b / B) ** 2, rtol=1e-6) and is_rounding(answer, 0.5 * (b / B) ** 2):
        return rounded()
    if not close(answer, 0.5 * (b / B) ** 2, rtol=1e-6):
        return "the weight of the feature B is the last entry of w(alpha) on [x_i, B] (2.6); the penalty is half its square"
    return None


def _accelerated(Q_bar, U, epochs):
    """FISTA (Beck & Teboulle) on f = 1/2 a'Qa - e'a over the box [0, U], as exercise 2.5 states it."""
    L = np.linalg.eigvalsh(Q_bar).max()
    alpha = omega = np.zeros(len(Q_bar))  # omega: the extrapolated point omega_k
    t = 1.0
    for _ in range(epochs):
        previous, alpha = alpha, np.clip(omega - (Q_bar @ omega - 1.0) / L, 0.0, U)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        omega = alpha + (t - 1.0) / t_next * (alpha - previous)
        t = t_next
    return alpha


def _plain(Q_bar, U, epochs):
    L = np.linalg.eigvalsh(Q_bar).max()
    alpha = np.zeros(len(Q_bar))
    for _ in range(epochs):
        alpha = np.clip(alpha - (Q_bar @ alpha - 1.0) / L, 0.0, U)
    return alpha


def _clipped_to_one(Q_bar, U, epochs):
    """A wrong 2.5: the box [0, 1] hard-coded instead of [0, U]."""
    return _accelerated(Q_bar, np.ones(len(Q_bar)), epochs)


@exercise("2.5", wrong=[_plain, lambda Q_bar, U, epochs: np.zeros(len(Q_bar)), _clipped_to_one])
def _(answer):
    if not callable(answer):
        return "the answer is a function accelerated_ascent(Q_bar, U, epochs) returning alpha"
    X, y = _toy()
    Q_bar = SVMProblem(X, y, C=1.0, loss="hinge", bias="regularized").Q()
    # U = 1 (C = 1), then a box that differs by class (class weights 0.1 and 0.4), reached by both classes
    for U in (np.full(len(y), 1.0), np.where(y > 0, 0.1, 0.4)):
        for epochs in (1, 3, 50):
            got = np.asarray(answer(Q_bar.copy(), U.copy(), epochs), dtype=float)
            if got.shape != U.shape:
                return "return alpha, one value per sample"
            if close(got, _accelerated(Q_bar, U, epochs), rtol=1e-8, atol=1e-10):
                continue
            if np.any(U != 1.0):
                return (f"right for U = 1, not for a U that differs by class (after {epochs} step(s)): "
                        "project onto the box [0, U_i] of each sample")
            return (f"after {epochs} step(s) your alpha differs from the accelerated method as stated; check "
                    "where the gradient is taken (at omega) and the momentum factor (t_k - 1)/t_(k+1)")
    return None
