"""Checks of chapter 10's exercises (which solver when)."""

from functools import lru_cache

import numpy as np

from .. import datasets
from ..estimators import KernelSVM, LinearSVM
from ..problem import SVMProblem
from ..reference.dcd import dcd
from . import close, exercise, fit_quietly, is_number, is_rounding, rounded, toy

C_101 = 0.1  # 10.1: the Newton step at w = 0, feature 0, breast cancer without bias
C_102, EPOCHS_102 = 0.5, 5  # 10.2: DCD with indices drawn with replacement


def _derivatives():
    """(P'_j, P''_j) of exercise 10.1 at w = 0: every margin is 0 < 1, so every sample is in I."""
    X, y = datasets.load_breast_cancer()
    x = X[:, 0]
    return -2.0 * C_101 * np.sum(y * x), 1.0 + 2.0 * C_101 * np.sum(x * x)


def _chain_rule_slips(first, second):
    """Newton steps with the square's factor 2 lost by the chain rule: in P''_j, in both derivatives
    (a 1/2 on the loss), in P'_j only."""
    half_second = 1.0 + (second - 1.0) / 2
    return [-first / half_second, -0.5 * first / half_second, -0.5 * first / second]


def _newton_slips():
    first, second = _derivatives()
    return ([first / second]                            # the step along the derivative (wrong sign)
            + _chain_rule_slips(first, second)
            + [-first / (second - 1.0)])                # P''_j without the regulariser's 1


@exercise("10.1", wrong=[10.0, -1.0, 0.0], derived=_newton_slips)
def _(answer):
    if not is_number(answer):
        return "give one number: the Newton step z_N = -P'_j / P''_j."
    first, second = _derivatives()
    if close(answer, -first, rtol=1e-6) or close(answer, first, rtol=1e-6):
        return "that is the first derivative alone; Newton divides it by the second derivative."
    if any(close(answer, z, rtol=1e-6) for z in _chain_rule_slips(first, second)):
        return "redo the derivatives of the squared terms C (1 - m_i)^2 (chain rule), in P'_j and in P''_j alike."
    if close(answer, first / second, rtol=1e-6):
        return "check the sign: the step goes against the derivative."
    if close(answer, -first / second, rtol=1e-3) and not close(answer, -first / second, rtol=1e-6):
        return rounded()
    if not close(answer, -first / second, rtol=1e-6):
        return ("recheck P'_j and P''_j term by term (which samples are in I at w = 0?), and the data, feature and C "
                "of the prompt.")
    return None


def _hinge_dcd(X, y, C, epochs, orders, tol=None):
    """Hinge-loss DCD without bias over the given index sequences (one an epoch); returns alpha.
    With ``tol``, it keeps the reference's stopping test (max PG - min PG <= tol over an epoch)."""
    n, d = X.shape
    alpha, w = np.zeros(n), np.zeros(d)
    QD = np.einsum("ij,ij->i", X, X)
    for order in orders(n, epochs):
        pg_max, pg_min = -np.inf, np.inf
        for i in order:
            G = y[i] * (w @ X[i]) - 1.0
            PG = min(G, 0.0) if alpha[i] == 0.0 else (max(G, 0.0) if alpha[i] == C else G)
            pg_max, pg_min = max(pg_max, PG), min(pg_min, PG)
            if abs(PG) > 1e-12:
                old = alpha[i]
                alpha[i] = min(max(old - G / QD[i], 0.0), C)
                w += (alpha[i] - old) * y[i] * X[i]
        if tol is not None and pg_max - pg_min <= tol:
            break
    return alpha


def _with_replacement(rng):
    return lambda n, k: (rng.integers(0, n, size=n) for _ in range(k))


def _stopping_dcd(X, y, C, epochs, rng):
    """The copied loop with the reference's stopping test kept (tol=1e-4): fewer epochs once it is met."""
    return _hinge_dcd(X, y, C, epochs, _with_replacement(rng), tol=1e-4)


def _permutation_dcd(X, y, C, epochs, rng):
    return np.asarray(dcd(X, y, C, tol=0.0, max_iter=epochs, order="permutation", rng=rng)[0])


def _cyclic_dcd(X, y, C, epochs, rng):
    return np.asarray(dcd(X, y, C, tol=0.0, max_iter=epochs)[0])


@exercise("10.2", wrong=[_permutation_dcd, _cyclic_dcd, _stopping_dcd])
def _(answer):
    if not callable(answer):
        return "answer with your function dcd_with_replacement(X, y, C, epochs, rng) itself."
    X, y = datasets.make_random(n_samples=60, n_features=5, random_state=3)
    # 30 epochs too: with seed 11 every PG of epoch 20's draws is 0, so a kept stopping test ends the run there
    for epochs in (EPOCHS_102, 30):
        expected = _hinge_dcd(X, y, C_102, epochs, _with_replacement(np.random.default_rng(11)))
        got = np.asarray(answer(X, y, C_102, epochs, np.random.default_rng(11)), dtype=float)
        if got.shape != expected.shape:
            return "return alpha, one value per sample, as a NumPy array."
        if not close(got, expected, rtol=1e-8, atol=1e-10) and epochs == EPOCHS_102:
            return ("draw the epoch's n indices with rng.integers(0, n, size=n) once at its start, then visit them in "
                    "that order; keep the projected-gradient test and the clipped step of the reference.")
        if not close(got, expected, rtol=1e-8, atol=1e-10):
            return "run exactly `epochs` epochs: the function has no tol, so the reference's stopping test goes."
    return None


@lru_cache(maxsize=None)
def _wide_optimum(tol=1e-10):
    """P at the linear DCD fit of exercise 10.3's wide problem at ``tol``: P* at the prompt's 1e-10."""
    X, y = datasets.make_random(n_samples=200, n_features=5000, random_state=0)
    model = fit_quietly(LinearSVM(solver="dcd", C=1.0, fit_intercept=False, tol=tol, max_iter=20_000,
                                  random_state=0), X, y)
    return SVMProblem(X, y, C=1.0).primal(model.coef_)


def _wide_slips():
    return [float(f"{_wide_optimum():.5g}"),   # P* rounded to 5 digits
            _wide_optimum(1e-6),               # not converged to 5 digits
            _wide_optimum(1e-4)]               # at LinearSVM's default tol


@exercise("10.3", wrong=[200.0, 0.0, 1.0], derived=_wide_slips)
def _(answer):
    if not is_number(answer):
        return "give one number: the optimal primal value P* of the wide problem."
    expected = _wide_optimum()
    if close(answer, expected, rtol=1e-5):
        return None
    if is_rounding(answer, expected):
        return rounded(5)
    return ("fit the Gram route tightly (tol=1e-10, enough epochs) and evaluate SVMProblem(X, y, C=1.0, "
            "kernel='linear').primal_at(model.alpha_); compare it with the linear fit's primal value.")


@lru_cache(maxsize=None)
def _price_of_no_bias(tol=1e-8):
    """P*(no bias) - P*(free bias) of exercise 10.4, both fitted at ``tol`` (the prompt's: 1e-8)."""
    X, y = toy(500)
    smo = fit_quietly(KernelSVM(solver="smo", C=1.0, tol=tol, max_iter=10_000), X, y)
    free = SVMProblem(X, y, C=1.0, kernel="rbf", bias="free").primal_at(smo.alpha_)
    none = fit_quietly(KernelSVM(solver="dcd", C=1.0, fit_intercept=False, tol=tol, max_iter=10_000,
                                 random_state=0), X, y)
    return SVMProblem(X, y, C=1.0, kernel="rbf", bias="none").primal_at(none.alpha_) - free


def _price_slips():
    return [-_price_of_no_bias(),                      # P*(free bias) - P*(no bias)
            float(f"{_price_of_no_bias():.3g}"),       # rounded to 3 digits
            _price_of_no_bias(1e-4)]                   # both fitted at tol=1e-4, not tightly


@exercise("10.4", wrong=[0.0, -1.0, 100.0], derived=_price_slips)
def _(answer):
    if not is_number(answer):
        return "give one number: P*(no bias) - P*(free bias)."
    expected = _price_of_no_bias()
    if close(answer, -expected, rtol=1e-3):
        return "check the order of the difference the prompt asks for, P*(no bias) - P*(free bias)."
    if close(answer, expected, rtol=1e-4, atol=1e-7):  # tight fits (tol=1e-8, any seed) agree to ~1e-6
        return None
    if is_rounding(answer, expected):
        return rounded(4)
    return ("fit both tightly (tol=1e-8, enough epochs to converge) and evaluate each primal on its own problem "
            "(bias='free' with SMO's alpha_, bias='none' with DCD's).")
