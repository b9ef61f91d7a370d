"""The SVM problem, defined once: losses, primal and dual values, gradient, KKT.

Every solver kernel, :class:`svmlab.SVMProblem`, test and chapter evaluates the problem
through these functions. They work on plain arrays, so a solver calls them from inside its
numba loop and Python calls them directly.

The C-form primal (book eq. 1.3, chapter 1)::

    P(w) = 1/2 |w|^2 + sum_i C_i loss(m_i),     m_i = y_i f(x_i)

and its dual, reported as the maximisation value (book eq. 2.9, chapter 2)::

    D(alpha) = sum_i alpha_i - 1/2 |w(alpha)|^2 - 1/2 sum_i D_ii alpha_i^2,   0 <= alpha_i <= U_i

with D_ii = 0, U_i = C_i for the hinge and D_ii = 1/(2 C_i), U_i = inf for the squared hinge
(the table of Welt Xing (2021)). ``wnorm2`` is |w|^2, including (b/B)^2 when the bias is a regularized
feature; for a kernel it is alpha' Q alpha.
"""

import numpy as np

from .jit import njit

HINGE = 0
SQUARED_HINGE = 1
LOSS_CODES = {"hinge": HINGE, "squared_hinge": SQUARED_HINGE}


@njit(cache=True, inline="always")
def loss(m, code):
    """Hinge max(0, 1 - m) or squared hinge max(0, 1 - m)^2 of one margin (eq. 1.2)."""
    r = 1.0 - m
    if r <= 0.0:
        return 0.0
    return r if code == HINGE else r * r


@njit(cache=True, inline="always")
def primal_value(wnorm2, margins, Ci, code):
    """P = 1/2 |w|^2 + sum_i C_i loss(m_i) (eq. 1.3)."""
    s = 0.0
    for i in range(margins.shape[0]):
        s += Ci[i] * loss(margins[i], code)
    return 0.5 * wnorm2 + s


@njit(cache=True, inline="always")
def diag(C, code):
    """D_ii of the unified dual: 0 (hinge) or 1/(2 C_i) (squared hinge)."""
    return 0.0 if code == HINGE else 0.5 / C


@njit(cache=True, inline="always")
def upper(C, code):
    """U_i of the unified dual: C_i (hinge) or infinity (squared hinge)."""
    return C if code == HINGE else np.inf


@njit(cache=True, inline="always")
def dual_value(alpha, wnorm2, Ci, code):
    """D(alpha) = e'alpha - 1/2 |w(alpha)|^2 - 1/2 alpha' D alpha (eq. 2.9)."""
    s = 0.0
    for i in range(alpha.shape[0]):
        s += alpha[i] - 0.5 * diag(Ci[i], code) * alpha[i] * alpha[i]
    return s - 0.5 * wnorm2


@njit(cache=True, inline="always")
def gradient(alpha, margins, Ci, code, out):
    """G_i = y_i w(alpha).x_i - 1 + D_ii alpha_i, the gradient of f = -D (eq. 3.4).

    ``margins`` are y_i w(alpha).x_i (for a kernel: (Q alpha)_i), without a free bias.
    """
    for i in range(alpha.shape[0]):
        out[i] = margins[i] - 1.0 + diag(Ci[i], code) * alpha[i]
    return out


@njit(cache=True, inline="always")
def projected(a, g, u):
    """Projected gradient of one coordinate (eq. 3.6): what is left of g inside [0, u]."""
    if a <= 0.0:
        return min(g, 0.0)
    if a >= u:
        return max(g, 0.0)
    return g


@njit(cache=True, inline="always")
def kkt_violation(alpha, G, Ci, code, y, free_bias):
    """How far alpha is from optimal; 0 exactly at the solution.

    Without a free bias: max_i |PG_i| (the projected gradient, eq. 3.6). With a free bias the
    equality constraint lets b absorb a common shift, and the measure is LIBSVM's maximal
    violation m(alpha) - M(alpha) over the index sets I_up and I_low (eq. 5.9).
    """
    if not free_bias:
        v = 0.0
        for i in range(alpha.shape[0]):
            v = max(v, abs(projected(alpha[i], G[i], upper(Ci[i], code))))
        return v
    up = -np.inf
    low = np.inf
    for i in range(alpha.shape[0]):
        u = upper(Ci[i], code)
        s = -y[i] * G[i]
        if (y[i] > 0 and alpha[i] < u) or (y[i] < 0 and alpha[i] > 0.0):
            up = max(up, s)
        if (y[i] > 0 and alpha[i] > 0.0) or (y[i] < 0 and alpha[i] < u):
            low = min(low, s)
    return max(up - low, 0.0)


@njit(cache=True, inline="always")
def free_bias(alpha, G, Ci, code, y):
    """The free bias b from the KKT conditions, as LIBSVM computes it (eq. 5.10).

    b = -y_i G_i averaged over the free support vectors (0 < alpha_i < U_i); with none, the
    midpoint of the interval that the bounded variables leave for b.
    """
    total = 0.0
    n_free = 0
    lo = -np.inf
    hi = np.inf
    for i in range(alpha.shape[0]):
        u = upper(Ci[i], code)
        yg = y[i] * G[i]
        if 0.0 < alpha[i] < u:
            total += yg
            n_free += 1
        elif (alpha[i] >= u) == (y[i] > 0):
            lo = max(lo, yg)
        else:
            hi = min(hi, yg)
    if n_free > 0:
        return -total / n_free
    if np.isinf(lo) and np.isinf(hi):
        return 0.0
    if np.isinf(lo) or np.isinf(hi):  # one side unbounded: take the finite end
        return -(hi if np.isinf(lo) else lo)
    return -0.5 * (lo + hi)
