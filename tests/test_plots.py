"""The plotting functions draw what they are given, on the Axes they are given."""

import copy

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PathCollection

from svmlab import datasets, plots
from svmlab.trace import Trace


def make_trace(n=20, rate=0.5, zero_at_end=False):
    epoch = np.arange(1, n + 1, dtype=float)
    gap = 10.0 * rate**epoch
    if zero_at_end:
        gap[-3:] = 0.0
    primal = 5.0 + gap / 2
    empty = np.zeros((0, 0))
    return Trace("made up", epoch=epoch, primal=primal, dual=primal - gap, gap=gap, kkt=gap * 3,
                 n_active=np.linspace(100, 10, n), dw_norm=gap / 7, time=epoch * 1e-3,
                 snapshot_epoch=np.zeros(0), snapshot_alpha=empty, snapshot_coef=empty,
                 snapshot_intercept=np.zeros(0))


@pytest.fixture(autouse=True)
def _close_figures_and_guard_rcparams():
    before = copy.deepcopy(dict(matplotlib.rcParams))
    yield
    after = dict(matplotlib.rcParams)
    plt.close("all")
    assert after == before, "a plotting function changed matplotlib.rcParams"


@pytest.fixture
def ax():
    return plt.figure().add_subplot()


@pytest.fixture
def toy():
    return datasets.make_toy(200, random_state=0)


def linear(X):
    return X @ np.array([1.0, 1.0]) - 2.0


def scatter_sizes(ax):
    """(offsets, sizes) of every point drawn by scatter on ax (ring overlays excluded)."""
    filled = [c for c in ax.collections
              if isinstance(c, PathCollection) and len(c.get_facecolors())]
    offsets = np.concatenate([c.get_offsets() for c in filled])
    sizes = np.concatenate([np.broadcast_to(c.get_sizes(), (len(c.get_offsets()),))
                            for c in filled])
    return np.asarray(offsets), sizes


# ---------------------------------------------------------------------------- decision

def test_decision_function_returns_the_given_axes_with_three_levels(ax, toy):
    X, y = toy
    out = plots.plot_decision_function(linear, X, y, ax=ax, title="toy")
    assert out is ax
    lines = [c for c in ax.collections if hasattr(c, "levels") and not c.filled]
    filled = [c for c in ax.collections if hasattr(c, "levels") and c.filled]
    assert len(lines) == 1 and len(filled) == 1
    np.testing.assert_array_equal(lines[0].levels, [-1.0, 0.0, 1.0])
    dashes = [pattern for _, pattern in lines[0].get_linestyles()]
    assert dashes[1] is None and dashes[0] is not None and dashes[2] is not None  # - - -- - -
    assert filled[0].levels.min() < 0 < filled[0].levels.max()
    assert np.isclose(filled[0].levels.min(), -filled[0].levels.max())  # centred at 0
    assert ax.get_title() == "toy"
    assert ax.get_legend() is not None


def test_decision_function_accepts_an_estimator_and_covers_the_data(ax, toy):
    X, y = toy

    class Model:
        def decision_function(self, Z):
            return linear(Z)

    plots.plot_decision_function(Model(), X, y, ax=ax, grid=30)
    x0, x1 = ax.get_xlim()
    assert x0 < X[:, 0].min() and x1 > X[:, 0].max()
    offsets, _ = scatter_sizes(ax)
    assert len(offsets) == len(X)


def test_decision_function_new_figure_when_no_axes(toy):
    X, y = toy
    ax = plots.plot_decision_function(linear, X, y, grid=20)
    assert isinstance(ax, matplotlib.axes.Axes)


def test_decision_function_rejects_non_callable(toy):
    X, y = toy
    with pytest.raises(ValueError):
        plots.plot_decision_function(42, X, y)


def test_decision_function_with_alpha_uses_the_support_vector_helper(ax, toy):
    X, y = toy
    alpha = np.clip(1.0 - y * linear(X), 0.0, 1.0)
    plots.plot_decision_function(linear, X, y, ax=ax, alpha=alpha, upper=1.0, grid=30)
    ref = plt.figure().add_subplot()
    plots.plot_support_vectors(X, y, alpha, upper=1.0, ax=ref)
    a, b = scatter_sizes(ax), scatter_sizes(ref)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


# ---------------------------------------------------------------------------- support vectors

def test_support_vector_sizes_grow_with_alpha(ax, toy):
    X, y = toy
    alpha = np.linspace(0.0, 2.0, len(y))
    out = plots.plot_support_vectors(X, y, alpha, ax=ax)
    assert out is ax
    offsets, sizes = scatter_sizes(ax)
    # match each drawn point back to its row
    order = [int(np.flatnonzero((X == p).all(axis=1))[0]) for p in offsets]
    by_row = np.empty(len(X))
    by_row[order] = sizes
    assert np.all(np.diff(by_row) > 0)
    assert by_row[0] < by_row[-1] / 5  # alpha = 0 is a small dot


def test_support_vectors_marks_bounded_and_free(ax):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    alpha = np.array([0.0, 0.5, 1.0, 1.0, 0.2])
    plots.plot_support_vectors(X, y, alpha, upper=1.0, ax=ax)
    rings = [c for c in ax.collections if not len(c.get_facecolors())]
    assert len(rings) == 2  # free, bounded
    free, bounded = (np.asarray(c.get_offsets()) for c in rings)
    np.testing.assert_array_equal(free[:, 0], [1.0, 4.0])
    np.testing.assert_array_equal(bounded[:, 0], [2.0, 3.0])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("free" in t for t in labels) and any("bounded" in t for t in labels)


def test_support_vectors_per_sample_upper_and_infinite_upper(ax):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0])
    alpha = np.array([2.0, 2.0, 0.5])
    plots.plot_support_vectors(X, y, alpha, upper=[2.0, 4.0, 0.5], ax=ax)
    rings = [c for c in ax.collections if not len(c.get_facecolors())]
    assert [len(c.get_offsets()) for c in rings] == [1, 2]
    other = plt.figure().add_subplot()
    plots.plot_support_vectors(X, y, alpha, upper=np.inf, ax=other)  # squared hinge
    rings = [c for c in other.collections if not len(c.get_facecolors())]
    assert [len(c.get_offsets()) for c in rings] == [3, 0]


def test_support_vectors_rejects_wrong_shapes():
    with pytest.raises(ValueError):
        plots.plot_support_vectors(np.zeros((4, 3)), np.ones(4), np.ones(4))
    with pytest.raises(ValueError):
        plots.plot_support_vectors(np.zeros((4, 2)), np.ones(4), np.ones(3))


# ---------------------------------------------------------------------------- convergence

def test_convergence_gap_log_scale_and_words(ax):
    trace = make_trace(zero_at_end=True)
    out = plots.plot_convergence(trace, ax=ax)
    assert out is ax
    assert ax.get_yscale() == "log"
    assert ax.get_xlabel() == "epoch (passes over the data)"
    assert "duality gap" in ax.get_ylabel()
    (line,) = ax.get_lines()
    assert len(line.get_ydata()) == 17  # the three zeros are left out of the log plot
    assert (line.get_ydata() > 0).all()


def test_convergence_objective_draws_primal_and_dual_in_one_colour(ax):
    traces = {"DCD": make_trace(), "SDCA": make_trace(rate=0.8)}
    plots.plot_convergence(traces, field="objective", ax=ax)
    lines = ax.get_lines()
    assert len(lines) == 4  # two a trace
    assert ax.get_yscale() == "linear"
    for primal, dual in (lines[0:2], lines[2:4]):
        assert primal.get_color() == dual.get_color()
        assert primal.get_linestyle() == "-" and dual.get_linestyle() == "--"
    assert lines[0].get_color() != lines[2].get_color()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("DCD") and labels[2].startswith("SDCA")


def test_convergence_list_labels_time_axis_and_linear_fields(ax):
    traces = [make_trace(), make_trace(rate=0.9)]
    plots.plot_convergence(traces, field="n_active", x="time", ax=ax, labels=["a", "b"])
    assert len(ax.get_lines()) == 2
    assert ax.get_yscale() == "linear"
    assert ax.get_xlabel() == "time (s)"
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), traces[0].time)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]


def test_convergence_logy_false_and_other_log_fields(ax):
    plots.plot_convergence(make_trace(), field="kkt", ax=ax, logy=False)
    assert ax.get_yscale() == "linear"
    other = plots.plot_convergence(make_trace(), field="dw_norm")
    assert other.get_yscale() == "log"


def test_convergence_errors():
    with pytest.raises(ValueError):
        plots.plot_convergence(None)
    with pytest.raises(ValueError):
        plots.plot_convergence(make_trace(), field="no_such_field")
    with pytest.raises(ValueError):
        plots.plot_convergence([make_trace()], labels=["a", "b"])


# ---------------------------------------------------------------------------- losses

def test_losses(ax):
    out = plots.plot_losses(ax=ax)
    assert out is ax
    lines = {line.get_label().split(":")[0]: line for line in ax.get_lines()}
    assert {"0-1 loss", "hinge", "squared hinge"} <= set(lines)
    m = lines["hinge"].get_xdata()
    np.testing.assert_allclose(lines["hinge"].get_ydata(), np.maximum(0, 1 - m))
    np.testing.assert_allclose(lines["squared hinge"].get_ydata(), np.maximum(0, 1 - m) ** 2)
    np.testing.assert_array_equal(lines["0-1 loss"].get_ydata(), (m <= 0).astype(float))
    # both SVM losses bound the 0-1 loss from above
    assert np.all(lines["hinge"].get_ydata() >= lines["0-1 loss"].get_ydata())
    assert np.all(lines["squared hinge"].get_ydata() >= lines["0-1 loss"].get_ydata())
    assert "margin" in ax.get_xlabel()


def test_losses_custom_margins_and_new_figure():
    ax = plots.plot_losses(margins=[1.5, -1.0, 0.0, 0.5])
    hinge = [line for line in ax.get_lines() if line.get_label().startswith("hinge")][0]
    np.testing.assert_array_equal(hinge.get_xdata(), [-1.0, 0.0, 0.5, 1.5])


def test_importing_svmlab_does_not_import_matplotlib():
    import subprocess
    import sys

    code = "import sys, svmlab, svmlab.datasets; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_confusion_matrix_counts_pairs():
    fig, ax = plt.subplots()
    y_true = np.array([0, 0, 1, 2, 2, 2])
    y_pred = np.array([0, 1, 1, 2, 2, 0])
    assert plots.plot_confusion_matrix(y_true, y_pred, ax=ax) is ax
    image = ax.images[0].get_array()
    np.testing.assert_array_equal(image, [[1, 1, 0], [0, 1, 0], [1, 0, 2]])
    assert sorted(t.get_text() for t in ax.texts) == ["1", "1", "1", "1", "2"]  # zeros left blank


def test_plot_digit_grid_tiles_every_image_with_its_value(ax):
    rng = np.random.default_rng(0)
    images = rng.uniform(0.0, 1.0, (5, 12))
    values = np.array([0.5, -1.25, 2.0, -0.1, 0.3])
    assert plots.plot_digit_grid(images, values, shape=(3, 4), columns=2, ax=ax) is ax
    (shown,) = ax.get_images()
    mosaic = np.ma.filled(shown.get_array(), np.nan)
    assert mosaic.shape == (3 * 4 + 1, 2 * 5 + 1)  # 3 rows of 2 tiles, one blank pixel around each
    np.testing.assert_array_equal(mosaic[1:4, 6:10], images[1].reshape(3, 4))  # second tile, first row
    np.testing.assert_array_equal(mosaic[9:12, 1:5], images[4].reshape(3, 4))  # fifth tile, third row
    assert np.isnan(mosaic[9:12, 6:10]).all()  # no sixth image
    assert [t.get_text() for t in ax.texts] == ["+0.50", "-1.25", "+2.00", "-0.10", "+0.30"]
    assert ax.texts[0].get_color() != ax.texts[1].get_color()


def test_plot_digit_grid_refuses_mismatched_input(ax):
    with pytest.raises(ValueError, match="shape"):
        plots.plot_digit_grid(np.zeros((2, 10)), [1.0, 2.0], shape=(3, 4), ax=ax)
    with pytest.raises(ValueError, match="2 images for 3 values"):
        plots.plot_digit_grid(np.zeros((2, 12)), [1.0, 2.0, 3.0], shape=(3, 4), ax=ax)



def test_plot_stopping_draws_the_positive_values_and_a_line_at_epsilon(ax):
    epochs = np.arange(6.0)
    values = np.array([1.0, 0.1, 0.0, 1e-3, 1e-4, 1e-5])  # an exact zero cannot go on a log axis
    assert plots.plot_stopping(epochs, values, 2e-3, "M - m", ax=ax) is ax
    curve, line = ax.get_lines()
    assert np.array_equal(curve.get_xdata(), [0, 1, 3, 4, 5])
    assert np.array_equal(curve.get_ydata(), [1.0, 0.1, 1e-3, 1e-4, 1e-5])
    assert np.allclose(line.get_ydata(), 2e-3)
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "M - m"
    assert "epsilon = 0.002" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert ax.get_xlabel() == "epoch (passes over the data)"
    plots.plot_stopping([1, 2], [1.0, 0.5], 0.1, "gap", ax=plt.figure().gca(), unit="pair update")
    assert plt.gca().get_xlabel() == "pair updates (SMO iterations)"


def test_plot_stopping_refuses_bad_input(ax):
    with pytest.raises(ValueError, match="one length"):
        plots.plot_stopping([1, 2, 3], [1.0, 0.5], 0.1, "gap", ax=ax)
    with pytest.raises(ValueError, match="tol must be"):
        plots.plot_stopping([1, 2], [1.0, 0.5], 0.0, "gap", ax=ax)
