"""Checks of chapter 9's exercises (notebooks/10_svr.ipynb)."""

import numpy as np

from .. import LinearSVR, SVRProblem
from ..datasets import make_noisy_line
from ..reference.svr import dcd_svr
from . import close, exercise, fit_quietly, is_number, rounded

# exercise 9.1: one DCD step at beta_i = 0 with G = -1.5, H = 2, epsilon = 0.5, U = 1
G, H, BETA, EPSILON, U = -1.5, 2.0, 0.0, 0.5, 1.0


def phi(t, g, h, beta, epsilon):
    """The one-variable subproblem (eq. 9.7) at the new value t of beta_i."""
    return g * (t - beta) + 0.5 * h * (t - beta) ** 2 + epsilon * np.abs(t)


def best_of_candidates(g, h, beta, epsilon, u):
    """The subproblem's minimiser found by enumeration: each smooth piece's stationary point
    clipped to the box, the kink and the box's ends; the one with the least phi."""
    candidates = [0.0, -u, u]
    if h > 0:
        candidates += [float(np.clip(beta - (g + s) / h, -u, u)) for s in (epsilon, -epsilon)]
    return min(candidates, key=lambda t: phi(t, g, h, beta, epsilon))


@exercise("9.1", wrong=[0.75, 1.0, 0.0, 0.25])
def _(answer):
    if not is_number(answer):
        return "give one number, the new value of beta_i"
    if close(answer, BETA - G / H):
        return "that minimises the quadratic without the epsilon |t| term; add its slope on the side you land"
    if not close(answer, best_of_candidates(G, H, BETA, EPSILON, U)):
        return "decide the sign of the new beta_i first (compare G + epsilon and G - epsilon with 0), then clip"
    return None


def line_targets():
    """Exercise 9.2's two target vectors: chapter 9's noisy line (section 9.6), z, and the same
    line moved down by 1, z - 1. The largest |z_i| is a sample above f = 0 for the first and one
    below it for the second, so a condition checked on one side of the kink fails one of them."""
    x, z = make_noisy_line()
    return z, z - 1.0


def _pair(statistic):
    """(statistic(z), statistic(z - 1)): an answer to exercise 9.2 as a reader would compute it."""
    return tuple(float(statistic(t)) for t in line_targets())


def _smallest(t):
    return np.max(np.abs(t))


_Z = line_targets()[0]


@exercise("9.2", wrong=[_pair(np.max),                                  # one-sided: epsilon >= z_i only
                        _pair(lambda t: np.max(-t)),                    # one-sided: epsilon >= -z_i only
                        (float(np.max(_Z)),) * 2,                       # one-sided, the line not moved down
                        (float(np.max(-_Z)),) * 2,                      # the other side, not moved down
                        (float(_smallest(_Z)),) * 2,                    # |z_i|, the line not moved down
                        _pair(_smallest)[::-1],                         # the two in the wrong order
                        _pair(lambda t: np.mean(np.abs(t))),            # an average coordinate
                        float(_smallest(_Z)),                           # one number, not a pair
                        (0.0, 0.0), (1.0, 1.0)])
def _(answer):
    if not (isinstance(answer, (tuple, list, np.ndarray)) and len(answer) == 2 and all(is_number(a) for a in answer)):
        return "give a pair (epsilon for targets z, epsilon for targets z - 1), two numbers"
    targets = line_targets()
    right = [float(_smallest(t)) for t in targets]
    given = [float(a) for a in answer]
    if close(given, right):
        return None
    if close(given, right, rtol=1e-3):
        return rounded()
    if close(given, right[::-1]):
        return "give the two values in the order asked: targets z first, then z - 1"
    if close(given[1], right[0]) or close(given[1], np.max(targets[0])) or close(given[1], np.max(-targets[0])):
        return "the second value is for the line moved down by 1, targets z - 1"
    for k, (a, t) in enumerate(zip(given, targets)):
        if not close(a, right[k]) and (close(a, np.max(t)) or close(a, np.max(-t))):
            return (f"your {('first', 'second')[k]} value checks one side of the kink only: beta_i = 0 must "
                    "beat moving to t > 0 and to t < 0 (both slopes of eq. 9.7 at t = 0)")
    if any(close(a, np.mean(np.abs(t))) for a, t in zip(given, targets)):
        return "beta = 0 must satisfy the optimality condition of every coordinate, not of an average one"
    return "write coordinate i's optimality condition at beta = 0, where w = 0 (eq. 9.9), for each target vector"


def _reader_cases(rng, n=200):
    """Random subproblems (G, H, beta, epsilon, U) with beta inside the box, some with H = 0."""
    for k in range(n):
        u = float(rng.uniform(0.2, 3.0))
        h = 0.0 if k % 10 == 0 else float(rng.uniform(0.1, 4.0))
        yield float(rng.normal(0, 2)), h, float(rng.uniform(-u, u)) * (k % 3 != 0), float(rng.uniform(0, 1.5)), u


def _step_problem(step):
    """Why ``step`` is not exercise 9.3's step, or None: on random subproblems it must return a point
    of [-U, U] whose phi is no larger than the least of the candidates'."""
    for g, h, beta, epsilon, u in _reader_cases(np.random.default_rng(9)):
        t = float(step(g, h, beta, epsilon, u))
        best = best_of_candidates(g, h, beta, epsilon, u)
        if not (-u - 1e-12 <= t <= u + 1e-12):
            return "the new beta_i must stay in [-U, U]"
        if phi(t, g, h, beta, epsilon) > phi(best, g, h, beta, epsilon) + 1e-9:
            kind = "H = 0 (a piecewise linear subproblem)" if h == 0 else ("a step that crosses t = 0"
                                                                             if best * beta < 0 else "some cases")
            return f"your step does not minimise phi for {kind}; look at each side of the kink separately"
    return None


# exercise 9.3's DCD loop: section 9.4's problem, the noisy line with C = 1, epsilon = 0.3 and the bias as
# a feature B = 1; _EARLY is the beta of a right loop stopped after 20 epochs instead of 2000
_X_LINE, _Z_LINE = make_noisy_line()
_N_LINE = _Z_LINE.shape[0]
_EARLY = np.array(dcd_svr(_X_LINE[:, None], _Z_LINE, C=1.0, epsilon=0.3, B=1.0, tol=0.0, max_iter=20)[0])


@exercise("9.3", wrong=[(lambda g, h, beta, epsilon, u: float(np.clip(beta - g / max(h, 1e-12), -u, u)), _EARLY),
                        (lambda g, h, beta, epsilon, u: float(np.clip(beta - (g + epsilon) / max(h, 1e-12), -u, u)),
                         _EARLY),
                        (lambda g, h, beta, epsilon, u: 0.0, np.zeros(_N_LINE)),
                        (best_of_candidates, np.zeros(_N_LINE)),        # a right step, the loop not run
                        (best_of_candidates, _EARLY),                   # stopped after 20 epochs
                        (best_of_candidates, _EARLY[:-1]),              # one coordinate short
                        best_of_candidates])                            # the function alone
def _(answer):
    if not (isinstance(answer, tuple) and len(answer) == 2 and callable(answer[0])):
        return "give the pair (step, beta): your function step(G, H, beta, epsilon, U), then the beta of your DCD loop"
    step, beta = answer
    wrong_step = _step_problem(step)
    if wrong_step:
        return wrong_step
    try:
        beta = np.asarray(beta, dtype=float)
    except (TypeError, ValueError):
        return "beta must be an array of numbers, one per sample of the noisy line"
    if beta.shape != (_N_LINE,):
        return f"beta must have one entry per sample of the noisy line ({_N_LINE}), not shape {beta.shape}"
    if np.any(np.abs(beta) > 1.0 + 1e-12):
        return "every beta_i must stay in [-C, C] = [-1, 1]"
    gap = SVRProblem(_X_LINE[:, None], _Z_LINE, C=1.0, epsilon=0.3, bias="regularized").gap(beta)
    if not gap < 1e-6:
        return (f"the duality gap at your beta is {gap:.1e}, not below 1e-6: run 2000 epochs in index order, "
                "each step followed by its update of w = sum_j beta_j x_j (section 9.4), with the bias feature "
                "B = 1 in every x_i and in H")
    return None


def fitted_line(C=1.0, epsilon=0.3):
    """LinearSVR on chapter 9's noisy line (with bias), fitted tightly, and the data."""
    x, z = make_noisy_line()
    model = fit_quietly(LinearSVR(C=C, epsilon=epsilon, tol=1e-8, max_iter=20000, random_state=0), x[:, None], z)
    return model, x, z


@exercise("9.4", wrong=[0, 60, 29, 28, 17])
def _(answer):
    if not is_number(answer) or answer != int(answer):
        return "give a count, a whole number"
    model, x, z = fitted_line(C=0.5, epsilon=0.2)
    at_bound = int(np.count_nonzero(np.isclose(np.abs(model.alpha_), model.C, rtol=1e-6)))
    residual = np.abs(z - model.predict(x[:, None]))
    if answer == len(model.support_) and at_bound != answer:
        return "that counts every support vector; only those with |beta_i| = C"
    if answer == np.count_nonzero(residual > model.epsilon) and at_bound != answer:
        return ("that counts |r_i| > epsilon with no tolerance, which may take in samples on the edge by rounding; "
                "count |beta_i| = C (np.isclose on model.alpha_)")
    if answer != at_bound:
        return "count the samples with |beta_i| equal to C (use np.isclose on model.alpha_)"
    return None
