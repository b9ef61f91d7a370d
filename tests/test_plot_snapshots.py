"""The snapshot plots (the frames of chapters 1-2's animations) draw the stored states they are given."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from svmlab import LinearSVM, datasets, plots


@pytest.fixture(scope="module")
def run():
    X, y = datasets.make_toy()
    X, y = X[:200], y[:200]
    model = LinearSVM(C=1.0, solver="dual_gradient", tol=1e-3, max_iter=50_000, trace=True).fit(X, y)
    return X, y, model


def teardown_function():
    plt.close("all")


def test_snapshot_draws_the_stored_boundary(run):
    X, y, model = run
    trace = model.trace_
    k = len(trace.snapshot_epoch) - 1
    ax = plots.plot_snapshot(trace, k, X, y, upper=1.0)
    assert ax.get_title() == f"epoch {trace.snapshot_epoch[k]}"
    w, b = trace.snapshot_coef[k], trace.snapshot_intercept[k]
    vertices = np.vstack([p.vertices for c in ax.collections if hasattr(c, "levels") for p in c.get_paths()])
    f = vertices @ w + b  # every drawn level-line vertex lies on f = -1, 0 or +1
    assert np.all(np.min(np.abs(f[:, None] - np.array([-1.0, 0.0, 1.0])), axis=1) < 1e-6)
    assert len(f) > 0


def test_snapshot_without_a_line_in_view_still_draws_the_points(run):
    X, y, model = run
    ax = plots.plot_snapshot(model.trace_, 0, X, y)  # w = 0 at epoch 0: f = 0 everywhere
    assert not any(hasattr(c, "levels") for c in ax.collections)
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
    assert len(offsets) == len(X)


def test_weight_path_follows_the_snapshots_and_goes_log_when_positive(run):
    _, _, model = run
    trace = model.trace_
    ax = plots.plot_weight_path(trace, 5, target=model.coef_)
    drawn = ax.lines[0].get_xydata()
    expected = trace.snapshot_coef[1:6, :2]  # snapshot 0 (w = 0) cannot be drawn on log axes
    np.testing.assert_allclose(drawn, expected)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[-1].get_xydata()[0], model.coef_.ravel()[:2])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("$w[1]$", "$w[2]$")  # coordinates, not the iterates w_1, w_2


def test_margins_alpha_groups_count_every_point():
    m = np.array([2.0, 1.0, 0.5, -1.0])
    alpha = np.array([0.0, 0.3, 1.0, 1.0])
    ax = plots.plot_margins_alpha(m, alpha, 1.0)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [label.split("(")[-1] for label in labels] == ["1)", "1)", "2)"]
    with pytest.raises(ValueError, match="margins"):
        plots.plot_margins_alpha(m[:3], alpha, 1.0)
