"""LinearSVR and KernelSVR: support vector regression with scikit-learn's conventions.

The constructor stores parameters; ``fit`` validates (:mod:`svmlab.validation`), calls a
solver kernel (:mod:`svmlab.solvers`) on the dual in beta (:mod:`svmlab.regression`) and
wraps the result in fitted attributes with scikit-learn's names. scikit-learn is not
imported here.
"""

import numpy as np

from . import solvers
from .estimators import (NotFittedError, _Binary, _check_callback, _check_finite_fits, _progress,
                         _warn_unconverged, linear_coef, no_coef)
from .kernels import check_positive_semidefinite, kernel_matvec, make_kernel
from .params import Parameters
from .rows import as_rows
from .solvers import slices
from .solvers.coordinate import Stop
from .solvers.dcd_svr import Problem
from .trace import Recorder
from .validation import (check_bool, check_features, check_random_state, check_X_target, non_negative_number, one_of,
                         positive_int, positive_number, regression_loss_code, sklearn_compatible, trace_every)


class _SVRBase(Parameters):
    """The fit driver, prediction and the R^2 score."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        """Tags for scikit-learn's tools, imported only when scikit-learn asks for them."""
        from sklearn.utils import InputTags, RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    regressor_tags=RegressorTags(), input_tags=InputTags(sparse=True))

    def fit(self, X, y):
        """Solve the SVR on (X, y); y holds one real-valued target per sample. Returns self."""
        options = self._check_params()
        extra = solvers.check(self._solvers, self.solver, self.get_params())
        X, z = check_X_target(X, y, type(self).__name__)
        self.n_features_in_ = X.shape[1]
        Ci = np.full(len(z), options["C"])
        recorder = Recorder(options["every"], options["max_iter"], len(z), self._w_size(X))
        start = solvers.starter(self._solvers, self.solver)
        fit = self._fit(start, extra, X, z, Ci, options, recorder)
        _check_finite_fits([fit], self.solver)
        self._store(X, fit)
        _warn_unconverged(self, [fit])
        return self

    def _check_params(self):
        one_of(self.solver, "solver", tuple(self._solvers))
        return dict(C=positive_number(self.C, "C"), epsilon=non_negative_number(self.epsilon, "epsilon"),
                    tol=positive_number(self.tol, "tol"), max_iter=positive_int(self.max_iter, "max_iter"),
                    every=trace_every(self.trace), warm_start=check_bool(self.warm_start, "warm_start"),
                    verbose=check_bool(self.verbose, "verbose"), callback=_check_callback(self.callback))

    def _warm_beta(self, n, o):
        """The last fit's beta when warm_start is on and there is one, else None; the solver
        makes it feasible for the new problem."""
        last = getattr(self, "alpha_", None)
        if not o["warm_start"] or last is None:
            return None
        if len(last) != n:
            raise ValueError("warm_start=True needs the same samples as the previous fit; set warm_start=False "
                             "to fit this data from scratch.")
        return last

    def _store(self, X, fit):
        """alpha_ holds beta_i = alpha_i - alpha_i^* for every sample; dual_coef_ the non-zero ones."""
        self.alpha_ = fit.alpha
        self.support_ = np.flatnonzero(fit.alpha)
        self.dual_coef_ = fit.alpha[self.support_][None, :]
        self.intercept_ = np.array([fit.intercept])
        self.n_iter_ = fit.n_iter
        self.trace_ = fit.trace

    def _check_fitted(self, X):
        if not hasattr(self, "alpha_"):
            raise sklearn_compatible(NotFittedError)(f"This {type(self).__name__} is not fitted yet; call fit(X, y) "
                                                     "first.")
        return check_features(X, self.n_features_in_, type(self).__name__)

    def score(self, X, y):
        """The coefficient of determination R^2 = 1 - sum (y - f)^2 / sum (y - mean y)^2 on
        (X, y); for a constant y, 1 when predicted exactly and 0 otherwise (as scikit-learn)."""
        z = np.asarray(y, dtype=np.float64).ravel()
        residual = np.sum((z - self.predict(X)) ** 2)
        total = np.sum((z - z.mean()) ** 2)
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / total)


class LinearSVR(_SVRBase):
    """Linear support vector regression: 1/2 |w|^2 + C sum_i loss(y_i - w.x_i - b).

    Parameters
    ----------
    C : float > 0, the penalty.
    epsilon : float >= 0, the half-width of the tube inside which errors cost nothing.
    loss : "epsilon_insensitive" (L1, max(0, |r| - epsilon)) or "squared_epsilon_insensitive"
        (L2, its square).
    solver : "dcd", dual coordinate descent on the dual in beta (Ho and Lin 2012, LIBLINEAR's
        solver for the dual of linear SVR).
    tol : float > 0, LIBLINEAR's stopping rule: the epoch's summed violation of the optimality
        conditions at most tol times that of the first epoch.
    max_iter : int >= 1, the most epochs.
    fit_intercept : whether to fit a bias b. As in LIBLINEAR, b is the weight of a feature of
        value ``intercept_scaling`` appended to every sample, so it is regularized: P gains
        1/2 (b / intercept_scaling)^2.
    intercept_scaling : float > 0, the value B of that feature.
    shrinking : bool, shrink the active set.
    order : "permutation" (a new random order every epoch, the default) or "cyclic".
    random_state : None, int or numpy Generator, for the random orders.
    trace : False, True (record every epoch) or k (every k epochs); fills ``trace_``.
    warm_start : bool, start from the last fit's beta (``alpha_``), clipped to the box of the
        current C; needs the same samples. The stopping rule's reference is then the sum of the
        violations at beta = 0, about what a cold start's first epoch sums.
    verbose, callback : as :class:`svmlab.LinearSVM`; DCD reports active-set epochs.

    Attributes
    ----------
    coef_ (n_features,), intercept_ (1,), alpha_ (n_samples,) the dual variables beta_i =
    alpha_i - alpha_i^*, dual_coef_ (1, n_SV) the non-zero ones, support_, n_iter_ (epochs),
    n_features_in_, trace_ (a :class:`svmlab.trace.Trace` or None).
    """

    def __init__(self, C=1.0, epsilon=0.0, loss="epsilon_insensitive", solver="dcd", tol=1e-4, max_iter=1000,
                 fit_intercept=True, intercept_scaling=1.0, shrinking=True, order="permutation",
                 random_state=None, trace=False, warm_start=False, verbose=False, callback=None):
        self.C = C
        self.epsilon = epsilon
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.shrinking = shrinking
        self.order = order
        self.random_state = random_state
        self.trace = trace
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback

    _solvers = solvers.LINEAR_REGRESSION

    def _check_params(self):
        options = super()._check_params()
        fit_intercept = check_bool(self.fit_intercept, "fit_intercept")
        return dict(options, code=regression_loss_code(self.loss), rng=check_random_state(self.random_state),
                    B=positive_number(self.intercept_scaling, "intercept_scaling") if fit_intercept else 0.0)

    def _w_size(self, X):
        return X.shape[1] + 1

    def _fit(self, start, extra, X, z, Ci, o, recorder):
        """Runs the registered solver's state in slices (:mod:`svmlab.solvers.slices`)."""
        B = o["B"]
        problem = Problem(as_rows(X), z, Ci, o["epsilon"], o["code"], B)
        state = start(problem, Stop(o["tol"], o["max_iter"]), recorder.buffers, o["rng"], self._warm_beta(len(z), o),
                      **extra)
        result = slices.run(state, self.solver, _progress(o["verbose"], o["callback"])).result()
        return _Binary(result.alpha, linear_coef(result.w), B * result.w[-1], result.n_iter, result.converged,
                       recorder.to_trace(self.solver, linear_coef, state.unit))

    def _store(self, X, fit):
        super()._store(X, fit)
        self.coef_ = fit.coef

    def predict(self, X):
        """f(x) = w.x + b for each row."""
        X = self._check_fitted(X)
        return np.asarray(X @ self.coef_).ravel() + self.intercept_[0]


class KernelSVR(_SVRBase):
    """Epsilon-support vector regression with a kernel and a free bias, as LIBSVM.

    Parameters
    ----------
    C : float > 0, the penalty. epsilon : float >= 0, the tube's half-width.
    kernel : "rbf", "poly" or "linear"; gamma : "scale" or a number > 0; degree, coef0 (poly).
    solver : "smo" (SMO on the 2n-variable dual, as LIBSVM's epsilon-SVR).
    tol : float > 0, the stopping tolerance on LIBSVM's maximal violation.
    cache_size : float > 0, the kernel column cache in MB. shrinking : bool.
    n_jobs : None (one thread), a number of threads, or -1 for every core: the threads that
        compute kernel columns; the model is the same bit for bit for any number (while other
        programs keep the cores busy, two threads can be slower than one: see KernelSVM).
    max_iter : int >= 1, the most epochs (of 2n pair updates). trace : False, True or k (every k
        pair updates), fills ``trace_``.
    warm_start : bool, start from the last fit's beta (``alpha_``), clipped to the box of the
        current C and made to keep sum beta = 0 again; needs the same samples.
    verbose, callback : as :class:`svmlab.LinearSVM`; SMO reports pair updates.

    Attributes
    ----------
    support_ (n_SV,), support_vectors_ (n_SV, n_features), dual_coef_ (1, n_SV) the non-zero
    beta_i = alpha_i - alpha_i^*, alpha_ (n_samples,) every beta_i, intercept_ (1,), n_iter_,
    n_features_in_, trace_.
    """

    def __init__(self, C=1.0, epsilon=0.1, kernel="rbf", gamma="scale", degree=3, coef0=0.0, solver="smo",
                 tol=1e-3, cache_size=200, shrinking=True, n_jobs=None, max_iter=1000, trace=False, warm_start=False,
                 verbose=False, callback=None):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.n_jobs = n_jobs
        self.max_iter = max_iter
        self.trace = trace
        self.warm_start = warm_start
        self.verbose = verbose
        self.callback = callback

    # SMO for SVR registers itself in solvers.KERNEL_REGRESSION (its own branch)
    _solvers = solvers.KERNEL_REGRESSION

    def _w_size(self, X):
        return 0  # SMO records its bias, not a w

    def _fit(self, start, extra, X, z, Ci, o, recorder):
        """Runs the registered solver's state in slices (:mod:`svmlab.solvers.slices`)."""
        self._kernel = make_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        check_positive_semidefinite(self._kernel, X, "hinge")  # the L1 loss: a box, as the hinge
        rng = np.random.default_rng(0)  # KernelSVR has no random_state (as SVR): a fixed seed keeps fits repeatable
        problem = solvers.KernelRegressionProblem(X, self._kernel, z, Ci, o["epsilon"])
        state = start(problem, Stop(o["tol"], o["max_iter"]), recorder.buffers, rng, self._warm_beta(len(z), o),
                      **extra)
        result = slices.run(state, self.solver, _progress(o["verbose"], o["callback"])).result()
        return _Binary(result.alpha, None, result.b, result.n_iter, result.converged,
                       recorder.to_trace(self.solver, no_coef, state.unit))

    def _store(self, X, fit):
        super()._store(X, fit)
        self.support_vectors_ = X[self.support_]

    def predict(self, X):
        """f(x) = sum_i beta_i K(x_i, x) + b for each row."""
        X = self._check_fitted(X)
        return np.ravel(kernel_matvec(self._kernel, X, self.support_vectors_, self.dual_coef_[0])) + self.intercept_[0]
