"""Checks of chapter 6's exercises (SDCA, the smoothed hinge, ASDCA)."""

import math

import numpy as np

from .. import datasets
from ..estimators import LinearSVM
from ..reference.stochastic import sdca_hinge
from . import close, exercise, fit_quietly, is_number

# 6.1: the squared hinge's dual term at one sample, alpha_hat = alpha_i y_i outside the hinge's box
ALPHA_HAT_61 = 1.5
# 6.2: where the batch size sets ASDCA's theta, for unit rows
MU_62, K_62, R2_62 = 0.2, 8, 1.0


@exercise("6.1", wrong=[1.5, 0.375, -0.75, math.inf])
def _(answer):
    # inf over a of alpha_hat a + max(0, 1 - a)^2, at a = 1 - alpha_hat / 2
    expected = ALPHA_HAT_61 - ALPHA_HAT_61**2 / 4
    if not is_number(answer):
        return "give one number: the value of -phi*(-alpha_i)."
    if not math.isfinite(answer):
        return ("alpha_hat = alpha_i y_i = 1.5 lies outside the hinge's box [0, 1], but the squared hinge keeps "
                "growing as the margin falls below 1: the term is finite.")
    if close(answer, ALPHA_HAT_61, rtol=1e-9):
        return "that is the plain hinge's term; squaring the loss adds a quadratic in alpha_hat."
    if close(answer, ALPHA_HAT_61 - ALPHA_HAT_61**2 / 2, rtol=1e-9):
        return "that is the term of max(0, 1 - y a)^2 / 2; this loss has no factor 1/2: redo the supremum."
    if not close(answer, expected, rtol=1e-6):
        return ("take y_i = +1, so that -alpha_i = -alpha_hat: where does the derivative of "
                "-alpha_hat a - max(0, 1 - a)^2 in the score a vanish?")
    return None


def _sqrt_term_interval():
    """The C of 6.2's interval: sqrt(kappa/k) is the least of the four terms exactly when 1/k <= kappa <= k,
    and kappa = mu / (C R^2)."""
    return MU_62 / (K_62 * R2_62), MU_62 * K_62 / R2_62


@exercise("6.2", wrong=[0.0559, (1 / 8, 8.0), (1.6, 0.025), (0.025, 0.2)])
def _(answer):
    low, high = _sqrt_term_interval()
    if np.shape(answer) != (2,):
        return "give a pair (smallest C, largest C) of the interval"
    if close(answer, (1 / K_62, K_62)):
        return "that is the interval of kappa; convert it to C with kappa = mu / (C R^2)"
    if close(answer, (high, low)):
        return "the smaller C first"
    if not close(answer, (low, high)):
        return ("compare sqrt(kappa/k) with each of the other three terms: each comparison is a bound on kappa; "
                "then write kappa = mu / (C R^2)")
    return None


def _sdca_unsmoothed(X, y, lam, mu, sequence):
    return sdca_hinge(X, y, lam, sequence)


def _sdca_with(new_alpha_hat):
    """A registered slip of exercise 6.3: the right loop over ``sequence`` (lambda-form alpha,
    w = sum_i alpha_i x_i / (lam n)) with a wrong step, the new alpha_hat given by
    ``new_alpha_hat(alpha_hat, margin y_i x_i . w, q_i, mu)``."""
    def run(X, y, lam, mu, sequence):
        n, d = X.shape
        alpha, w = np.zeros(n), np.zeros(d)
        for i in sequence:
            q = X[i] @ X[i] / (lam * n)
            alpha_hat = new_alpha_hat(y[i] * alpha[i], y[i] * (X[i] @ w), q, mu)
            delta = y[i] * alpha_hat - alpha[i]
            alpha[i] += delta
            w += delta * X[i] / (lam * n)
        return alpha, w
    return run


_sdca_no_mu_in_numerator = _sdca_with(lambda a, m, q, mu: np.clip(a + (1 - m) / (q + mu), 0.0, 1.0))
_sdca_unclipped_above = _sdca_with(lambda a, m, q, mu: max(a + (1 - m - mu * a) / (q + mu), 0.0))  # no clip at 1


def _library_smoothed(X, y, lam, mu, sequence):
    """The library's smoothed SDCA in cyclic order for len(sequence) / n epochs (C = 1/(lam n))."""
    n = len(y)
    return fit_quietly(LinearSVM(solver="sdca", order="cyclic", smoothing=mu, C=1.0 / (lam * n),
                                 fit_intercept=False, tol=1e-15, max_iter=len(sequence) // n), X, y)


def _sdca_alpha_hat(X, y, lam, mu, sequence):
    """Right w, but alpha_hat = y alpha (C-form alpha times lam n) in place of SDCA's alpha."""
    model = _library_smoothed(X, y, lam, mu, sequence)
    return np.ravel(model.alpha_) * lam * len(y), np.ravel(model.coef_)


def _sdca_cform_alpha(X, y, lam, mu, sequence):
    """Right w, but the library's C-form (LIBLINEAR units) alpha in place of SDCA's alpha."""
    model = _library_smoothed(X, y, lam, mu, sequence)
    return np.ravel(model.alpha_).copy(), np.ravel(model.coef_)


@exercise("6.3", wrong=[_sdca_unsmoothed, _sdca_no_mu_in_numerator, _sdca_alpha_hat, _sdca_cform_alpha,
                        _sdca_unclipped_above])
def _(answer):
    if not callable(answer):
        return "answer with your function sdca_smoothed(X, y, lam, mu, sequence) itself."
    X, y = datasets.make_random(n_samples=60, n_features=5, random_state=3)
    n, lam, mu, epochs = len(y), 0.05, 0.5, 3
    sequence = np.tile(np.arange(n), epochs)
    model = _library_smoothed(X, y, lam, mu, sequence)
    out = answer(X, y, lam, mu, sequence.copy())
    if not (isinstance(out, tuple) and len(out) == 2):
        return "return the pair (alpha, w), as svmlab.reference.stochastic.sdca_hinge does."
    alpha, w = (np.asarray(a, dtype=float) for a in out)
    if alpha.shape != (n,) or w.shape != (X.shape[1],):
        return "alpha has one entry a sample and w one a feature."
    if not close(w, model.coef_[0], rtol=1e-8, atol=1e-10):
        alpha_hat = y * alpha
        if alpha_hat.min() < -1e-12 or alpha_hat.max() > 1 + 1e-12:
            return ("your iterates leave the box: the smoothed hinge's conjugate is finite on the hinge's box, "
                    "alpha_hat = y alpha in [0, 1] (section 6.7).")
        return ("your iterates differ from the library's smoothed SDCA in cyclic order: the quadratic term "
                "mu alpha_hat^2/2 changes both the denominator and the numerator of the step.")
    C = 1.0 / (lam * n)
    if not close(C * y * alpha, np.ravel(model.alpha_), rtol=1e-8, atol=1e-10):
        return ("your w is right, but the alpha you return is not SDCA's own dual variable of sections 6.1-6.2, "
                "the one with w = sum_i alpha_i x_i / (lambda n).")
    return None


@exercise("6.4", wrong=[0.0, 0.5, 0.632])
def _(answer):
    if not is_number(answer):
        return "give one number between 0 and 1."
    if not close(answer, math.exp(-1.0), rtol=1e-2):
        return "one draw misses sample i with probability 1 - 1/n, and the n draws are independent."
    return None
