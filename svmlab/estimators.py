"""LinearSVM and KernelSVM: scikit-learn's estimator conventions, svmlab's own solvers.

The constructor stores parameters; ``fit`` validates (:mod:`svmlab.validation`), converts,
calls a solver kernel (:mod:`svmlab.solvers`) and wraps the result in fitted attributes with
a trailing underscore. scikit-learn is not imported here.
"""

import warnings
from collections import namedtuple
from itertools import combinations

import numpy as np

from . import solvers
from .kernels import check_positive_semidefinite, kernel_matvec, make_kernel
from .params import Parameters
from .rows import as_rows
from .solvers import slices
from .solvers.coordinate import Problem, Stop
from .trace import Recorder
from .validation import (check_bool, check_features, check_random_state, check_X_y, class_labels,
                         class_weights, loss_code, one_of, positive_int, positive_number, joined_by_name,
                         sklearn_compatible, trace_every)


class ConvergenceWarning(UserWarning):
    """The solver stopped at ``max_iter`` before meeting ``tol``; the model holds the iterate
    the solver returned (its last one; the best one for the primal subgradient method)."""


class NotFittedError(ValueError, AttributeError):
    """A method that needs a fitted model was called before ``fit``."""


def __getattr__(name):  # scikit-learn's twin of NotFittedError, for pickle (validation.sklearn_compatible)
    joined = joined_by_name(name, (NotFittedError,))
    if joined is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return joined


# One binary problem's solution: dual variables, (coef, intercept), epochs, tol met, trace.
_Binary = namedtuple("_Binary", "alpha coef intercept n_iter converged trace")


def _check_callback(callback):
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be None or a function of one argument; got {callback!r}.")
    return callback


def _progress(verbose, callback):
    """The function the slice driver calls after each slice: prints a line (verbose) and calls
    the user's callback with a :class:`svmlab.solvers.slices.Progress`; None when neither."""
    if not verbose and callback is None:
        return None

    def progress(p):
        if verbose:
            print(slices.describe(p))
        if callback is not None:
            callback(p)
    return progress


def linear_coef(w):
    """The coef of a linear solver's w: every weight but the bias feature's, which is last (the
    intercept is B times that one)."""
    return w[:-1].copy()


def no_coef(w):
    """The coef of a kernel solver's trace snapshot: none (the model is its alpha and b)."""
    return np.zeros(0)


def _warn_unconverged(estimator, fits):
    """A ConvergenceWarning, pointing at the caller of ``fit``, when a fit stopped before tol."""
    if not all(f.converged for f in fits):
        warnings.warn(f"{type(estimator).__name__}(solver={estimator.solver!r}) stopped at "
                      f"max_iter={estimator.max_iter} before reaching tol={estimator.tol}; the model is usable but not certified to tol. "
                      "Increase max_iter or tol.", ConvergenceWarning, stacklevel=3)


def _check_finite_fits(fits, solver):
    """A solver's result with NaN or infinity is refused, never stored as a model."""
    for f in fits:
        values = [f.alpha, np.atleast_1d(f.intercept)] + ([] if f.coef is None else [f.coef])
        if not all(np.isfinite(v).all() for v in values):
            raise ValueError(f"solver={solver!r} produced NaN or infinite values on this data: the problem is "
                             "numerically out of range. Rescale X, lower C, or choose another solver.")


class _SVMBase(Parameters):
    """Parameters, the fit driver (binary or multi-class), prediction and scoring."""

    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        """Tags for scikit-learn's tools (GridSearchCV, check_estimator). scikit-learn calls this,
        so it is imported here only when scikit-learn is already in use."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(), input_tags=InputTags(sparse=True))

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y):
        """Solve the SVM on (X, y): one binary problem for two classes, several for more
        (one-vs-rest for LinearSVM as LIBLINEAR, one-vs-one for KernelSVM as LIBSVM).
        Returns self."""
        options = dict(self._check_params(), solver_options=solvers.check(self._solvers, self.solver,
                                                                          self.get_params()))
        X, y = check_X_y(X, y)
        self.classes_, codes = class_labels(y)
        self.n_features_in_ = X.shape[1]
        self._setup(X)
        weights = class_weights(self.C, self.class_weight, self.classes_, codes)
        tasks = self._tasks(codes, weights)
        warm = self._warm_alphas(tasks, options)
        fits = [self._fit_binary(X if rows is None else X[rows], y_pm, Ci, dict(options, alpha0=alpha0))
                for (rows, y_pm, Ci), alpha0 in zip(tasks, warm)]
        _check_finite_fits(fits, self.solver)
        self._last_alphas = [f.alpha.copy() for f in fits]  # warm_start's starting points
        self._store(X, tasks, fits)
        _warn_unconverged(self, fits)
        return self

    def _warm_alphas(self, tasks, options):
        """The last fit's alpha of each binary problem when warm_start is on and there is one
        (None each otherwise); the solver clips it to the new box [0, U_i]."""
        last = getattr(self, "_last_alphas", None)
        if not options["warm_start"] or last is None:
            return [None] * len(tasks)
        if [len(a) for a in last] != [len(y_pm) for _, y_pm, _ in tasks]:
            raise ValueError("warm_start=True needs the same samples and classes as the previous fit; set "
                             "warm_start=False to fit this data from scratch.")
        return last

    def _setup(self, X):
        """Whatever the binary problems share, computed once on the whole training set."""

    def _tasks(self, codes, weights):
        """The binary problems as (rows or None for all, labels in {-1, +1}, C_i): two classes
        are one problem with classes_[1] as +1."""
        if len(self.classes_) == 2:
            return [(None, np.where(codes == 1, 1.0, -1.0), weights[codes])]
        return self._multiclass_tasks(codes, weights)

    def _check_params(self):
        one_of(self.solver, "solver", tuple(self._solvers))
        return dict(code=loss_code(self.loss), tol=positive_number(self.tol, "tol"),
                    max_iter=positive_int(self.max_iter, "max_iter"), every=trace_every(self.trace),
                    rng=check_random_state(self.random_state),
                    fit_intercept=check_bool(self.fit_intercept, "fit_intercept"),
                    warm_start=check_bool(self.warm_start, "warm_start"),
                    verbose=check_bool(self.verbose, "verbose"), callback=_check_callback(self.callback))

    def _solve(self, problem, options, w_size, coef_of):
        """Run the chosen solver's state (its ``start``, :func:`svmlab.solvers.starter`) on one
        binary problem in slices (:mod:`svmlab.solvers.slices`); returns its result and trace.
        ``w_size`` and ``coef_of`` are those of the solver's w
        (:meth:`svmlab.trace.Recorder.to_trace`)."""
        o = options
        recorder = Recorder(o["every"], o["max_iter"], len(problem.y), w_size)
        start = solvers.starter(self._solvers, self.solver)
        state = start(problem, Stop(o["tol"], o["max_iter"]), recorder.buffers, o["rng"], o["alpha0"],
                      **o["solver_options"])
        result = slices.run(state, self.solver, _progress(o["verbose"], o["callback"])).result()
        return result, recorder.to_trace(self.solver, coef_of, state.unit)

    def _store(self, X, tasks, fits):
        """Fitted attributes; alpha_ and dual_coef_ have one row per binary problem when
        there are several (zero for samples a problem does not use)."""
        coefs = np.zeros((len(fits), X.shape[0]))
        for row, (rows, y_pm, _), fit in zip(coefs, tasks, fits):
            row[slice(None) if rows is None else rows] = fit.alpha * y_pm
        alpha = np.abs(coefs)
        self.alpha_ = alpha[0] if len(fits) == 1 else alpha
        self.support_ = np.flatnonzero(alpha.any(axis=0))
        self.dual_coef_ = coefs[:, self.support_]
        self.intercept_ = np.array([f.intercept for f in fits])
        self.n_iter_ = max(f.n_iter for f in fits)
        traces = [f.trace for f in fits]
        self.trace_ = traces[0] if len(fits) == 1 else (traces if traces[0] is not None else None)

    # -- prediction ----------------------------------------------------------------------
    def _check_fitted(self, X):
        if not hasattr(self, "classes_"):
            raise sklearn_compatible(NotFittedError)(f"This {type(self).__name__} is not fitted yet; call fit(X, y) "
                                                     "first.")
        return check_features(X, self.n_features_in_, type(self).__name__)

    def predict(self, X):
        """The class of each row: classes_[1] where the decision function is > 0 (two
        classes), else the class with the largest decision value."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int) if f.ndim == 1 else f.argmax(axis=1)]

    def score(self, X, y):
        """Mean accuracy on (X, y)."""
        return float(np.mean(self.predict(X) == np.asarray(y)))


class LinearSVM(_SVMBase):
    """Linear SVM on the C-form primal 1/2 |w|^2 + C sum_i loss(y_i (w.x_i + b)) (book eq. 1.3).

    Parameters
    ----------
    C : float > 0, the penalty.
    loss : "hinge" (L1-loss SVM) or "squared_hinge" (L2-loss SVM).
    solver : "dcd" (dual coordinate descent, chapters 3-4, the default), "subgradient"
        (primal, chapter 1), "dual_gradient" (projected gradient on the dual, chapter 2),
        "sdca" (stochastic dual coordinate ascent, chapter 6) or "pegasos" (chapter 7).
    tol : float > 0, the stopping tolerance epsilon: the relative duality gap (P - D) / P for
        "subgradient", the KKT violation max |PG_i| for "dual_gradient", and for "dcd" with
        stopping="pg" the spread max_i PG_i - min_i PG_i over an epoch (LIBLINEAR's eps),
        with stopping="dw" the change |w_k - w_(k-1)| over an epoch; the relative duality gap
        for "sdca"; not used by "pegasos", which runs max_iter epochs (it has no certificate).
    max_iter : int >= 1, the most epochs (passes over the data).
    fit_intercept : whether to fit a bias b. As in LIBLINEAR, b is the weight of a feature of
        value ``intercept_scaling`` appended to every sample, so it is regularized: P gains
        1/2 (b / intercept_scaling)^2.
    intercept_scaling : float > 0, the value B of that feature.
    class_weight : None, "balanced", or a dict class -> weight; C_i = C * weight of y_i.
    random_state : None, int or numpy Generator, for solvers that draw random orders.
    trace : False, True (record every epoch) or k (every k epochs); fills ``trace_``.
    warm_start : bool, start from the last fit's alpha (scikit-learn's convention), clipped to
        the box [0, U_i] of the current C; needs the same samples and classes.
    verbose : bool, print a line after each slice of work (epochs, gap when known, active set;
        DCD with shrinking counts active-set epochs, passes over the active set).
    callback : None or a function called after each slice with a
        :class:`svmlab.solvers.slices.Progress` (solver, unit, units, n_active, gap, seconds,
        finished). A fit runs in slices of about 30 ms, so Ctrl-C stops it at once.

    Options of particular solvers (declared in :mod:`svmlab.solvers`; each solver reads only its
    own, and ``fit`` warns of one set away from its default for a solver that ignores it):
    shrinking : bool, "dcd": shrink the active set (chapter 4).
    order : "permutation", "cyclic" or "random" (with replacement), "dcd" and "sdca": the
        order of the coordinates within an epoch. With "random" an epoch draws about 63 % of the
        variables, and DCD's "pg" rule reads only those: it may stop with a larger violation
        on the others (the gap still tells how far the model is from the optimum).
    stopping : "pg" (LIBLINEAR's projected-gradient rule) or "dw" (|w_k - w_(k-1)| < tol,
        Roethel & Brynda's rule), "dcd".
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

    def __init__(self, C=1.0, loss="hinge", solver="dcd", tol=1e-4, max_iter=1000,
                 fit_intercept=True, intercept_scaling=1.0, class_weight=None, random_state=None,
                 trace=False, shrinking=True, order="permutation", stopping="pg", batch_size=1,
                 output="last", smoothing=0.0, accelerated=False, projection=True, warm_start=False,
                 verbose=False, callback=None):
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
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback

    _solvers = solvers.LINEAR

    def _multiclass_tasks(self, codes, weights):
        """One-vs-rest, as LIBLINEAR: class k against the rest, with C_i = C * weight_k for
        class k and plain C for the rest."""
        C = positive_number(self.C, "C")
        return [(None, np.where(codes == k, 1.0, -1.0), np.where(codes == k, weights[k], C))
                for k in range(len(self.classes_))]

    def _fit_binary(self, X, y_pm, Ci, options):
        B = positive_number(self.intercept_scaling, "intercept_scaling") if options["fit_intercept"] else 0.0
        d = X.shape[1]
        rows = as_rows(X)
        problem = Problem(rows, y_pm, Ci, options["code"], B)
        result, trace = self._solve(problem, options, d + 1, linear_coef)
        return _Binary(result.alpha, linear_coef(result.w), B * result.w[-1], result.n_iter, result.converged, trace)

    def _store(self, X, tasks, fits):
        super()._store(X, tasks, fits)
        self.coef_ = np.array([f.coef for f in fits])

    def decision_function(self, X):
        """f(x) = w.x + b for each row; one column per class with more than two classes."""
        X = self._check_fitted(X)
        f = np.asarray(X @ self.coef_.T) + self.intercept_
        return f[:, 0] if len(self.classes_) == 2 else f


class KernelSVM(_SVMBase):
    """Kernel SVM: the dual with Q_ij = y_i y_j K(x_i, x_j) (book chapters 2 and 5).

    Parameters as :class:`LinearSVM`, and
    kernel : "rbf", "poly" or "linear"; gamma : "scale" or a number > 0; degree, coef0 (poly).
    solver : "smo" (SMO with a kernel cache, chapter 5, the default; needs fit_intercept=True),
        "dcd" (bias-free kernel dual coordinate descent, chapter 5; needs fit_intercept=False)
        or "dual_gradient" (projected gradient on the dual; stores the n x n kernel matrix).
    fit_intercept : a free, unregularized bias b, as LIBSVM: the dual gains the constraint
        sum_i y_i alpha_i = 0 and b comes from the KKT conditions. False: no bias.
    shrinking, selection ("second_order", "max_violating", "random"), cache_size (MB):
        options of the SMO solver (chapter 5). The process keeps the last fit's cache memory
        (at most cache_size MB) for the next fit, as the C allocator does for LIBSVM.
    n_jobs : None (one thread), a number of threads, or -1 for every core (scikit-learn's
        convention): the threads that compute kernel columns in SMO and kernel DCD. The model
        is the same bit for bit for any number. A split loop waits for all its threads, so while
        other programs keep the cores busy, two threads can be slower than one.
    warm_start : bool, start from the last fit's alpha, clipped to the box [0, U_i] of the current
        C; with a free bias, where the clipping broke sum_i y_i alpha_i = 0 the class of the larger
        sum of alpha is scaled down until it holds again. Needs the same samples and classes.
    verbose, callback : as :class:`LinearSVM`; SMO reports pair updates, kernel DCD epochs
        (with shrinking, active-set epochs: passes over the active set).

    Attributes
    ----------
    support_vectors_, dual_coef_ (1, n_SV) = alpha_i y_i, intercept_ (1,), alpha_, support_,
    n_iter_, classes_, n_features_in_, trace_.
    """

    def __init__(self, C=1.0, loss="hinge", kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 solver="smo", tol=1e-3, max_iter=1000, fit_intercept=True, class_weight=None,
                 random_state=None, trace=False, shrinking=True, selection="second_order", cache_size=200,
                 n_jobs=None, warm_start=False, verbose=False, callback=None):
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
        self.n_jobs = n_jobs
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback

    _solvers = solvers.KERNEL

    def _multiclass_tasks(self, codes, weights):
        """One-vs-one, as LIBSVM: every pair of classes i < j on their own samples, class i
        as +1."""
        tasks = []
        for i, j in combinations(range(len(self.classes_)), 2):
            rows = np.flatnonzero((codes == i) | (codes == j))
            tasks.append((rows, np.where(codes[rows] == i, 1.0, -1.0), weights[codes[rows]]))
        return tasks

    def _setup(self, X):
        # gamma="scale" is resolved on the whole training set, as scikit-learn's SVC does
        self._kernel = make_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        check_positive_semidefinite(self._kernel, X, self.loss)

    def _fit_binary(self, X, y_pm, Ci, options):
        problem = solvers.KernelProblem(X, self._kernel, y_pm, Ci, options["code"], options["fit_intercept"])
        result, trace = self._solve(problem, options, 1, no_coef)
        return _Binary(result.alpha, None, result.b, result.n_iter, result.converged, trace)

    def _store(self, X, tasks, fits):
        super()._store(X, tasks, fits)
        self.support_vectors_ = X[self.support_]

    def _pairwise(self, X):
        """Decision values of every binary problem, one column each."""
        X = self._check_fitted(X)
        return kernel_matvec(self._kernel, X, self.support_vectors_, self.dual_coef_.T) + self.intercept_

    def _votes(self, D):
        votes = np.zeros((D.shape[0], len(self.classes_)))
        confidence = np.zeros_like(votes)
        for p, (i, j) in enumerate(combinations(range(len(self.classes_)), 2)):
            wins = D[:, p] > 0
            votes[wins, i] += 1
            votes[~wins, j] += 1
            confidence[:, i] += D[:, p]
            confidence[:, j] -= D[:, p]
        return votes, confidence

    def decision_function(self, X):
        """f(x) = sum_i alpha_i y_i K(x_i, x) + b for each row. With more than two classes,
        one column per class: its one-vs-one votes plus the summed decision values squashed
        into (-1/3, 1/3), which breaks ties without overturning a vote (the shape
        scikit-learn's SVC reports by default)."""
        D = self._pairwise(X)
        if len(self.classes_) == 2:
            return D[:, 0]
        votes, confidence = self._votes(D)
        return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))

    def predict(self, X):
        """The class of each row: by the sign of f with two classes, by one-vs-one votes
        (ties to the first class, as LIBSVM) with more."""
        D = self._pairwise(X)
        if len(self.classes_) == 2:
            return self.classes_[(D[:, 0] > 0).astype(int)]
        return self.classes_[self._votes(D)[0].argmax(axis=1)]
