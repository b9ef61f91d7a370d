"""LinearSVM and KernelSVM: scikit-learn's estimator conventions, svmlab's own solvers.

The constructor stores parameters; ``fit`` validates (:mod:`svmlab.validation`), converts,
calls a solver kernel (:mod:`svmlab.solvers`) and wraps the result in fitted attributes with
a trailing underscore. scikit-learn is not imported here.
"""

import inspect
import warnings

import numpy as np

from . import solvers
from .kernels import KERNELS, kernel_matvec, make_kernel
from .rows import as_rows
from .trace import Recorder
from .validation import (binary_labels, check_bool, check_features, check_random_state, check_X_y,
                         loss_code, one_of, positive_int, positive_number, sample_C, trace_every)


class ConvergenceWarning(UserWarning):
    """The solver stopped at ``max_iter`` before meeting ``tol``; the model holds its best iterate."""


class _SVMBase:
    """Parameters, prediction and scoring shared by the estimators."""

    _estimator_type = "classifier"

    # -- parameters (scikit-learn's get_params / set_params protocol) --------------------
    @classmethod
    def _param_names(cls):
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):
        """The constructor's parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters by name; returns self."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; valid: {', '.join(valid)}.")
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if repr(v) != repr(defaults[k].default)]
        return f"{type(self).__name__}({', '.join(changed)})"

    # -- prediction ----------------------------------------------------------------------
    def predict(self, X):
        """The class of each row: classes_[1] where the decision function is > 0."""
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X, y):
        """Mean accuracy on (X, y)."""
        return float(np.mean(self.predict(X) == np.asarray(y)))

    # -- fitting helpers -----------------------------------------------------------------
    def _common_checks(self, solver_table):
        one_of(self.solver, "solver", tuple(solver_table))
        positive_number(self.tol, "tol")
        check_bool(self.fit_intercept, "fit_intercept")
        return (loss_code(self.loss), positive_int(self.max_iter, "max_iter"),
                trace_every(self.trace), check_random_state(self.random_state))

    def _labels(self, X, y):
        X, y = check_X_y(X, y)
        self.classes_, y_pm = binary_labels(y)
        self.n_features_in_ = X.shape[1]
        return X, y_pm, sample_C(self.C, self.class_weight, self.classes_, y_pm)

    def _finish(self, result, y_pm, recorder, to_user_units):
        self.alpha_ = result.alpha
        self.support_ = np.flatnonzero(result.alpha > 0)
        self.dual_coef_ = (result.alpha * y_pm)[self.support_][None, :]
        self.n_iter_ = result.n_iter
        self.trace_ = recorder.to_trace(self.solver, to_user_units)
        if not result.converged:
            warnings.warn(f"{type(self).__name__}(solver={self.solver!r}) stopped at max_iter={self.max_iter} "
                          f"before reaching tol={self.tol}; the model holds the best iterate. Increase max_iter "
                          "or tol.", ConvergenceWarning, stacklevel=3)
        return self


class LinearSVM(_SVMBase):
    """Linear SVM on the C-form primal 1/2 |w|^2 + C sum_i loss(y_i (w.x_i + b)) (book eq. 1.3).

    Parameters
    ----------
    C : float > 0, the penalty.
    loss : "hinge" (L1-loss SVM) or "squared_hinge" (L2-loss SVM).
    solver : "subgradient" (primal, chapter 1) or "dual_gradient" (projected gradient on the
        dual, chapter 2).
    tol : float > 0, the stopping tolerance epsilon: the relative duality gap (P - D) / P for
        "subgradient", the KKT violation max |PG_i| for "dual_gradient".
    max_iter : int >= 1, the most epochs (passes over the data).
    fit_intercept : whether to fit a bias b. As in LIBLINEAR, b is the weight of a feature of
        value ``intercept_scaling`` appended to every sample, so it is regularized: P gains
        1/2 (b / intercept_scaling)^2.
    intercept_scaling : float > 0, the value B of that feature.
    class_weight : None, "balanced", or a dict class -> weight; C_i = C * weight of y_i.
    random_state : None, int or numpy Generator, for solvers that draw random orders.
    trace : False, True (record every epoch) or k (every k epochs); fills ``trace_``.

    Options of particular solvers (each solver reads only its own; see its module):
    shrinking : bool, "dcd": shrink the active set (chapter 4).
    order : "permutation", "cyclic" or "random" (with replacement), "dcd" and "sdca": the
        order of the coordinates within an epoch.
    stopping : "pg" (LIBLINEAR's projected-gradient rule) or "dw" (|w_k - w_(k-1)| < tol,
        seed 000's rule), "dcd".
    batch_size : int >= 1, "sdca" and "pegasos": samples per step.
    output : "last", "average" (over the second half of the epochs) or "random" (an iterate
        of the second half), "sdca" and "pegasos".
    smoothing : float >= 0, "sdca": gamma of the smoothed hinge (0 is the hinge).
    accelerated : bool, "sdca": accelerated mini-batch SDCA (ASDCA).
    projection : bool, "pegasos": project onto the ball of radius 1/sqrt(lambda).

    Attributes
    ----------
    coef_ (1, n_features), intercept_ (1,), alpha_ (n_samples,) dual variables in LIBLINEAR
    units, dual_coef_ (1, n_SV) = alpha_i y_i on the support, support_, n_iter_ (epochs),
    classes_, n_features_in_, trace_ (a :class:`svmlab.trace.Trace` or None).
    """

    def __init__(self, C=1.0, loss="hinge", solver="dual_gradient", tol=1e-4, max_iter=1000,
                 fit_intercept=True, intercept_scaling=1.0, class_weight=None, random_state=None,
                 trace=False, shrinking=True, order="permutation", stopping="pg", batch_size=1,
                 output="last", smoothing=0.0, accelerated=False, projection=True):
        self.C = C
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.trace = trace
        self.shrinking = shrinking
        self.order = order
        self.stopping = stopping
        self.batch_size = batch_size
        self.output = output
        self.smoothing = smoothing
        self.accelerated = accelerated
        self.projection = projection

    def fit(self, X, y):
        """Solve the problem on (X, y); returns self."""
        code, max_iter, every, rng = self._common_checks(solvers.LINEAR)
        X, y_pm, Ci = self._labels(X, y)
        B = positive_number(self.intercept_scaling, "intercept_scaling") if self.fit_intercept else 0.0
        d = X.shape[1]
        recorder = Recorder(every, max_iter, X.shape[0], d + 1)
        solve, options = solvers.get(solvers.LINEAR, self.solver, self.get_params())
        result = solve(as_rows(X), y_pm, Ci, code, B, float(self.tol), max_iter, rng, recorder.buffers, **options)
        to_user = lambda w: (w[:d].copy(), B * w[d])  # noqa: E731 - b = B * (weight of the bias feature)
        self.coef_, b = to_user(result.w)
        self.coef_ = self.coef_[None, :]
        self.intercept_ = np.array([b])
        return self._finish(result, y_pm, recorder, to_user)

    def decision_function(self, X):
        """f(x) = w.x + b for each row."""
        X = check_features(X, self.n_features_in_)
        return np.asarray(X @ self.coef_[0]).ravel() + self.intercept_[0]


class KernelSVM(_SVMBase):
    """Kernel SVM: the dual with Q_ij = y_i y_j K(x_i, x_j) (book chapters 2 and 5).

    Parameters as :class:`LinearSVM`, and
    kernel : "rbf", "poly" or "linear"; gamma : "scale" or a number > 0; degree, coef0 (poly).
    solver : "dual_gradient" (projected gradient on the dual; stores the n x n kernel matrix).
    fit_intercept : a free, unregularized bias b, as LIBSVM: the dual gains the constraint
        sum_i y_i alpha_i = 0 and b comes from the KKT conditions. False: no bias.
    shrinking, selection ("second_order", "max_violating", "random"), cache_size (MB):
        options of the SMO solver (chapter 5).

    Attributes
    ----------
    support_vectors_, dual_coef_ (1, n_SV) = alpha_i y_i, intercept_ (1,), alpha_, support_,
    n_iter_, classes_, n_features_in_, trace_.
    """

    def __init__(self, C=1.0, loss="hinge", kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 solver="dual_gradient", tol=1e-3, max_iter=1000, fit_intercept=True, class_weight=None,
                 random_state=None, trace=False, shrinking=True, selection="second_order", cache_size=200):
        self.C = C
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.random_state = random_state
        self.trace = trace
        self.shrinking = shrinking
        self.selection = selection
        self.cache_size = cache_size

    def fit(self, X, y):
        """Solve the dual on (X, y); returns self."""
        one_of(self.kernel, "kernel", KERNELS)
        code, max_iter, every, rng = self._common_checks(solvers.KERNEL)
        X, y_pm, Ci = self._labels(X, y)
        self._kernel = make_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        recorder = Recorder(every, max_iter, X.shape[0], 1)
        solve, options = solvers.get(solvers.KERNEL, self.solver, self.get_params())
        result = solve(X, self._kernel, y_pm, Ci, code, bool(self.fit_intercept), float(self.tol), max_iter,
                       rng, recorder.buffers, **options)
        self.intercept_ = np.array([result.b])
        self._finish(result, y_pm, recorder, lambda w: (np.zeros(0), w[0]))
        self.support_vectors_ = X[self.support_]
        return self

    def decision_function(self, X):
        """f(x) = sum_i alpha_i y_i K(x_i, x) + b for each row."""
        X = check_features(X, self.n_features_in_)
        return kernel_matvec(self._kernel, X, self.support_vectors_, self.dual_coef_[0]) + self.intercept_[0]
