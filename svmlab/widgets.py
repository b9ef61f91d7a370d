"""Interactive helpers for the chapters: a fit, its numbers, and a slider over C.

Built on the pure plotting functions of :mod:`svmlab.plots`; every number printed comes from
:class:`svmlab.SVMProblem`, the book's one definition of the problem (eq. 1.3 and 2.9).
This module imports ipywidgets and matplotlib, so ``import svmlab`` does not load it.

* :func:`describe_fit` -- margin, epochs, primal, dual, gap, support vectors, accuracy.
* :func:`show_fit` -- fit a copy of an estimator with some parameters changed and draw it;
  the static figure a chapter shows before its widget.
* :func:`fit_explorer` -- a ``FloatLogSlider`` over C (and optionally tol) that refits and
  redraws; the widget of chapter 1 and later chapters. With tol it also draws the solver's
  stopping quantity (:func:`stopping_rule`, :func:`stopping_series`) against the epoch;
  :func:`show_stopping` draws the same two panels as a static figure.
* :func:`show_pegasos`, :func:`pegasos_explorer` -- Pegasos on 2-D data with C, the batch size
  and the projection: the boundary and the iterates' norms against the ball (chapter 7).
* :func:`show_race`, :func:`race_explorer` -- every solver's relative gap on one problem,
  against time and against epochs; the widget picks the problem and C (chapter 10).
* :func:`describe_svr`, :func:`show_svr`, :func:`svr_explorer` -- support vector regression on
  1-D data: the fit, its epsilon-tube and support vectors, sliders over C and epsilon (chapter 9).
"""

import copy
import warnings

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from . import plots
from .estimators import ConvergenceWarning, KernelSVM, LinearSVM
from .problem import SVMProblem
from .validation import sample_C

__all__ = ["describe_fit", "show_fit", "fit_explorer", "show_stopping", "stopping_rule", "stopping_series",
           "show_pegasos", "pegasos_explorer", "show_race", "race_explorer", "describe_svr", "show_svr",
           "svr_explorer"]


def _signed_labels(model, y):
    """y mapped to -1 (classes_[0]) / +1 (classes_[1]), as the model saw it at fit time."""
    y = np.asarray(y)
    if not np.isin(y, model.classes_).all():
        raise ValueError(f"y holds labels the model was not fitted on; its classes are {model.classes_.tolist()}.")
    return np.where(y == model.classes_[1], 1.0, -1.0)


def _problem(model, X, y_pm):
    """The SVMProblem the model solved: its C_i (with class weights), loss and bias."""
    Ci = sample_C(model.C, model.class_weight, model.classes_, y_pm)
    if hasattr(model, "coef_"):
        bias = "regularized" if model.fit_intercept else "none"
        return SVMProblem(X, y_pm, Ci, model.loss, bias, model.intercept_scaling)
    return SVMProblem(X, y_pm, Ci, model.loss, "free" if model.fit_intercept else "none",
                      kernel=model.kernel, gamma=model.gamma, degree=model.degree, coef0=model.coef0)


def _values(model, problem):
    """(|w|, P, D) of a fitted model; |w| excludes the bias (the margin lives in x-space)."""
    alpha = model.alpha_
    if hasattr(model, "coef_"):
        wnorm = float(np.linalg.norm(model.coef_))
        primal = problem.primal(model.coef_, model.intercept_)
    else:  # kernel: |w|^2 = alpha' Q alpha in feature space
        wnorm = float(np.sqrt(max(alpha @ problem.margins(alpha), 0.0)))
        primal = problem.primal_at(alpha, model.intercept_[0])
    return wnorm, float(primal), float(problem.dual(alpha))


def describe_fit(model, X, y):
    """A few deterministic lines on a fitted LinearSVM (or KernelSVM) and the data (X, y).

    The margin width 2/|w| (eq. 1.1), the epochs run, P (eq. 1.3) at the model's (w, b), D
    (eq. 2.9) at its alpha, the gap P - D, the support vectors (alpha_i > 0), the points on
    or inside the margin (y_i f(x_i) <= 1) and the training accuracy.
    """
    if not hasattr(model, "alpha_"):
        raise ValueError("describe_fit needs a fitted estimator; call fit(X, y) first.")
    y_pm = _signed_labels(model, y)
    problem = _problem(model, X, y_pm)
    wnorm, primal, dual = _values(model, problem)
    margin = 2.0 / wnorm if wnorm > 0 else np.inf
    inside = int(np.count_nonzero(y_pm * model.decision_function(X) <= 1.0))
    return "\n".join([
        f"margin 2/|w| = {margin:.4f}",
        f"epochs = {model.n_iter_}",
        f"primal P = {primal:.6g}",
        f"dual D = {dual:.6g}",
        f"gap P - D = {primal - dual:.3g}",
        f"support vectors = {len(model.support_)} (alpha_i > 0); on or inside the margin: {inside}",
        f"training accuracy = {model.score(X, y):.4f}",
    ])


def _fresh_copy(estimator, params):
    """An unfitted estimator with the same parameters, ``params`` set; the caller's is untouched."""
    model = type(estimator)(**copy.deepcopy(estimator.get_params()))
    return model.set_params(**params)


def show_fit(estimator, X, y, ax=None, **params):
    """Fit a copy of ``estimator`` with ``params`` set and draw its decision function.

    Draws f with the margins f = -1, +1 and the points sized by alpha
    (:func:`svmlab.plots.plot_decision_function`); for the hinge, points at the bound
    alpha_i = C_i are marked. Returns (fitted model, ax).
    """
    model = _fresh_copy(estimator, params).fit(X, y)
    y_pm = _signed_labels(model, y)  # the plots colour classes -1 / +1
    upper = sample_C(model.C, model.class_weight, model.classes_, y_pm) if model.loss == "hinge" else None
    ax = plots.plot_decision_function(model, X, y_pm, alpha=model.alpha_, upper=upper, ax=ax,
                                      title=f"{model.loss}, C = {model.C:.3g}")
    return model, ax


def show_pegasos(X, y, C=1.0, batch_size=1, projection=True, epochs=30, random_state=0, axes=None):
    """Fit Pegasos (``LinearSVM(solver="pegasos", trace=True)``, last iterate) on 2-D data and
    draw it: the decision function on ``axes[0]`` and the norms of the recorded iterates against
    the ball |w| <= sqrt(sum_i C_i) = 1/sqrt(lambda) of the projection (eq. 7.3) on ``axes[1]``.
    Returns (fitted model, radius, axes); the figure is new when ``axes`` is None."""
    model = LinearSVM(solver="pegasos", C=C, batch_size=batch_size, projection=projection, max_iter=epochs,
                      random_state=random_state, trace=True).fit(X, y)
    y_pm = _signed_labels(model, y)
    radius = float(np.sqrt(sample_C(model.C, model.class_weight, model.classes_, y_pm).sum()))
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 4))
    plots.plot_decision_function(model, X, y_pm, ax=axes[0],
                                 title=f"Pegasos, C = {C:.3g}, k = {batch_size}, projection {'on' if projection else 'off'}")
    plots.plot_iterate_norms(model.trace_, radius=radius, intercept_scaling=model.intercept_scaling, ax=axes[1])
    axes[1].set_title(f"|w| per epoch ({epochs} epochs)")
    return model, radius, axes


def _describe_pegasos(model, radius, X, y):
    """Pegasos has no dual: the primal value, the largest recorded |w| against the ball, accuracy."""
    problem = _problem(model, X, _signed_labels(model, y))
    tr = model.trace_
    norms = np.sqrt(np.sum(tr.snapshot_coef**2, axis=1) + (tr.snapshot_intercept / model.intercept_scaling)**2)
    return "\n".join([
        f"epochs = {model.n_iter_}",
        f"primal P = {float(problem.primal(model.coef_, model.intercept_)):.6g}",
        f"largest recorded |w| = {norms.max():.4g} (radius 1/sqrt(lambda) = {radius:.4g})",
        f"training accuracy = {model.score(X, y):.4f}",
    ])


def pegasos_explorer(X, y, C=1.0, C_range=(-2, 3), batch_sizes=(1, 4, 16, 64), epochs=30, random_state=0):
    """Pegasos with a slider over C (log scale), a choice of batch size k and a projection
    checkbox; each change refits (:func:`show_pegasos`), redraws both panels and prints the
    primal value and the largest |w| against the radius. X must have two features. Returns
    the ``ipywidgets.interactive``."""
    sizes = [int(k) for k in batch_sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"batch_sizes must be integers >= 1; got {batch_sizes!r}.")
    controls = dict(C=_log_slider("C", C_range, C),
                    batch_size=ipywidgets.Dropdown(options=sizes, value=sizes[0], description="k (batch)"),
                    projection=ipywidgets.Checkbox(value=True, description="projection"))

    def redraw(C, batch_size, projection):
        model, radius, axes = show_pegasos(X, y, C, batch_size, projection, epochs, random_state)
        fig = axes[0].figure
        fig.tight_layout()
        display(fig)
        plt.close(fig)
        print(_describe_pegasos(model, radius, X, y))

    return ipywidgets.interactive(redraw, **controls)


def _log_slider(description, exponents, value):
    lo, hi = (float(e) for e in exponents)
    if not lo < hi:
        raise ValueError(f"the {description} range must be (low, high) exponents of 10 with low < high; "
                         f"got {exponents!r}.")
    start = np.clip(np.log10(value), lo, hi) if value > 0 else 0.5 * (lo + hi)
    return ipywidgets.FloatLogSlider(value=10.0 ** start, base=10, min=lo, max=hi, step=(hi - lo) / 24,
                                     description=description, continuous_update=False,
                                     readout_format=".3g")


# What epsilon (``tol``) means for each solver, and the recorded quantity it bounds.
_RULES = {
    "gap": ("relative gap (P - D) / P",
            "epsilon bounds the relative duality gap (P - D) / P: the run stops once the gap "
            "certifies the iterate to that fraction of P."),
    "kkt": ("KKT violation max |PG_i|",
            "epsilon bounds the KKT violation max_i |PG_i| of the projected gradient (eq. 3.6)."),
    "kkt_free": ("maximal violation m - M",
                 "epsilon bounds LIBSVM's maximal violation m(alpha) - M(alpha) over I_up and I_low (eq. 5.9)."),
    "pg": ("PG max - PG min at the iterate",
           "epsilon bounds PG max - PG min, the spread of the projected gradients PG_i over an epoch (eq. 3.8); "
           "the curve shows PG max - PG min over all variables at the end of each recorded epoch."),
    "dw": ("|w_k - w_(k-1)|",
           "epsilon bounds |w_k - w_(k-1)|, the change of w over one epoch (eq. 3.9): "
           "small steps, not a certificate."),
}


def stopping_rule(estimator):
    """The key of ``_RULES`` for the rule ``estimator`` stops on, or None (Pegasos has no tol)."""
    solver = estimator.solver
    if solver == "pegasos":
        return None
    if solver in ("subgradient", "sdca"):
        return "gap"
    if solver == "dcd":  # linear DCD has two rules; kernel DCD uses PG max - PG min
        return getattr(estimator, "stopping", "pg")
    if solver in ("dual_gradient", "smo"):
        return "kkt_free" if isinstance(estimator, KernelSVM) and estimator.fit_intercept else "kkt"
    raise ValueError(f"no stopping rule is known for solver={solver!r}: add it to svmlab.widgets.stopping_rule")


def stopping_series(model, X, y):
    """(epochs, values) of the stopping quantity of a model fitted with ``trace=True``, read
    off its trace (SMO's "epochs" there are pair updates): the recorded relative gap, KKT
    violation or |w_k - w_(k-1)| per epoch, or for the "pg" rule max PG_i - min PG_i at the
    trace's snapshots (the book's PG, eq. 3.6)."""
    trace, rule = model.trace_, stopping_rule(model)
    if trace is None or rule is None:
        raise ValueError("stopping_series needs a model fitted with trace=True by a solver that has a tol.")
    if rule == "gap":
        return trace.epoch, trace.gap / np.abs(trace.primal)
    if rule == "dw":
        return trace.epoch[1:], trace.dw_norm[1:]  # no change before the first epoch
    if rule == "pg":
        problem = _problem(model, X, _signed_labels(model, y))
        spreads = [np.ptp(problem.projected_gradient(alpha)) for alpha in trace.snapshot_alpha]
        return trace.snapshot_epoch, np.array(spreads)
    return trace.epoch, trace.kkt


def show_stopping(estimator, X, y, axes=None, **params):
    """:func:`show_fit` with ``trace=True`` on ``axes[0]`` and the solver's stopping quantity
    against the epoch, with a line at epsilon = tol, on ``axes[1]`` (:func:`stopping_series`,
    :func:`svmlab.plots.plot_stopping`): the static figure of a widget with a tol slider.
    Returns (fitted model, axes, the sentence saying what epsilon means for that solver)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    model, _ = show_fit(estimator, X, y, ax=axes[0], **{**params, "trace": True})
    rule = stopping_rule(model)
    if rule is None:
        raise ValueError(f"solver={model.solver!r} has no tol, so no stopping quantity to draw.")
    plots.plot_stopping(*stopping_series(model, X, y), model.tol, _RULES[rule][0], ax=axes[1],
                        unit=model.trace_.unit)
    axes[0].figure.tight_layout()
    return model, axes, f"{model.solver}: {_RULES[rule][1]}"


def _stopping_controls(estimator):
    """A toggle between the two rules of DCD; no control for the other solvers."""
    if estimator.solver != "dcd" or not isinstance(estimator, LinearSVM):
        return {}
    return {"stopping": ipywidgets.ToggleButtons(options=[("PG max - PG min", "pg"), ("|w_k - w_(k-1)|", "dw")],
                                                 value=estimator.stopping, description="rule")}


def fit_explorer(estimator, X, y, C_range=(-3, 3), tol_range=None, figsize=(5.5, 4.5)):
    """A slider over C on a log scale (and over tol when ``tol_range`` is given).

    Each move refits a copy of ``estimator`` (:func:`show_fit`), redraws the figure and prints
    :func:`describe_fit`. ``C_range`` and ``tol_range`` are (low, high) exponents of 10. With a
    tol slider a second panel draws the solver's stopping quantity against the epoch with a
    line at epsilon (:func:`svmlab.plots.plot_stopping`), a line says what epsilon means for
    that solver, and for DCD a toggle picks the rule (PG max - PG min or |w_k - w_(k-1)|). A
    convergence warning is printed as one line. Returns the ``ipywidgets.interactive``.
    """
    controls = {"C": _log_slider("C", C_range, estimator.C)}
    if tol_range is not None:
        controls["tol"] = _log_slider("tol", tol_range, estimator.tol)
        controls.update(_stopping_controls(estimator))
    with_stopping = tol_range is not None and stopping_rule(estimator) is not None

    def redraw(**params):
        panels = 2 if with_stopping else 1
        fig, axes = plt.subplots(1, panels, figsize=(panels * figsize[0], figsize[1]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            if with_stopping:
                model, _, meaning = show_stopping(estimator, X, y, axes=axes, **params)
            else:
                model, _ = show_fit(estimator, X, y, ax=axes, **params)
        display(fig)
        plt.close(fig)
        if with_stopping:
            print(meaning)
        print(describe_fit(model, X, y))
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            print(f"note: stopped at max_iter={model.max_iter} before reaching tol={model.tol:.3g}; "
                  "the figure shows the iterate the solver returned.")
        for w in caught:
            if not issubclass(w.category, ConvergenceWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    return ipywidgets.interactive(redraw, **controls)


def show_race(traces, p_star, title=None, figsize=(10.0, 3.6)):
    """The race of chapter 10 as one figure: :func:`svmlab.plots.plot_solver_race` against
    time (left) and against epochs (right), one legend outside. Returns the two Axes."""
    fig, axes = plt.subplots(1, 2, figsize=figsize)
    plots.plot_solver_race(traces, p_star, x="time", ax=axes[0], legend=False)
    plots.plot_solver_race(traces, p_star, x="epoch", ax=axes[1])
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return axes


def race_explorer(runs, fit, problems, Cs, C=None):
    """A choice of problem and of C among ``Cs``; draws :func:`show_race` for the pair.

    ``runs`` maps (problem, C) to (traces, p_star), the races already run (the chapter's
    figures); a pair not in it is run once by ``fit(problem, C)`` and kept in ``runs``, so the
    widget re-runs nothing it has seen. Returns the ``ipywidgets.interactive``.
    """
    Cs = [float(c) for c in Cs]
    start = Cs[0] if C is None else float(C)
    if start not in Cs:
        raise ValueError(f"C={C!r} is not one of Cs={Cs!r}.")
    controls = dict(problem=ipywidgets.Dropdown(options=list(problems), description="problem"),
                    C=ipywidgets.SelectionSlider(options=Cs, value=start, description="C",
                                                 continuous_update=False))

    def redraw(problem, C):
        if (problem, C) not in runs:
            runs[(problem, C)] = fit(problem, C)
        traces, p_star = runs[(problem, C)]
        axes = show_race(traces, p_star, title=f"{problem}, C = {C:g}")
        display(axes[0].figure)
        plt.close(axes[0].figure)

    return ipywidgets.interactive(redraw, **controls)


# -- support vector regression (chapter 9) ----------------------------------------------------

def _svr_problem(model, X, z):
    """The SVRProblem a fitted svmlab LinearSVR or KernelSVR solved."""
    from .problem import SVRProblem

    if hasattr(model, "coef_"):
        bias = "regularized" if model.fit_intercept else "none"
        return SVRProblem(X, z, model.C, model.epsilon, model.loss, bias, model.intercept_scaling)
    return SVRProblem(X, z, model.C, model.epsilon, bias="free", kernel=model.kernel, gamma=model.gamma,
                      degree=model.degree, coef0=model.coef0)


EDGE = 1e-6  # a residual within this of epsilon is on the tube's edge, not outside it


def describe_svr(model, X, z, X_test=None, z_test=None):
    """Deterministic lines on a fitted svmlab LinearSVR/KernelSVR: support vectors, points
    outside the tube (by more than EDGE: a point on its edge sits there only to the fit's
    tolerance, as chapter 9's check of the KKT conditions (9.6) allows), mean absolute train (and test)
    error, P, D and the gap P - D."""
    problem = _svr_problem(model, X, z)
    beta = model.alpha_
    if hasattr(model, "coef_"):
        primal = problem.primal(model.coef_, model.intercept_)
    else:
        primal = problem.primal_at(beta, model.intercept_[0])
    dual = problem.dual(beta)
    residual = np.abs(z - model.predict(X))
    lines = [f"support vectors = {len(model.support_)} of {len(z)}; outside the tube: "
             f"{int(np.count_nonzero(residual > model.epsilon + EDGE))}",
             f"train error (mean |z - f|) = {residual.mean():.4f}"]
    if X_test is not None:
        lines.append(f"test error (mean |z - f|) = {np.abs(z_test - model.predict(X_test)).mean():.4f}")
    lines += [f"primal P = {primal:.6g}", f"dual D = {dual:.6g}", f"gap P - D = {primal - dual:.3g}"]
    return "\n".join(lines)


def show_svr(estimator, x, z, ax=None, **params):
    """Fit a copy of ``estimator`` (an svmlab LinearSVR or KernelSVR) with ``params`` set on
    1-D data (x, z) and draw the fit, its tube and its support vectors
    (:func:`svmlab.plots.plot_tube`). Returns (fitted model, ax)."""
    X = np.asarray(x, dtype=np.float64).reshape(-1, 1)
    model = _fresh_copy(estimator, params).fit(X, z)
    grid = np.linspace(X.min(), X.max(), 300)
    ax = plots.plot_tube(X[:, 0], z, grid, model.predict(grid[:, None]), model.epsilon, model.support_, ax=ax)
    ax.set_title(f"C = {model.C:.3g}, epsilon = {model.epsilon:.3g}", fontsize="small")
    return model, ax


def svr_explorer(estimator, x, z, x_test, z_test, C_range=(-2, 3), epsilon_max=1.0, figsize=(5.5, 3.8)):
    """Sliders over C (log scale; ``C_range`` exponents of 10) and epsilon (0 to
    ``epsilon_max``): each move refits a copy of ``estimator`` on (x, z), redraws the tube
    (:func:`show_svr`) and prints :func:`describe_svr` with the error on (x_test, z_test).
    Returns the ``ipywidgets.interactive``."""
    if not epsilon_max > 0:
        raise ValueError(f"epsilon_max must be positive; got {epsilon_max!r}.")
    X_test = np.asarray(x_test, dtype=np.float64).reshape(-1, 1)
    epsilon = ipywidgets.FloatSlider(value=min(estimator.epsilon, epsilon_max), min=0.0, max=epsilon_max,
                                     step=epsilon_max / 20, description="epsilon", continuous_update=False,
                                     readout_format=".3g")

    def redraw(C, epsilon):
        fig, ax = plt.subplots(figsize=figsize)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model, _ = show_svr(estimator, x, z, ax=ax, C=C, epsilon=epsilon)
        display(fig)
        plt.close(fig)
        print(describe_svr(model, np.reshape(x, (-1, 1)), z, X_test, z_test))
        if any(issubclass(w.category, ConvergenceWarning) for w in caught):
            print(f"note: stopped at max_iter={model.max_iter} before reaching tol={model.tol:.3g}.")

    return ipywidgets.interactive(redraw, C=_log_slider("C", C_range, estimator.C), epsilon=epsilon)
