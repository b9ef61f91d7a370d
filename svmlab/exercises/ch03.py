"""Checks of chapter 3's exercises (notebooks/03_dcd.ipynb)."""

from functools import lru_cache

import numpy as np

from .. import LinearSVM, SVMProblem
from . import close, exercise, fit_quietly, is_number, is_rounding, rounded, toy


def _l2_optimum(X, y, C):
    """The optimal value of the C-form L2-loss primal (bias as a feature, B = 1), and the model."""
    model = fit_quietly(LinearSVM(loss="squared_hinge", C=C, tol=1e-10, max_iter=100_000, random_state=0), X, y)
    problem = SVMProblem(X, y, C=C, loss="squared_hinge", bias="regularized")
    return problem.primal(model.coef_, model.intercept_), model


@exercise("3.1", wrong=[1.0, 0.5, 0.0])
def _(answer):
    X, y = toy(200)
    model = fit_quietly(LinearSVM(C=1.0, order="cyclic", shrinking=False, max_iter=1), X, y)
    if not is_number(answer):
        return "give one number, the new alpha_0"
    if close(answer, min(1.0 / (X[0] @ X[0]), 1.0)):
        return "the bias feature B = 1 belongs to x_0 too: it adds B^2 to Qbar_00"
    if not close(answer, model.alpha_[0], rtol=1e-8) and is_rounding(answer, model.alpha_[0]):
        return rounded(8)
    if not close(answer, model.alpha_[0], rtol=1e-8):
        return "at alpha = 0, w = 0 the gradient (3.4) is the same for every i; then clip the vertex to [0, C] by (3.5)"
    return None


def _first_step_decrease(sqnorm, C, B=1.0, D=None, half=True):
    """What the first step (3.5) on a variable with |x_i|^2 = sqnorm gains at alpha = 0, w = 0 (squared hinge):
    there G_i = -1 and U_i = inf, so the step is not clipped and f falls by G_i^2 / (2 Qbar_ii) by (3.3).
    ``D`` (default 1/(2C), table 3.2), ``B`` and ``half`` switch the parts a reader may drop."""
    qbar = sqnorm + B * B + (0.5 / C if D is None else D)
    return (0.5 if half else 1.0) / qbar


def _x0_sqnorm():
    """|x_0|^2 of exercise 3.2's subsample (without the bias feature)."""
    X, _ = toy(200)
    return float(X[0] @ X[0])


def _first_step_slips():
    """The likely wrong answers to 3.2 on the subsample's x_0, C = 0.01, by name."""
    s = _x0_sqnorm()
    return {
        "no D": _first_step_decrease(s, 0.01, D=0.0),            # Qbar_00 without D_00
        "no B": _first_step_decrease(s, 0.01, B=0.0),            # without the bias feature's B^2
        "step": _first_step_decrease(s, 0.01, half=False),       # G^2 / Qbar without the 1/2; here also delta itself
        "C = 1": _first_step_decrease(s, 1.0),                   # the C = 1 value of section 3.7's printout
        "D = 1/C": _first_step_decrease(s, 0.01, D=100.0),       # Roethel & Brynda's eq. (3) diagonal
        "hinge": 0.01 - 0.5 * (s + 1.0) * 0.01 ** 2,             # the hinge: the step clipped at C = 0.01
        "sign": -_first_step_decrease(s, 0.01),                  # the change f(new) - f(old), not the decrease
    }


_SLIP_HINTS = {
    "no D": "Qbar_00 of the squared hinge holds D_00 as well: see table (3.2) and the line below (3.4)",
    "no B": "the bias feature B = 1 belongs to x_0 too: it adds B^2 to Qbar_00 (section 3.2)",
    "step": "that is the length of the step, not what it gains: put the step into (3.3) and keep both terms",
    "C = 1": "that is the value at C = 1, which section 3.7 prints; D_00 depends on C (3.2)",
    "D = 1/C": "D_00 = 1/C is the diagonal of Roethel & Brynda's eq. (3); this book's squared hinge uses table (3.2)",
    "hinge": "that is what the hinge's step gains, clipped at C; the exercise asks for the squared hinge",
    "sign": "that is the change f(new) - f(old); give the decrease, a positive number",
}


@exercise("3.2", wrong=[0.0, *_first_step_slips().values()])
def _(answer):
    if not is_number(answer):
        return "give one number, the decrease f(alpha) - f(alpha + delta e_0) of the first step"
    expected = _first_step_decrease(_x0_sqnorm(), 0.01)
    if close(answer, expected):
        return None
    for name, value in _first_step_slips().items():
        if close(answer, value, rtol=1e-3):
            return _SLIP_HINTS[name]
    if is_rounding(answer, expected, digits=range(2, 7)):
        return rounded()
    return ("start from alpha = 0, w = 0: the gradient (3.4), Qbar_00 of section 3.2 and the step (3.5), "
            "then the change (3.3)")


@lru_cache(maxsize=None)
def _decision_values(C):
    """decision_function on the 200-point toy of the tight L2-loss fit at C (3.3's check)."""
    X, y = toy(200)
    return _l2_optimum(X, y, C)[1].decision_function(X)


def _slack_only(f, y, C):
    return np.maximum(0.0, 1.0 - y * f)


def _unclipped(f, y, C):
    return 2.0 * C * (1.0 - y * f)


@exercise("3.3", wrong=[np.zeros(200), _slack_only, _unclipped, lambda f, y, C: C * np.maximum(0.0, 1.0 - y * f)])
def _(answer):
    if not callable(answer):
        return "the answer is a function alpha_from_margins(f, y, C) returning one alpha_i per sample"
    _, y = toy(200)
    for C in (1.0, 0.3):
        f = _decision_values(C)
        got = np.asarray(answer(f.copy(), y.copy(), C), dtype=float)
        if got.shape != y.shape:
            return "return one alpha_i per sample (an array of the length of y)"
        if (got < 0).any():
            return ("alpha_i >= 0 for every sample: which points does the complementary slackness of section 2.7 "
                    "leave at 0?")
        slack = np.maximum(0.0, 1.0 - y * f)
        if close(got, 2.0 * C * slack, rtol=1e-12, atol=1e-14):
            continue
        if close(got, slack, rtol=1e-12, atol=1e-14):
            return "that is the slack xi_i itself; look again at how (2.12) ties alpha_i to it"
        return (f"wrong at C = {C:g}: see (2.12) for alpha_i and the slack xi_i, and section 2.7's complementary "
                "slackness for the points beyond their margin")
    return None


def _shortening(sqnorm, C):
    """The double diagonal's step over (3.5)'s from alpha_i = 0 with G_i < 0: -G / (sqnorm + 1/C)
    against -G / (sqnorm + 1/(2C))."""
    return (sqnorm + 0.5 / C) / (sqnorm + 1.0 / C)


@exercise("3.4", wrong=[0.5, lambda sqnorm, C: 1.0 / _shortening(sqnorm, C),   # the inverse
                        lambda sqnorm, C: sqnorm / (sqnorm + 0.5 / C),           # against a step without D_ii
                        lambda sqnorm, C: 0.5])
def _(answer):
    if not callable(answer):
        return "the answer is a function shortening(sqnorm, C) returning the factor, a number"
    for sqnorm in (0.5, 2.0, 5.0, 30.0):
        for C in (0.01, 0.1, 1.0, 10.0):
            got = answer(sqnorm, C)
            if not is_number(got):
                return "return one number, the printed step over (3.5)'s"
            if close(got, _shortening(sqnorm, C), rtol=1e-10):
                continue
            if close(got, 1.0 / _shortening(sqnorm, C), rtol=1e-10):
                return "that is (3.5)'s step over the printed one; the question asks the other way round (a factor below 1)"
            return (f"wrong at |x_i|^2 + B^2 = {sqnorm:g}, C = {C:g}: write both steps from alpha_i = 0 as -G_i over a "
                    "diagonal and compare the two diagonals")
    return None


@lru_cache(maxsize=None)
def _dw_distance():
    X, y = toy()
    P_star, _ = _l2_optimum(X, y, 0.1)
    model = fit_quietly(LinearSVM(loss="squared_hinge", C=0.1, tol=1e-3, stopping="dw", random_state=0), X, y)
    problem = SVMProblem(X, y, C=0.1, loss="squared_hinge", bias="regularized")
    return (problem.primal(model.coef_, model.intercept_) - P_star) / P_star


@exercise("3.5", wrong=[0.0, 1.0, -1.0])
def _(answer):
    if not is_number(answer):
        return "give one number, (P - P*) / P*"
    expected = _dw_distance()
    if answer < 0:
        return "P* is the optimum: no feasible w has a smaller primal value, so (P - P*) / P* >= 0"
    if not close(answer, expected, rtol=1e-3, atol=1e-15) and is_rounding(answer, expected, digits=range(1, 3)):
        return rounded(3)
    if not close(answer, expected, rtol=1e-3, atol=1e-15):
        return "fit with stopping='dw' at tol=1e-3 and C=0.1, then compare its primal with the tight fit's"
    return None
