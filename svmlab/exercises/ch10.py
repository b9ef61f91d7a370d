"""Checks of chapter 10's exercises (which solver when)."""

from functools import lru_cache

import numpy as np

from .. import datasets
from ..estimators import KernelSVM, LinearSVM
from ..problem import SVMProblem
from ..reference.dcd import dcd
from . import close, exercise, fit_quietly, is_number, rounded, toy

C_101 = 0.1  # 10.1: the Newton step at w = 0, feature 0, breast cancer without bias
C_102, EPOCHS_102 = 0.5, 5  # 10.2: DCD with indices drawn with replacement


@exercise("10.1", wrong=[10.0, -1.0, 0.0])
def _(answer):
    if not is_number(answer):
        return "give one number: the Newton step z_N = -P'_j / P''_j."
    X, y = datasets.load_breast_cancer()
    x = X[:, 0]
    first = -2.0 * C_101 * np.sum(y * x)  # every margin is 0 < 1 at w = 0, so every sample is in I
    second = 1.0 + 2.0 * C_101 * np.sum(x * x)
    if close(answer, -first, rtol=1e-6) or close(answer, first, rtol=1e-6):
        return "that is the first derivative alone; Newton divides it by the second derivative."
    if close(answer, -first / (1.0 + C_101 * np.sum(x * x)), rtol=1e-6) or close(answer, 0.5 * (-first) / (1.0 + C_101 * np.sum(x * x)), rtol=1e-6):
        return "differentiate the square: each term C (1 - m_i)^2 brings a factor 2."
    if close(answer, first / second, rtol=1e-6):
        return "check the sign: the step goes against the derivative."
    if close(answer, -first / second, rtol=1e-3) and not close(answer, -first / second, rtol=1e-6):
        return rounded()
    if not close(answer, -first / second, rtol=1e-6):
        return "at w = 0 every margin is 0, so every sample is in I; sum over all of them for both derivatives."
    return None


def _hinge_dcd(X, y, C, epochs, orders):
    """Hinge-loss DCD without bias over the given index sequences (one an epoch); returns alpha."""
    n, d = X.shape
    alpha, w = np.zeros(n), np.zeros(d)
    QD = np.einsum("ij,ij->i", X, X)
    for order in orders(n, epochs):
        for i in order:
            G = y[i] * (w @ X[i]) - 1.0
            PG = min(G, 0.0) if alpha[i] == 0.0 else (max(G, 0.0) if alpha[i] == C else G)
            if abs(PG) > 1e-12:
                old = alpha[i]
                alpha[i] = min(max(old - G / QD[i], 0.0), C)
                w += (alpha[i] - old) * y[i] * X[i]
    return alpha


def _permutation_dcd(X, y, C, epochs, rng):
    return np.asarray(dcd(X, y, C, tol=0.0, max_iter=epochs, order="permutation", rng=rng)[0])


def _cyclic_dcd(X, y, C, epochs, rng):
    return np.asarray(dcd(X, y, C, tol=0.0, max_iter=epochs)[0])


@exercise("10.2", wrong=[_permutation_dcd, _cyclic_dcd])
def _(answer):
    if not callable(answer):
        return "answer with your function dcd_with_replacement(X, y, C, epochs, rng) itself."
    X, y = datasets.make_random(n_samples=60, n_features=5, random_state=3)
    expected = _hinge_dcd(X, y, C_102, EPOCHS_102,
                          lambda n, k, rng=np.random.default_rng(11): (rng.integers(0, n, size=n) for _ in range(k)))
    got = np.asarray(answer(X, y, C_102, EPOCHS_102, np.random.default_rng(11)), dtype=float)
    if got.shape != expected.shape:
        return "return alpha, one value per sample, as a NumPy array."
    if not close(got, expected, rtol=1e-8, atol=1e-10):
        return ("draw the epoch's n indices with rng.integers(0, n, size=n) once at its start, then visit them in "
                "that order; keep the projected-gradient test and the clipped step of the reference.")
    return None


@lru_cache(maxsize=1)
def _wide_optimum():
    X, y = datasets.make_random(n_samples=200, n_features=5000, random_state=0)
    model = fit_quietly(LinearSVM(solver="dcd", C=1.0, fit_intercept=False, tol=1e-10, max_iter=20_000,
                                  random_state=0), X, y)
    return SVMProblem(X, y, C=1.0).primal(model.coef_)


@exercise("10.3", wrong=[200.0, 0.0, 1.0])
def _(answer):
    if not is_number(answer):
        return "give one number: the optimal primal value P* of the wide problem."
    if not close(answer, _wide_optimum(), rtol=1e-5):
        return ("fit the Gram route tightly (tol=1e-10, enough epochs) and evaluate SVMProblem(X, y, C=1.0, "
                "kernel='linear').primal_at(model.alpha_); compare it with the linear fit's primal value.")
    return None


@lru_cache(maxsize=1)
def _price_of_no_bias():
    X, y = toy(500)
    smo = fit_quietly(KernelSVM(solver="smo", C=1.0, tol=1e-8, max_iter=10_000), X, y)
    free = SVMProblem(X, y, C=1.0, kernel="rbf", bias="free").primal_at(smo.alpha_)
    none = fit_quietly(KernelSVM(solver="dcd", C=1.0, fit_intercept=False, tol=1e-8, max_iter=10_000,
                                 random_state=0), X, y)
    return SVMProblem(X, y, C=1.0, kernel="rbf", bias="none").primal_at(none.alpha_) - free


@exercise("10.4", wrong=[0.0, -1.0, 100.0])
def _(answer):
    if not is_number(answer):
        return "give one number: P*(no bias) - P*(free bias)."
    expected = _price_of_no_bias()
    if close(answer, -expected, rtol=1e-3):
        return "check the order of the difference: which problem has more freedom?"
    if not close(answer, expected, rtol=1e-3, atol=1e-6):
        return ("fit both tightly and evaluate each primal on its own problem (bias='free' with SMO's alpha_, "
                "bias='none' with DCD's); the problem with a free b can only do as well or better.")
    return None
