"""Checks of chapter 5's exercises (notebooks/05_smo.ipynb)."""

import numpy as np

from ..kernels import kernel_matrix, make_kernel
from ..reference import smo as reference
from . import close, exercise, is_number, is_rounding, rounded

# exercise 5.1: a pair at alpha_i = 0.7, alpha_j = 0.2, C = 1, y_i = +1, y_j = -1
ALPHA_I, ALPHA_J, C, Y_I, Y_J = 0.7, 0.2, 1.0, 1.0, -1.0


def box(ai, aj, yi, yj, c):
    """[L, H] of t in alpha + t (y_i e_i - y_j e_j) that keeps both in [0, c] (eqs. 5.5-5.7)."""
    lo_i, hi_i = (-ai, c - ai) if yi > 0 else (ai - c, ai)
    lo_j, hi_j = (aj - c, aj) if yj > 0 else (-aj, c - aj)
    return max(lo_i, lo_j), min(hi_i, hi_j)


@exercise("5.1", wrong=[(-0.7, 0.3), (-0.7, 0.2), (-0.2, 0.8)])
def _(answer):
    if np.shape(answer) != (2,):
        return "give the interval as a pair (L, H)"
    if close(answer, box(ALPHA_I, ALPHA_J, Y_I, -Y_J, C)):
        return "that is the box for equal labels; here y_j = -1, so alpha_j moves with the same sign as alpha_i"
    if not close(answer, box(ALPHA_I, ALPHA_J, Y_I, Y_J, C)):
        return "write the interval each variable allows for t, from 0 <= alpha <= C, and intersect the two"
    return None


@exercise("5.2", wrong=["free", "neither", "both", "none", 1])
def _(answer):
    if answer not in ("free", "bias-free", "neither"):
        return 'answer "free", "bias-free" or "neither"'
    if answer == "neither":
        return "section 5.8 prints one data set; compare the feasible sets of the two duals"
    if answer == "free":
        return "compare the feasible sets of the two duals"
    return None


def _bias_steps():
    """Steps of the 5.3 check: (b_old, E_b, d_a, d_b, y_a, y_b, K_ab, K_bb, the b_new of the margin
    condition), drawn at random: g(x_b) before the step, then g after it changed by both variables.
    They are pair steps, y_a d_a + y_b d_b = 0, so any formula that holds on SMO's steps passes
    (also one written with the pair constraint, in d_a alone)."""
    rng = np.random.default_rng(53)
    for _ in range(6):
        b_old, g_b = rng.normal(size=2)
        d_a = rng.uniform(0.2, 1.0) * rng.choice([-1.0, 1.0])  # away from 0: Gu's printed formula is off by d_b y_b K_bb
        y_a, y_b = rng.choice([-1.0, 1.0], size=2)
        d_b = -y_a * y_b * d_a  # the pair keeps y_a lambda_a + y_b lambda_b
        K_ab, K_bb = rng.uniform(0.1, 1.0, size=2)
        g_new = g_b - d_a * y_a * K_ab - d_b * y_b * K_bb  # g(x) = sum_k lambda_k y_k K(x_k, x)
        yield b_old, g_b + b_old - y_b, d_a, d_b, y_a, y_b, K_ab, K_bb, y_b - g_new


def _as_printed(b_old, E_b, d_a, d_b, y_a, y_b, K_ab, K_bb):
    return b_old - E_b + d_a * y_a * K_ab  # Gu's bracket (lambda_b - lambda_b) = 0


def _without_b_old(b_old, E_b, d_a, d_b, y_a, y_b, K_ab, K_bb):
    return -E_b + d_a * y_a * K_ab + d_b * y_b * K_bb


@exercise("5.3", wrong=[0.0, _as_printed, _without_b_old,
                        lambda b_old, E_b, d_a, d_b, y_a, y_b, K_ab, K_bb: b_old + E_b + d_a * y_a * K_ab + d_b * y_b * K_bb])
def _(answer):
    if not callable(answer):
        return "the answer is a function bias_update(b_old, E_b, d_a, d_b, y_a, y_b, K_ab, K_bb) returning b_new"
    for *args, expected in _bias_steps():
        got = answer(*args)
        if not is_number(got):
            return "return one number, b_new"
        if close(got, expected, rtol=1e-10, atol=1e-12):
            continue
        if close(got, _as_printed(*args), rtol=1e-10, atol=1e-12):
            return "that is the formula as Gu prints it; the step also moved lambda_b, and g(x_b) with it"
        if close(got, _without_b_old(*args), rtol=1e-10, atol=1e-12):
            return "E_b holds b_old: write g(x_b) through E_b before you solve for b_new"
        return "write g(x_b) after the step through g(x_b) before it and the two changes, then solve y_b (g(x_b) + b_new) = 1"
    return None


def updates_ratio():
    """Pair updates of the readable SMO at tol 1e-6 over those at tol 1e-2 (exercise 5.4)."""
    from ..datasets import make_toy

    X, y = make_toy(150, random_state=1)
    Q = y[:, None] * kernel_matrix(make_kernel("rbf", X), X, X) * y[None, :]
    loose = reference.smo(Q, y, np.full(150, 1.0), tol=1e-2)[2]
    tight = reference.smo(Q, y, np.full(150, 1.0), tol=1e-6)[2]
    return tight / loose


@exercise("5.4", wrong=[1.0, 0.5, 100.0])
def _(answer):
    if not is_number(answer) or answer <= 0:
        return "give the ratio of two update counts, a positive number"
    if close(answer, 1.0 / updates_ratio()):
        return "the other way round: tol=1e-6's updates divided by tol=1e-2's"
    if is_rounding(answer, updates_ratio()):
        return rounded()
    if not close(answer, updates_ratio()):
        return "run reference.smo on the Q of the cell twice, tol=1e-2 and tol=1e-6, and divide the third outputs"
    return None
