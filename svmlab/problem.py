"""SVMProblem and SVRProblem: the book's C-form SVM and SVR on one data set, with dual, gap and KKT measure.

All values come from :mod:`svmlab.objective` (:mod:`svmlab.regression` for SVR); these classes
only compute margins (or decision values) and |w|^2 for the data at hand (linear, or through a
kernel) and feed them in.
"""

import numpy as np

from . import objective as obj
from . import regression as reg
from .kernels import kernel_matrix, kernel_matvec, make_kernel
from .validation import (check_array, loss_code, non_negative_number, one_of, positive_number,
                         regression_loss_code)

BIASES = ("none", "regularized", "free")


class SVMProblem:
    """min_w 1/2 |w|^2 + sum_i C_i loss(y_i f(x_i)) and its dual (book eqs. 1.3 and 2.9).

    Parameters
    ----------
    X : array or CSR matrix (n_samples, n_features)
    y : labels in {-1, +1}
    C : positive number, or one per sample (C_i = C * class weight)
    loss : "hinge" (L1-loss) or "squared_hinge" (L2-loss)
    bias : "none" (f = w.x), "regularized" (a feature of value ``intercept_scaling`` is
        appended, as LIBLINEAR; adds 1/2 (b/B)^2 to P) or "free" (f = w.x + b with b
        unregularized, as LIBSVM; adds sum_i y_i alpha_i = 0 to the dual)
    kernel : None for explicit features (w is available), or "linear", "poly", "rbf";
        ``gamma``, ``degree``, ``coef0`` as in :func:`svmlab.kernels.make_kernel`.

    Methods take ``alpha`` in LIBLINEAR/LIBSVM units: w(alpha) = sum_i alpha_i y_i x_i.
    """

    def __init__(self, X, y, C=1.0, loss="hinge", bias="none", intercept_scaling=1.0,
                 kernel=None, gamma="scale", degree=3, coef0=0.0):
        self.X = check_array(X)
        self.y = np.asarray(y, dtype=np.float64, order="C")  # one compiled signature, whatever the caller's layout
        if self.y.shape != (self.X.shape[0],) or not np.isin(self.y, (-1.0, 1.0)).all():
            raise ValueError("y must hold one label in {-1, +1} per row of X.")
        self.C = np.broadcast_to(np.asarray(C, dtype=np.float64), self.y.shape).copy()
        if not (np.isfinite(self.C).all() and (self.C > 0).all()):
            raise ValueError("C must be positive and finite (a number, or one per sample).")
        self.loss = loss
        self.code = loss_code(loss)
        self.bias = one_of(bias, "bias", BIASES)
        self.B = positive_number(intercept_scaling, "intercept_scaling") if bias == "regularized" else 0.0
        self.kernel = None if kernel is None else make_kernel(kernel, self.X, gamma, degree, coef0)

    @property
    def upper(self):
        """U_i: C_i for the hinge, infinity for the squared hinge."""
        return self.C.copy() if self.code == obj.HINGE else np.full_like(self.C, np.inf)

    def Q(self):
        """Q_ij = y_i y_j K(x_i, x_j), with B^2 added to K for a regularized bias (n x n)."""
        K = kernel_matrix(self.kernel, self.X, self.X) if self.kernel else _dense(self.X @ self.X.T)
        return self.y[:, None] * (K + self.B ** 2) * self.y[None, :]

    # -- primal side ---------------------------------------------------------------------
    def primal(self, coef, intercept=0.0):
        """P(w, b) for explicit features (eq. 1.3); ``intercept`` is ignored without a bias."""
        if self.kernel is not None:
            raise ValueError("primal(coef, intercept) needs explicit features; with a kernel use primal_at(alpha).")
        w = np.asarray(coef, dtype=np.float64).ravel()
        b = float(np.ravel(intercept)[0]) if self.bias != "none" else 0.0
        wnorm2 = w @ w + (b / self.B) ** 2 if self.bias == "regularized" else w @ w
        margins = self.y * (_dense(self.X @ w) + b)
        return obj.primal_value(wnorm2, margins, self.C, self.code)

    def primal_at(self, alpha, b=None):
        """P at w(alpha); ``b`` defaults to the bias the dual implies (:meth:`bias_from_alpha`)."""
        alpha = self._alpha(alpha)
        m = self.margins(alpha)
        b = self.bias_from_alpha(alpha) if b is None else float(b)
        shift = self.y * b if self.bias == "free" else 0.0
        return obj.primal_value(self._wnorm2(alpha, m), m + shift, self.C, self.code)

    # -- dual side -----------------------------------------------------------------------
    def w_from_alpha(self, alpha):
        """(w, b) with w = sum_i alpha_i y_i x_i (eq. 2.6) and the bias the dual implies."""
        if self.kernel is not None:
            raise ValueError("w is not explicit with a kernel; use margins(alpha) or primal_at(alpha).")
        alpha = self._alpha(alpha)
        w = _dense(self.X.T @ (alpha * self.y)).ravel()
        return w, self.bias_from_alpha(alpha)

    def margins(self, alpha):
        """y_i f(x_i) at w(alpha), without a free bias: (Q alpha)_i."""
        alpha = self._alpha(alpha)
        ay = alpha * self.y
        if self.kernel is not None:
            f = kernel_matvec(self.kernel, self.X, self.X, ay)
        else:
            f = _dense(self.X @ (self.X.T @ ay))
        return self.y * (f + self.B ** 2 * ay.sum())

    def dual(self, alpha):
        """D(alpha) (eq. 2.9), the maximisation value. With a free bias D is -inf unless
        sum_i y_i alpha_i = 0; this returns the formula, and :meth:`kkt_violation` reports
        the constraint's residual."""
        alpha = self._alpha(alpha)
        return obj.dual_value(alpha, self._wnorm2(alpha, self.margins(alpha)), self.C, self.code)

    def gap(self, alpha, b=None):
        """P(w(alpha), b) - D(alpha) >= 0, zero exactly at the optimum (strong duality)."""
        return self.primal_at(alpha, b) - self.dual(alpha)

    def gradient(self, alpha):
        """G = Q-bar alpha - e, the gradient of the minimisation form f = -D (eq. 3.4)."""
        alpha = self._alpha(alpha)
        return obj.gradient(alpha, self.margins(alpha), self.C, self.code, np.empty_like(alpha))

    def projected_gradient(self, alpha, b=None):
        """PG_i (eq. 3.6), zero for every i exactly at the optimum. With a free bias the
        gradient of the Lagrangian, G_i + y_i b, is projected (``b`` defaults to
        :meth:`bias_from_alpha`)."""
        alpha = self._alpha(alpha)
        G = self.gradient(alpha)
        if self.bias == "free":
            G = G + self.y * (self.bias_from_alpha(alpha) if b is None else float(b))
        u = self.upper
        return np.array([obj.projected(a, g, ui) for a, g, ui in zip(alpha, G, u)])

    def kkt_violation(self, alpha):
        """max |PG_i| (no free bias), or LIBSVM's maximal violation plus |sum y_i alpha_i|."""
        alpha = self._alpha(alpha)
        free = self.bias == "free"
        v = obj.kkt_violation(alpha, self.gradient(alpha), self.C, self.code, self.y, free)
        return v + abs(alpha @ self.y) if free else v

    def bias_from_alpha(self, alpha):
        """b implied by alpha: 0, B^2 sum_i y_i alpha_i (regularized), or the KKT rule (free)."""
        alpha = self._alpha(alpha)
        if self.bias == "none":
            return 0.0
        if self.bias == "regularized":
            return self.B ** 2 * float(alpha @ self.y)
        return obj.free_bias(alpha, self.gradient(alpha), self.C, self.code, self.y)

    # -- helpers -------------------------------------------------------------------------
    def _alpha(self, alpha):
        alpha = np.asarray(alpha, dtype=np.float64).ravel()
        if alpha.shape != self.y.shape:
            raise ValueError(f"alpha must have one entry per sample ({self.y.shape[0]}); got {alpha.shape[0]}.")
        return alpha

    def _wnorm2(self, alpha, margins):
        return float(alpha @ margins)  # |w(alpha)|^2 = alpha' Q alpha


def _dense(v):
    return v.toarray() if hasattr(v, "toarray") else np.asarray(v)


class SVRProblem:
    """min_w 1/2 |w|^2 + sum_i C_i loss(z_i - f(x_i)) and its dual in beta (:mod:`svmlab.regression`).

    Parameters as :class:`SVMProblem`, with real targets ``z`` in place of labels, the tube's
    half-width ``epsilon`` >= 0 and ``loss`` "epsilon_insensitive" (L1) or
    "squared_epsilon_insensitive" (L2). A free bias adds sum_i beta_i = 0 to the dual.

    Methods take ``beta`` (beta_i = alpha_i - alpha_i^*, one per sample): w(beta) = sum_i beta_i x_i.
    """

    def __init__(self, X, z, C=1.0, epsilon=0.1, loss="epsilon_insensitive", bias="none",
                 intercept_scaling=1.0, kernel=None, gamma="scale", degree=3, coef0=0.0):
        self.X = check_array(X)
        self.z = np.asarray(z, dtype=np.float64, order="C")  # as SVMProblem's y
        if self.z.shape != (self.X.shape[0],) or not np.isfinite(self.z).all():
            raise ValueError("z must hold one finite target per row of X.")
        self.C = np.broadcast_to(np.asarray(C, dtype=np.float64), self.z.shape).copy()
        if not (np.isfinite(self.C).all() and (self.C > 0).all()):
            raise ValueError("C must be positive and finite (a number, or one per sample).")
        self.epsilon = non_negative_number(epsilon, "epsilon")
        self.loss = loss
        self.code = regression_loss_code(loss)
        self.bias = one_of(bias, "bias", BIASES)
        self.B = positive_number(intercept_scaling, "intercept_scaling") if bias == "regularized" else 0.0
        self.kernel = None if kernel is None else make_kernel(kernel, self.X, gamma, degree, coef0)

    @property
    def upper(self):
        """U_i: C_i for the L1 loss, infinity for the L2 loss (beta_i in [-U_i, U_i])."""
        return self.C.copy() if self.code == reg.EPSILON_INSENSITIVE else np.full_like(self.C, np.inf)

    def Q(self):
        """Q_ij = K(x_i, x_j), with B^2 added for a regularized bias (n x n)."""
        K = kernel_matrix(self.kernel, self.X, self.X) if self.kernel else _dense(self.X @ self.X.T)
        return K + self.B ** 2

    # -- primal side ---------------------------------------------------------------------
    def primal(self, coef, intercept=0.0):
        """P(w, b) for explicit features; ``intercept`` is ignored without a bias."""
        if self.kernel is not None:
            raise ValueError("primal(coef, intercept) needs explicit features; with a kernel use primal_at(beta).")
        w = np.asarray(coef, dtype=np.float64).ravel()
        b = float(np.ravel(intercept)[0]) if self.bias != "none" else 0.0
        wnorm2 = w @ w + (b / self.B) ** 2 if self.bias == "regularized" else w @ w
        residuals = self.z - _dense(self.X @ w).ravel() - b
        return reg.primal_value(wnorm2, residuals, self.C, self.epsilon, self.code)

    def primal_at(self, beta, b=None):
        """P at w(beta); ``b`` defaults to the bias the dual implies (:meth:`bias_from_beta`)."""
        beta = self._beta(beta)
        f = self.values(beta)
        b = self.bias_from_beta(beta) if b is None else float(b)
        shift = b if self.bias == "free" else 0.0
        return reg.primal_value(float(beta @ f), self.z - f - shift, self.C, self.epsilon, self.code)

    # -- dual side -----------------------------------------------------------------------
    def w_from_beta(self, beta):
        """(w, b) with w = sum_i beta_i x_i and the bias the dual implies."""
        if self.kernel is not None:
            raise ValueError("w is not explicit with a kernel; use values(beta) or primal_at(beta).")
        beta = self._beta(beta)
        return _dense(self.X.T @ beta).ravel(), self.bias_from_beta(beta)

    def values(self, beta):
        """f_i = (Q beta)_i = w(beta).x_i (+ b for a regularized bias), without a free bias."""
        beta = self._beta(beta)
        f = kernel_matvec(self.kernel, self.X, self.X, beta) if self.kernel else _dense(self.X @ (self.X.T @ beta))
        return np.ravel(f) + self.B ** 2 * beta.sum()

    def dual(self, beta):
        """D(beta), the maximisation value. With a free bias D is -inf unless sum_i beta_i = 0;
        this returns the formula, and :meth:`kkt_violation` reports the constraint's residual."""
        beta = self._beta(beta)
        return reg.dual_value(beta, float(beta @ self.values(beta)), self.z, self.C, self.epsilon, self.code)

    def gap(self, beta, b=None):
        """P(w(beta), b) - D(beta) >= 0, zero exactly at the optimum."""
        return self.primal_at(beta, b) - self.dual(beta)

    def gradient(self, beta):
        """G = Q beta - z + D beta, the gradient of the dual's smooth part (minimisation form)."""
        beta = self._beta(beta)
        return reg.gradient(beta, self.values(beta), self.z, self.C, self.code, np.empty_like(beta))

    def projected_gradient(self, beta, b=None):
        """PG_i (:func:`svmlab.regression.projected`), zero for every i exactly at the optimum.
        With a free bias the Lagrangian's G_i + b is projected (``b`` defaults to
        :meth:`bias_from_beta`)."""
        beta = self._beta(beta)
        G = self.gradient(beta)
        if self.bias == "free":
            G = G + (self.bias_from_beta(beta) if b is None else float(b))
        return np.array([reg.projected(v, g, self.epsilon, u) for v, g, u in zip(beta, G, self.upper)])

    def kkt_violation(self, beta):
        """max |PG_i| (no free bias), or LIBSVM's maximal violation plus |sum_i beta_i|."""
        beta = self._beta(beta)
        free = self.bias == "free"
        v = reg.kkt_violation(beta, self.gradient(beta), self.C, self.epsilon, self.code, free)
        return v + abs(beta.sum()) if free else v

    def bias_from_beta(self, beta):
        """b implied by beta: 0, B^2 sum_i beta_i (regularized), or LIBSVM's rule (free)."""
        beta = self._beta(beta)
        if self.bias == "none":
            return 0.0
        if self.bias == "regularized":
            return self.B ** 2 * float(beta.sum())
        return reg.free_bias(beta, self.gradient(beta), self.C, self.epsilon, self.code)

    def _beta(self, beta):
        beta = np.asarray(beta, dtype=np.float64).ravel()
        if beta.shape != self.z.shape:
            raise ValueError(f"beta must have one entry per sample ({self.z.shape[0]}); got {beta.shape[0]}.")
        return beta
