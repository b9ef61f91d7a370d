"""Plotting functions for the chapters, in the ``ax=None`` style.

Every function draws on the matplotlib Axes it is given (or on the axes of a new figure when
``ax`` is None) and returns that Axes. None of them calls ``plt.show()``, changes
``matplotlib.rcParams`` or a style, or runs a solver: they draw what they are given. This
module imports matplotlib, so ``import svmlab`` does not; import ``svmlab.plots`` to plot.

Colours: class +1 red, class -1 blue, everywhere (the decision-value colormap agrees: f > 0
red, f < 0 blue).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from . import objective

__all__ = [
    "plot_decision_function",
    "plot_support_vectors",
    "plot_iterate_norms",
    "plot_convergence",
    "plot_losses",
    "plot_confusion_matrix",
    "plot_snapshot",
    "plot_weight_path",
    "plot_margins_alpha",
    "plot_digit_grid",
    "plot_stopping",
    "relative_gap",
    "plot_solver_race",
    "plot_tube",
    "plot_svr_step",
    "plot_svr_curves",
]

_POS_COLOUR = "tab:red"
_NEG_COLOUR = "tab:blue"
_CLASSES = ((1.0, _POS_COLOUR, "class +1"), (-1.0, _NEG_COLOUR, "class -1"))
_DECISION_CMAP = "RdBu_r"  # blue below 0, white at 0, red above

# marker areas (points^2) for alpha = 0 and for the largest alpha
_SIZE_ZERO = 6.0
_SIZE_MAX = 90.0
_SIZE_PLAIN = 12.0  # points drawn without alpha

_AXIS_WORDS = {
    "epoch": "epoch (passes over the data)",
    "active-set epoch": "epoch (passes over the active set)",  # with shrinking (chapter 4)
    "either epoch": "epoch (passes over the data; with shrinking, over the active set)",
    "pair update": "pair updates (SMO iterations)",
    "time": "time (s)",
    "primal": "primal P(w)",
    "dual": "dual D(alpha)",
    "objective": "objective: primal P (solid), dual D (dashed)",
    "gap": "duality gap P - D",
    "kkt": "KKT violation (max |projected gradient|)",
    "n_active": "active variables (after shrinking)",
    "dw_norm": "|w_k - w_(k-1)|, change of w over the epoch",
}
_LOG_FIELDS = frozenset({"gap", "kkt", "dw_norm"})


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


# ----------------------------------------------------------------------------------------
# points, support vectors and decision functions (2-D data)
# ----------------------------------------------------------------------------------------

def _check_points(X, y):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2) for a plane plot, got {X.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels for {X.shape[0]} points")
    return X, y


def _alpha_sizes(alpha):
    """Marker areas growing linearly with alpha: alpha = 0 gives a small dot."""
    alpha = np.asarray(alpha, dtype=float).ravel()
    top = alpha.max() if alpha.size else 0.0
    if not np.isfinite(top) or top <= 0.0:
        return np.full(alpha.shape, _SIZE_ZERO)
    return _SIZE_ZERO + (_SIZE_MAX - _SIZE_ZERO) * np.clip(alpha, 0.0, None) / top


def _scatter_classes(ax, X, y, sizes):
    for label, colour, _ in _CLASSES:
        mask = y == label
        ax.scatter(X[mask, 0], X[mask, 1], s=sizes[mask], c=colour, alpha=0.8,
                   linewidths=0, zorder=2)


def _legend_handle(colour, marker="o", face=None, label=""):
    return Line2D([], [], linestyle="none", marker=marker, markersize=6,
                  markerfacecolor=colour if face is None else face,
                  markeredgecolor=colour, label=label)


def _draw_points(ax, X, y, alpha=None, upper=None):
    """Scatter the classes (sized by alpha when given, marking bounded and free SVs when
    upper is given) and add a small legend; the one helper behind both public functions."""
    handles = [_legend_handle(c, label=name) for _, c, name in _CLASSES]
    if alpha is None:
        _scatter_classes(ax, X, y, np.full(y.shape, _SIZE_PLAIN))
    else:
        alpha = np.asarray(alpha, dtype=float).ravel()
        if alpha.shape != y.shape:
            raise ValueError(f"alpha has {alpha.size} values for {y.size} points")
        sizes = _alpha_sizes(alpha)
        _scatter_classes(ax, X, y, sizes)
        if upper is not None:
            upper = np.broadcast_to(np.asarray(upper, dtype=float), alpha.shape)
            bounded = (alpha > 0) & ((alpha >= upper) | np.isclose(alpha, upper, rtol=1e-8, atol=0))
            free = (alpha > 0) & ~bounded
            ax.scatter(X[free, 0], X[free, 1], s=sizes[free], facecolors="none",
                       edgecolors="black", linewidths=0.9, zorder=3)
            ax.scatter(X[bounded, 0], X[bounded, 1], s=sizes[bounded], marker="s",
                       facecolors="none", edgecolors="dimgray", linewidths=0.5, zorder=3)
            handles += [
                _legend_handle("black", face="none", label="free SV, 0 < alpha < C"),
                _legend_handle("dimgray", marker="s", face="none", label="bounded SV, alpha = C"),
            ]
    ax.legend(handles=handles, fontsize="small", loc="upper left", framealpha=0.8)
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return ax


def plot_support_vectors(X, y, alpha, upper=None, ax=None):
    """The points of a 2-D data set, each drawn with an area that grows with its alpha.

    As Roethel & Brynda's Figure 4: points with alpha = 0 (not support vectors) are small dots, the
    support vectors grow with their dual variable. With ``upper`` (the box bound C, a scalar
    or one value per sample) the bounded support vectors (alpha = C, inside the margin or
    misclassified) get a grey square and the free ones (0 < alpha < C, on the margin) a black
    ring. ``alpha`` is in LIBLINEAR units (``estimator.alpha_``).
    """
    X, y = _check_points(X, y)
    return _draw_points(_axes(ax), X, y, alpha=alpha, upper=upper)


def _decision_callable(decision):
    method = getattr(decision, "decision_function", None)
    if callable(method):
        return method
    if callable(decision):
        return decision
    raise ValueError("decision must be a callable or have a decision_function method")


def _bounding_grid(X, grid, margin=0.1):
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * np.where(hi > lo, hi - lo, 1.0)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid)
    return np.meshgrid(xs, ys)


def plot_decision_function(decision, X, y, ax=None, alpha=None, upper=None, grid=200,
                           title=None, fill=True):
    """The decision value f over the plane, the boundary and the margins, and the data.

    ``decision`` is a callable mapping an (m, 2) array to m decision values, or any object
    with a ``decision_function`` method (a fitted ``LinearSVM`` or ``KernelSVM``). Draws a
    filled contour of f over the data's bounding box plus 10 % (blue f < 0, white f = 0, red
    f > 0), the boundary f = 0 as a solid line, the margins f = -1 and f = +1 as dashed
    lines, and the points coloured by class; with ``alpha`` (and ``upper``) the points are
    drawn as in :func:`plot_support_vectors`. With ``fill=False`` only the lines and the points
    are drawn (small PNGs for the many frames of an animation).
    """
    X, y = _check_points(X, y)
    if int(grid) < 2:
        raise ValueError(f"grid must be at least 2, got {grid}")
    f = _decision_callable(decision)
    ax = _axes(ax)
    xx, yy = _bounding_grid(X, int(grid))
    zz = np.asarray(f(np.column_stack([xx.ravel(), yy.ravel()])), dtype=float).reshape(xx.shape)

    top = float(np.nanmax(np.abs(zz))) if np.isfinite(zz).any() else 0.0
    top = max(top, 1.0)
    if fill:
        ax.contourf(xx, yy, zz, levels=np.linspace(-top, top, 21), cmap=_DECISION_CMAP,
                    alpha=0.55, zorder=0)
    # some level line is in the picture (a constant f, e.g. w = 0, has none)
    if np.nanmin(zz) < 1.0 and np.nanmax(zz) > -1.0 and np.nanmax(zz) > np.nanmin(zz):
        ax.contour(xx, yy, zz, levels=[-1.0, 0.0, 1.0], colors="black",
                   linestyles=["dashed", "solid", "dashed"], linewidths=[1.0, 1.5, 1.0],
                   zorder=1)
    _draw_points(ax, X, y, alpha=alpha, upper=upper)
    ax.set_xlim(xx[0, 0], xx[0, -1])
    ax.set_ylim(yy[0, 0], yy[-1, 0])
    if title is not None:
        ax.set_title(title)
    return ax


# ----------------------------------------------------------------------------------------
# convergence traces
# ----------------------------------------------------------------------------------------

def _labelled_traces(traces, labels):
    if traces is None:
        raise ValueError("no trace to plot (fit the estimator with trace=True)")
    if isinstance(traces, dict):
        pairs = list(traces.items())
    elif hasattr(traces, "epoch"):
        pairs = [(None, traces)]
    else:
        pairs = [(None, t) for t in traces]
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(pairs):
            raise ValueError(f"{len(labels)} labels for {len(pairs)} traces")
        pairs = [(lab, t) for lab, (_, t) in zip(labels, pairs)]
    return pairs


def _trace_values(trace, name):
    try:
        return np.asarray(getattr(trace, name), dtype=float).ravel()
    except AttributeError:
        raise ValueError(f"the trace has no field {name!r}") from None


def _trace_line(ax, xs, ys, log, label=None, **style):
    keep = np.isfinite(xs) & np.isfinite(ys)
    if log:
        keep &= ys > 0
    return ax.plot(xs[keep], ys[keep], label=label, **style)[0]


def _suffix(label, text):
    return text if label is None else f"{label}: {text}"


def _x_words(pairs, x):
    """The x axis label: for ``x="epoch"`` the unit the traces count their steps in
    (``Trace.unit``: SMO's are pair updates, shrinking's passes over the active set), else the
    field's words."""
    if x != "epoch":
        return _AXIS_WORDS.get(x, x)
    units = dict.fromkeys(getattr(trace, "unit", "epoch") for _, trace in pairs)
    if "epoch" in units and "active-set epoch" in units:  # runs with and without shrinking: one phrase
        units = dict.fromkeys("either epoch" if unit in ("epoch", "active-set epoch") else unit for unit in units)
    return "; ".join(_AXIS_WORDS.get(unit, unit) for unit in units)


def plot_convergence(traces, field="gap", x="epoch", ax=None, labels=None, logy=True):
    """One recorded quantity of one or more solver runs against epochs (or time).

    ``traces`` is a trace (``estimator.trace_``, a ``svmlab.trace.Trace``), a list of them,
    or a dict label -> trace; any object with array attributes ``epoch, primal, dual, gap,
    kkt, n_active, dw_norm, time`` works. ``field`` is one of those names, or
    ``"objective"``, which draws the primal value (solid) and the dual value (dashed) in one
    colour a run, so that strong duality shows as the two curves meeting. ``x`` is
    ``"epoch"`` or ``"time"``. With ``logy`` the quantities that go to zero (gap, kkt,
    dw_norm) get a log axis and their non-positive values are left out; the others are drawn
    on a linear axis. ``labels`` overrides the legend labels.
    """
    ax = _axes(ax)
    pairs = _labelled_traces(traces, labels)
    log = bool(logy) and field in _LOG_FIELDS
    for label, trace in pairs:
        xs = _trace_values(trace, x)
        if field == "objective":
            line = _trace_line(ax, xs, _trace_values(trace, "primal"), False,
                               label=_suffix(label, "primal P"))
            _trace_line(ax, xs, _trace_values(trace, "dual"), False,
                        label=_suffix(label, "dual D"), color=line.get_color(),
                        linestyle="dashed")
        else:
            _trace_line(ax, xs, _trace_values(trace, field), log, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(_x_words(pairs, x))
    ax.set_ylabel(_AXIS_WORDS.get(field, field))
    if field == "objective" or any(label is not None for label, _ in pairs):
        ax.legend(fontsize="small")
    return ax


def plot_iterate_norms(traces, radius=None, intercept_scaling=1.0, ax=None, labels=None):
    """The norm of the stored iterates |w| against the epoch, for one or more traces.

    Reads the snapshots of each trace (``snapshot_epoch``, ``snapshot_coef``,
    ``snapshot_intercept``); with a regularized bias the norm is that of the augmented vector
    (coef, intercept / intercept_scaling), the vector the regularizer sees. ``radius`` draws the
    ball |w| = radius as a dashed line (Pegasos' projection: 1/sqrt(lambda) = sqrt(sum_i C_i),
    eq. 7.3). Log scale on |w|. ``traces`` and ``labels`` as in :func:`plot_convergence`.
    """
    ax = _axes(ax)
    pairs = _labelled_traces(traces, labels)
    for label, trace in pairs:
        coef = np.asarray(trace.snapshot_coef, dtype=float).reshape(len(trace.snapshot_epoch), -1)
        bias = np.asarray(trace.snapshot_intercept, dtype=float).ravel() / float(intercept_scaling)
        norms = np.sqrt(np.sum(coef**2, axis=1) + bias**2)
        keep = norms > 0
        ax.plot(np.asarray(trace.snapshot_epoch)[keep], norms[keep], marker=".", label=label)
    if radius is not None:
        ax.axhline(float(radius), color="black", linestyle="dashed", linewidth=1.0,
                   label="radius 1/sqrt(lambda)")
    ax.set_yscale("log")
    ax.set_xlabel(_x_words(pairs, "epoch"))
    ax.set_ylabel("|w| of the iterate")
    if radius is not None or any(label is not None for label, _ in pairs):
        ax.legend(fontsize="small")
    return ax


# ----------------------------------------------------------------------------------------
# losses (chapter 1)
# ----------------------------------------------------------------------------------------

def plot_losses(ax=None, margins=None):
    """The 0-1 loss, the hinge loss and the squared hinge loss against the margin m = y f(x).

    0-1: 1 when m <= 0 (wrong side or on the boundary), else 0; hinge (L1-loss):
    max(0, 1 - m); squared hinge (L2-loss): max(0, 1 - m)^2. Both SVM losses are convex
    upper bounds of the 0-1 loss and vanish for m >= 1. ``margins`` are the values of m to
    draw (default: 601 points on [-2, 3]).
    """
    ax = _axes(ax)
    if margins is None:
        m = np.linspace(-2.0, 3.0, 601)
    else:
        m = np.sort(np.asarray(margins, dtype=float).ravel())
    hinge = np.array([objective.loss(v, objective.HINGE) for v in m])  # the library's definition
    squared = np.array([objective.loss(v, objective.SQUARED_HINGE) for v in m])
    ax.plot(m, np.where(m <= 0.0, 1.0, 0.0), drawstyle="steps-post", color="black",
            label="0-1 loss: 1 if m <= 0")
    ax.plot(m, hinge, label="hinge: max(0, 1 - m)")
    ax.plot(m, squared, label="squared hinge: max(0, 1 - m)$^2$")
    ax.axvline(1.0, color="gray", linewidth=0.7, linestyle="dotted")
    ax.set_xlabel("margin m = y f(x)")
    ax.set_ylabel("loss")
    ax.set_ylim(-0.1, min(float(np.max(squared, initial=1.0)), 4.0) + 0.2)
    ax.legend(fontsize="small")
    return ax


def plot_confusion_matrix(y_true, y_pred, labels=None, ax=None):
    """Counts of (true class, predicted class) as an image with the numbers written in.

    Rows are the true classes, columns the predicted ones, in the order of ``labels`` (default:
    the sorted classes seen in either array); the diagonal holds the correct predictions.
    """
    ax = _axes(ax)
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.unique(np.concatenate([y_true, y_pred])) if labels is None else np.asarray(labels)
    index = {label: k for k, label in enumerate(labels.tolist())}
    counts = np.zeros((len(labels), len(labels)), dtype=int)
    for t, p in zip(y_true.tolist(), y_pred.tolist()):
        counts[index[t], index[p]] += 1
    ax.imshow(counts, cmap="Blues")
    for (i, j), c in np.ndenumerate(counts):
        if c:
            ax.text(j, i, str(c), ha="center", va="center", fontsize="small",
                    color="white" if c > counts.max() / 2 else "black")
    ticks = np.arange(len(labels))
    ax.set_xticks(ticks, [str(v) for v in labels.tolist()])
    ax.set_yticks(ticks, [str(v) for v in labels.tolist()])
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    return ax


# ----------------------------------------------------------------------------------------
# a run's stored states (trace snapshots): the frames of the chapter 1-2 animations
# ----------------------------------------------------------------------------------------

def plot_snapshot(trace, k, X, y, ax=None, upper=None):
    """The linear model stored in snapshot ``k`` of ``trace`` over 2-D data, as
    :func:`plot_decision_function` with ``fill=False``: the boundary, the margins, the points
    (sized by that snapshot's alpha when ``upper``, the box bound C, is given) and the epoch in
    the title. Reads the trace; runs nothing."""
    w = np.asarray(trace.snapshot_coef[k], dtype=float).ravel()
    b = float(trace.snapshot_intercept[k])
    alpha = trace.snapshot_alpha[k] if upper is not None else None
    return plot_decision_function(lambda Z: Z @ w + b, X, y, ax=ax, alpha=alpha, upper=upper, grid=60,
                                  title=f"epoch {trace.snapshot_epoch[k]}", fill=False)


def plot_weight_path(trace, k=None, ax=None, target=None):
    """The path of the weights (coef_[0], coef_[1]) over the snapshots 0..k of ``trace`` (all
    when ``k`` is None), the last one drawn as a large dot, and ``target`` (e.g. the optimal
    w) as a star. Log axes when every drawn weight is positive: an iterate that first
    overshoots by a factor of 100 and then settles stays readable."""
    ax = _axes(ax)
    coef = np.asarray(trace.snapshot_coef, dtype=float)
    k = len(coef) - 1 if k is None else int(k)
    path = coef[: k + 1, :2]
    keep = np.all(np.isfinite(path), axis=1) & np.any(path != 0.0, axis=1)
    ax.plot(path[keep, 0], path[keep, 1], "-", color="gray", linewidth=0.8)
    ax.plot(path[keep, 0], path[keep, 1], ".", color="gray", markersize=4)
    if keep[-1]:
        ax.plot(*path[-1], "o", color="black", markersize=7, label=f"w at epoch {trace.snapshot_epoch[k]}")
    shown = path[keep]
    if target is not None:
        target = np.asarray(target, dtype=float).ravel()[:2]
        ax.plot(*target, "*", color="tab:orange", markersize=12, label="optimal w")
        shown = np.vstack([shown, target])
    if shown.size and np.all(shown > 0):
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("$w[1]$")  # coordinates in brackets: a subscript on w counts epochs (chapter 1)
    ax.set_ylabel("$w[2]$")
    ax.legend(fontsize="small", loc="upper left")
    return ax


def plot_margins_alpha(margins, alpha, upper, ax=None):
    """Complementary slackness as a picture: each sample's margin m_i = y_i f(x_i) against
    its alpha_i in [0, upper], coloured by group (alpha = 0, free, at the bound). At an optimum
    of the hinge dual every point sits on the "L": alpha = 0 right of m = 1, alpha = C left of
    it, anything in between exactly at m = 1."""
    ax = _axes(ax)
    m = np.asarray(margins, dtype=float).ravel()
    alpha = np.asarray(alpha, dtype=float).ravel()
    if m.shape != alpha.shape:
        raise ValueError(f"{m.size} margins for {alpha.size} alphas")
    upper = np.broadcast_to(np.asarray(upper, dtype=float), alpha.shape)
    zero, at_upper = alpha <= 0.0, alpha >= upper
    groups = ((zero, "tab:gray", r"$\alpha_i = 0$"), (~zero & ~at_upper, "black", r"$0 < \alpha_i < C$"),
              (at_upper, "tab:orange", r"$\alpha_i = C$"))
    for mask, colour, name in groups:
        ax.scatter(m[mask], alpha[mask], s=12, c=colour, label=f"{name} ({mask.sum()})")
    ax.axvline(1.0, color="gray", linestyle="dotted")
    ax.set_xlabel(r"margin $m_i = y_i f(x_i)$")
    ax.set_ylabel(r"$\alpha_i$")
    ax.legend(fontsize="small", loc="center right")
    return ax


def plot_digit_grid(images, values, shape=(28, 28), columns=8, ax=None):
    """Images in a grid on one Axes, each with its decision value above it (Roethel & Brynda's
    Figure 7: the misclassified digits). ``images`` holds one flattened image a row (pixels
    row by row, dark = large), ``values`` one number an image (printed with its sign: red
    when f > 0, blue when f < 0). The images are tiled into one array with a blank pixel
    between tiles and drawn with ``imshow``."""
    ax = _axes(ax)
    images = np.asarray(images, dtype=float)
    values = np.asarray(values, dtype=float).ravel()
    height, width = shape
    if images.ndim != 2 or images.shape[1] != height * width:
        raise ValueError(f"images must be an array of shape (k, {height * width}) for shape={shape}; "
                         f"got {images.shape}")
    if len(values) != len(images):
        raise ValueError(f"{len(images)} images for {len(values)} values")
    k = len(images)
    columns = max(1, min(columns, k))
    rows = max(1, -(-k // columns))
    pad = 1
    mosaic = np.full((rows * (height + pad) + pad, columns * (width + pad) + pad), np.nan)
    for n, (image, value) in enumerate(zip(images, values)):
        top, left = pad + (n // columns) * (height + pad), pad + (n % columns) * (width + pad)
        mosaic[top:top + height, left:left + width] = image.reshape(shape)
        ax.text(left + width / 2, top + 0.5, f"{value:+.2f}", ha="center", va="top", fontsize="small",
                color=_POS_COLOUR if value > 0 else _NEG_COLOUR)
    ax.imshow(mosaic, cmap="gray_r", interpolation="nearest")
    ax.set_axis_off()
    return ax


def plot_stopping(epochs, values, tol, label, ax=None, unit="epoch"):
    """A solver's stopping quantity against the epoch, on a log axis, with a dashed line at
    epsilon = ``tol``: the run may stop at the first epoch whose value is below the line.

    ``epochs`` and ``values`` are read off a trace (the relative gap, the KKT violation,
    |w_k - w_(k-1)|, or M - m at the recorded iterates); ``label`` names the quantity on the y
    axis, ``unit`` what the x axis counts (the trace's ``unit``: SMO's counts pair updates).
    Non-positive values (an exact zero) are left out of the log axis.
    """
    ax = _axes(ax)
    epochs = np.asarray(epochs, dtype=float)
    values = np.asarray(values, dtype=float)
    if epochs.shape != values.shape or epochs.ndim != 1:
        raise ValueError(f"epochs and values must be 1-D arrays of one length; got {epochs.shape} and {values.shape}")
    if not tol > 0:
        raise ValueError(f"tol must be a number > 0 (it is drawn on a log axis); got {tol!r}")
    shown = values > 0
    ax.plot(epochs[shown], values[shown], marker=".", color="tab:purple", label=label)
    ax.axhline(tol, color="black", linestyle="dashed", linewidth=1, label=f"epsilon = {tol:.3g}")
    ax.set_yscale("log")
    ax.set_xlabel(_AXIS_WORDS.get(unit, unit))
    ax.set_ylabel(label)
    ax.legend(fontsize="x-small", loc="upper right", framealpha=0.8)
    return ax


# ----------------------------------------------------------------------------------------
# the race of every solver on one problem (chapter 10)
# ----------------------------------------------------------------------------------------

def relative_gap(trace, p_star=None):
    """(certified, values): the relative distance to the optimum a trace certifies, per record.

    Where the trace has a dual value, the certified duality gap (P - D) / |P|, an upper bound
    on (P - P*) / |P| by weak duality; where it has none (Pegasos), (P - P*) / |P*| with the
    given optimum ``p_star`` (then ``certified`` is False). Raises ValueError when a trace
    without a dual comes without ``p_star``.
    """
    primal = _trace_values(trace, "primal")
    dual = _trace_values(trace, "dual")
    if len(dual) and np.all(np.isfinite(dual)):
        return True, (primal - dual) / np.abs(primal)
    if p_star is None:
        raise ValueError(f"the {trace.solver!r} trace has no dual value: give p_star, the optimal primal value.")
    return False, (primal - p_star) / abs(p_star)


def plot_solver_race(traces, p_star=None, x="epoch", ax=None, floor=1e-12, legend=True):
    """The relative gap of several solvers on one problem (``traces``: a dict label -> trace),
    against ``x`` ("epoch" or "time"), log-log, on one Axes.

    Each curve is :func:`relative_gap`: solid where it is the certified duality gap, dashed
    where it is (P - P*) / |P*| for a solver without a dual. Values below ``floor`` are drawn
    at ``floor``. Epochs start at 1 and times at the first record, so both log axes show
    every record after the start. With ``legend`` the legend sits outside, right of the Axes.
    """
    ax = _axes(ax)
    pairs = _labelled_traces(traces, None)
    for label, trace in pairs:
        certified, values = relative_gap(trace, p_star)
        xs = _trace_values(trace, x)
        keep = xs > 0
        style = {} if certified else {"linestyle": "dashed"}
        _trace_line(ax, xs[keep], np.maximum(values[keep], floor), True, label=label, **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(_x_words(pairs, x))
    ax.set_ylabel("relative gap (dashed: (P - P*) / P*)")
    if legend:
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def plot_tube(x, z, grid, f_grid, epsilon, support=None, ax=None):
    """A 1-D regression fit with its epsilon-tube: the samples (x_i, z_i), the fitted curve
    f on ``grid``, the band f +- epsilon shaded, and the support vectors (indices
    ``support``, beta_i != 0) ringed. Samples strictly inside the tube are never support
    vectors (chapter 9's KKT conditions)."""
    ax = _axes(ax)
    x, z = np.ravel(x), np.ravel(z)
    grid, f_grid = np.ravel(grid), np.ravel(f_grid)
    if x.shape != z.shape or grid.shape != f_grid.shape:
        raise ValueError("x and z, and grid and f_grid, must have the same lengths.")
    ax.fill_between(grid, f_grid - epsilon, f_grid + epsilon, color="tab:green", alpha=0.18,
                    label=f"tube, epsilon = {epsilon:.3g}")
    ax.plot(grid, f_grid, color="tab:green", lw=1.8, label="fit f(x)")
    ax.scatter(x, z, s=12, color="0.35", zorder=3, label="samples")
    if support is not None and len(support):
        ax.scatter(x[support], z[support], s=60, facecolors="none", edgecolors="tab:red", lw=1.2,
                   zorder=4, label=f"support vectors ({len(support)})")
    ax.set_xlabel("x")
    ax.set_ylabel("z")
    ax.legend(loc="best", fontsize="x-small", framealpha=0.8)
    return ax


def plot_svr_step(G, H, beta, epsilon, upper, ax=None, points=801):
    """The one-variable subproblem of DCD for SVR as a function of the new value t of beta_i:

        phi(t) = G (t - beta) + 1/2 H (t - beta)^2 + epsilon |t|,   -upper <= t <= upper,

    with G the smooth gradient and H = Q_ii + D_ii (chapter 9, eq. 9.7): a quadratic with a
    kink at t = 0. Draws phi, the kink, the box and the grid's minimiser."""
    ax = _axes(ax)
    lim = upper if np.isfinite(upper) else abs(beta) + 2.0 * (abs(G) + epsilon) / max(H, 1e-12) + 1.0
    t = np.linspace(-lim, lim, points)
    phi = G * (t - beta) + 0.5 * H * (t - beta) ** 2 + epsilon * np.abs(t)
    k = int(np.argmin(phi))
    ax.plot(t, phi, color="tab:purple", lw=1.8, label="phi(t)")
    ax.axvline(0.0, color="0.6", lw=0.8, ls=":", label="kink at t = 0")
    ax.axvline(beta, color="0.3", lw=0.8, ls="--", label="current beta_i")
    ax.plot(t[k], phi[k], "o", color="tab:red", label=f"minimum t = {t[k]:.3g}")
    ax.set_xlabel("t (new beta_i)")
    ax.set_ylabel("phi(t)")
    ax.legend(loc="upper center", fontsize="x-small")
    return ax


def plot_svr_curves(values, n_support, errors, ax=None, xlabel="epsilon", logx=False):
    """Curves over a swept parameter: the number of support vectors (left axis) and the
    errors (right axis; ``errors`` maps a label, e.g. "train", to one value per entry of
    ``values``). Returns the left Axes."""
    ax = _axes(ax)
    values = np.ravel(values)
    ax.plot(values, n_support, "o-", color="tab:red", ms=3, label="support vectors")
    ax.set_ylabel("support vectors", color="tab:red")
    right = ax.twinx()
    for (label, err), style in zip(errors.items(), ("s-", "^-", "d-")):
        right.plot(values, err, style, ms=3, label=f"{label} error")
    right.set_ylabel("mean absolute error")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    lines = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    ax.legend(lines, [line.get_label() for line in lines], fontsize="x-small", loc="upper center")
    return ax
