"""Checks of chapter 8's exercises (notebooks/09_distributed.ipynb)."""

import numpy as np

from ..objective import HINGE, dual_value
from . import close, exercise, is_number, is_rounding, rounded

# exercise 8.1: one coordinate of a block's local subproblem
SIGMA, SQNORM, G, ALPHA, U = 4.0, 0.5, -0.3, 0.1, 1.0
# exercise 8.2: the bytes of one round
K, D = 8, 100
# exercise 8.4: a dual point and two blocks' changes (rows of A are y_i x_i)
_rng = np.random.default_rng(8)
A = _rng.standard_normal((6, 3))
ALPHA0 = np.full(6, 0.2)
DELTAS = [np.r_[0.5, 0.3, 0.4, 0, 0, 0], np.r_[0, 0, 0, 0.6, 0.2, 0.5]]


def dual(alpha):
    """D(alpha) of the hinge SVM without bias, C = 1, on the rows of A (eq. 2.9)."""
    return _hinge_dual(A, alpha)


def _hinge_dual(rows, alpha):
    """D(alpha) of the hinge SVM without bias, C = 1, on the given rows y_i x_i."""
    w = rows.T @ alpha
    return dual_value(alpha, float(w @ w), np.ones(len(alpha)), HINGE)


@exercise("8.1", wrong=[0.7, 0.4, 0.1])
def _(answer):
    if not is_number(answer):
        return "give the new alpha_i as a number"
    if close(answer, min(max(ALPHA - G / SQNORM, 0.0), U)):
        return ("that is DCD's step on the whole dual (sigma' = 1); the block's subproblem (8.2) has its own curvature "
                "(eq. 8.3)")
    if not close(answer, min(max(ALPHA - G / (SIGMA * SQNORM), 0.0), U)):
        return "minimise the one-variable quadratic of the subproblem, then clip to [0, U_i]"
    return None


@exercise("8.2", wrong=[2 * K * D * 8, K * D * 8, 2 * K * (D + 1), 8 * K * 2 * (D + 1)])
def _(answer):
    if not is_number(answer):
        return "give the bytes as a number"
    if close(answer, 8 * K * 2 * (D + 1)):  # the same number without the two sums or without the bias: one hint
        return "two numbers per block are missing: the two sums sent back, or the bias feature's weight in w and in dw"
    if not close(answer, 8 * K * (2 * (D + 1) + 2)):
        return "count what goes out (w) and what comes back (dw and two sums) per block, 8 bytes a number"
    return None


def rounds(local_passes):
    """Rounds CoCoA+ takes on exercise 8.3's problem with ``local_passes`` passes a round."""
    from ..datasets import make_dense
    from ..distributed import LinearSVM

    X, y = make_dense(4000, 20, random_state=0)
    model = LinearSVM(C=0.01, loss="squared_hinge", tol=1e-3, max_rounds=2000, n_blocks=2, local_passes=local_passes,
                      random_state=0)
    return model.fit(X, y).n_iter_


@exercise("8.3", wrong=[1.0, 0.5, 10.0, 17.0])  # 17: the ratio rounded to an integer
def _(answer):
    if not is_number(answer) or answer <= 0:
        return "give the ratio of two round counts, a positive number"
    if close(answer, 1.0):
        return "the two runs took the same rounds: did you change local_passes between them?"
    expected = rounds(0.1) / rounds(1.0)
    if close(answer, expected):
        return None
    if is_rounding(answer, expected, digits=range(2, 6)):
        return rounded()
    return "rerun both fits exactly as the cell says (same data, tol, random_state) and divide H=0.1's by H=1's"


def _averaging_cases():
    """(A, alpha, Delta_1, Delta_2) on which 8.4's function is tried: random rows and changes."""
    rng = np.random.default_rng(84)
    for n, d in ((6, 3), (9, 4), (5, 7)):
        yield rng.standard_normal((n, d)), rng.uniform(0, 1, n), rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n)


def _quarter(A, delta_1, delta_2):
    v = A.T @ (delta_1 - delta_2)
    return 0.25 * v @ v


@exercise("8.4", wrong=[0.0, _quarter, lambda A, delta_1, delta_2: -0.125 * np.sum((A.T @ (delta_1 - delta_2)) ** 2),
                        lambda A, delta_1, delta_2: 0.0])
def _(answer):
    if not callable(answer):
        return "the answer is a function averaging_gain(A, delta_1, delta_2) returning one number"
    for A, alpha, d1, d2 in _averaging_cases():
        expected = _hinge_dual(A, alpha + 0.5 * (d1 + d2)) - 0.5 * (_hinge_dual(A, alpha + d1) + _hinge_dual(A, alpha + d2))
        got = answer(A.copy(), d1.copy(), d2.copy())
        if not is_number(got):
            return "return one number, the difference"
        if close(got, expected, rtol=1e-10, atol=1e-12):
            continue
        if close(got, -expected, rtol=1e-10, atol=1e-12):
            return "the sign: the dual at the averaged point comes first"
        if close(got, 2.0 * expected, rtol=1e-10, atol=1e-12):
            return "a factor of 2: the midpoint's quadratic term is 1/2 |A'(a + (d1 + d2)/2)|^2; expand all three"
        return "expand the three duals of eq. 2.9 term by term: which terms cancel, and which are left?"
    return None
