"""Support vector regression, defined once: losses, primal and dual values, gradient, KKT.

The regression counterpart of :mod:`svmlab.objective`, on plain arrays, for every SVR solver
kernel, :class:`svmlab.SVRProblem`, test and chapter. Targets are ``z`` (real numbers),
decision values ``f_i = w.x_i`` (+ b), residuals ``r_i = z_i - f_i``.

The epsilon-insensitive loss and its square (Vapnik; Ho and Lin, "Large-scale linear support
vector regression", JMLR 2012, eq. 3 and 4)::

    L1: max(0, |r| - epsilon)          L2: max(0, |r| - epsilon)^2

The C-form primal, with |w|^2 including (b/B)^2 when the bias is a regularized feature of
value B (as for classification)::

    P(w) = 1/2 |w|^2 + sum_i C_i loss(z_i - f_i)

Its dual in one variable a sample, beta_i = alpha_i - alpha_i^* (Ho and Lin 2012, eq. 15;
LIBLINEAR's ``solve_l2r_l1l2_svr``), a minimisation::

    f(beta) = 1/2 beta' Q beta - z' beta + epsilon |beta|_1 + 1/2 sum_i D_ii beta_i^2,
              -U_i <= beta_i <= U_i,       w(beta) = sum_i beta_i x_i,   Q_ij = x_i.x_j (+ B^2)

with U_i = C_i, D_ii = 0 (L1) and U_i = inf, D_ii = 1/(2 C_i) (L2): the same U and D as the
classification dual (:func:`svmlab.objective.upper`, :func:`svmlab.objective.diag`). It is
reported, as every dual in the book, as the maximisation value D(beta) = -f(beta), so that
P(w(beta)) - D(beta) >= 0 is the duality gap. A free (unregularized) bias adds the constraint
sum_i beta_i = 0; its KKT measure and b are LIBSVM's, on the pair form of the dual: 2n
variables alpha_i = max(beta_i, 0) with label +1 and alpha_i^* = max(-beta_i, 0) with
label -1 (:func:`pair_form`).
"""

import numpy as np

from . import objective as obj
from .jit import njit

EPSILON_INSENSITIVE = obj.HINGE  # the same codes, so that objective.upper and objective.diag apply
SQUARED_EPSILON_INSENSITIVE = obj.SQUARED_HINGE
LOSS_CODES = {"epsilon_insensitive": EPSILON_INSENSITIVE,
              "squared_epsilon_insensitive": SQUARED_EPSILON_INSENSITIVE}


@njit(cache=True, inline="always")
def loss(r, epsilon, code):
    """max(0, |r| - epsilon) (L1) or its square (L2) of one residual r = z - f."""
    e = abs(r) - epsilon
    if e <= 0.0:
        return 0.0
    return e if code == EPSILON_INSENSITIVE else e * e


@njit(cache=True, inline="always")
def primal_value(wnorm2, residuals, Ci, epsilon, code):
    """P = 1/2 |w|^2 + sum_i C_i loss(r_i), r_i = z_i - f_i."""
    s = 0.0
    for i in range(residuals.shape[0]):
        s += Ci[i] * loss(residuals[i], epsilon, code)
    return 0.5 * wnorm2 + s


@njit(cache=True, inline="always")
def dual_value(beta, wnorm2, z, Ci, epsilon, code):
    """D(beta) = z'beta - epsilon |beta|_1 - 1/2 beta'Q beta - 1/2 sum_i D_ii beta_i^2,
    with ``wnorm2`` = beta'Q beta = |w(beta)|^2 (the maximisation value, -f(beta))."""
    s = 0.0
    for i in range(beta.shape[0]):
        b = beta[i]
        s += z[i] * b - epsilon * abs(b) - 0.5 * obj.diag(Ci[i], code) * b * b
    return s - 0.5 * wnorm2


@njit(cache=True, inline="always")
def gradient(beta, f, z, Ci, code, out):
    """G_i = f_i - z_i + D_ii beta_i, the gradient of the smooth part of f(beta)
    (epsilon |beta|_1 left out). ``f`` is (Q beta)_i = w(beta).x_i, without a free bias."""
    for i in range(beta.shape[0]):
        out[i] = f[i] - z[i] + obj.diag(Ci[i], code) * beta[i]
    return out


@njit(cache=True)
def projected(b, g, epsilon, u):
    """The projected subgradient of one coordinate: the element of least magnitude of
    g + epsilon d|beta_i| that moves into [-u, u]; 0 exactly when beta_i is optimal given
    the others. With g_+ = g + epsilon and g_- = g - epsilon (the slopes right and left of 0):

        beta_i = 0:   g_+ if g_+ < 0,  g_- if g_- > 0,  else 0
        0 < beta_i < u: g_+        -u < beta_i < 0: g_-
        beta_i = u:   max(g_+, 0)     beta_i = -u:  min(g_-, 0)
    """
    gp = g + epsilon
    gn = g - epsilon
    if b == 0.0:
        if gp < 0.0:
            return gp
        if gn > 0.0:
            return gn
        return 0.0
    if b >= u:
        return max(gp, 0.0)
    if b <= -u:
        return min(gn, 0.0)
    return gp if b > 0.0 else gn


@njit(cache=True)
def pair_form(beta, G, Ci, epsilon, code):
    """The 2n-variable dual of LIBSVM's epsilon-SVR at beta: (alpha, G, C, y) with
    alpha = [max(beta, 0), max(-beta, 0)], labels y = [+1, -1] and the gradients

        G_i       =  r_i + epsilon + D_ii alpha_i,     G_(n+i) = -r_i + epsilon + D_ii alpha_i^*

    where r_i = f_i - z_i is the smooth gradient G_i without its D term. The classification
    rules for a free bias (:func:`svmlab.objective.kkt_violation`, :func:`svmlab.objective.free_bias`)
    then apply unchanged."""
    n = beta.shape[0]
    a2, g2, c2, y2 = np.empty(2 * n), np.empty(2 * n), np.empty(2 * n), np.empty(2 * n)
    for i in range(n):
        d = obj.diag(Ci[i], code)
        r = G[i] - d * beta[i]
        a2[i], a2[n + i] = max(beta[i], 0.0), max(-beta[i], 0.0)
        g2[i] = r + epsilon + d * a2[i]
        g2[n + i] = -r + epsilon + d * a2[n + i]
        c2[i], c2[n + i] = Ci[i], Ci[i]
        y2[i], y2[n + i] = 1.0, -1.0
    return a2, g2, c2, y2


@njit(cache=True)
def kkt_violation(beta, G, Ci, epsilon, code, free_bias):
    """How far beta is from optimal; 0 exactly at the solution.

    Without a free bias: max_i |PG_i| (:func:`projected`). With a free bias, LIBSVM's maximal
    violation m - M on the pair form (:func:`pair_form`; the constraint sum_i beta_i = 0 is
    not checked here: :class:`svmlab.SVRProblem` adds its residual).
    """
    if free_bias:
        a2, g2, c2, y2 = pair_form(beta, G, Ci, epsilon, code)
        return obj.kkt_violation(a2, g2, c2, code, y2, True)
    v = 0.0
    for i in range(beta.shape[0]):
        v = max(v, abs(projected(beta[i], G[i], epsilon, obj.upper(Ci[i], code))))
    return v


@njit(cache=True)
def free_bias(beta, G, Ci, epsilon, code):
    """The free bias b as LIBSVM computes it: minus the average gradient over the free
    variables of the pair form, or the midpoint its bounded variables leave."""
    a2, g2, c2, y2 = pair_form(beta, G, Ci, epsilon, code)
    return obj.free_bias(a2, g2, c2, code, y2)
