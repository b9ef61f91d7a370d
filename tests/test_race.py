"""Chapter 10's race: plots.relative_gap, plots.plot_solver_race, widgets.show_race and race_explorer."""

import dataclasses
import warnings

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

from svmlab import ConvergenceWarning, LinearSVM, SVMProblem, datasets, plots, widgets


@pytest.fixture(scope="module")
def runs():
    """Real traces on a small problem: DCD (with a dual) and Pegasos (without), and P*."""
    X, y = datasets.make_random(n_samples=150, n_features=5, random_state=2)
    common = dict(C=0.5, fit_intercept=False, trace=True, random_state=0, tol=1e-12, max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the budget of 30 epochs stops them on purpose
        traces = {"DCD": LinearSVM(solver="dcd", **common).fit(X, y).trace_,
                  "Pegasos": LinearSVM(solver="pegasos", **common).fit(X, y).trace_}
    best = LinearSVM(solver="dcd", C=0.5, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(X, y)
    return traces, SVMProblem(X, y, C=0.5).primal(best.coef_)


def test_relative_gap_is_the_certified_gap_where_there_is_a_dual(runs):
    traces, p_star = runs
    t = traces["DCD"]
    certified, values = plots.relative_gap(t, p_star)
    assert certified
    np.testing.assert_allclose(values, (t.primal - t.dual) / t.primal)
    # eq. 10.1: the certificate bounds the true relative suboptimality from above
    assert np.all(values >= (t.primal - p_star) / t.primal - 1e-12)


def test_relative_gap_without_a_dual_needs_and_uses_p_star(runs):
    traces, p_star = runs
    t = traces["Pegasos"]
    certified, values = plots.relative_gap(t, p_star)
    assert not certified
    np.testing.assert_allclose(values, (t.primal - p_star) / p_star)
    assert np.all(values >= -1e-9)  # P* is the optimum
    with pytest.raises(ValueError, match="p_star"):
        plots.relative_gap(t)


def test_plot_solver_race_draws_one_line_per_solver_dashed_without_dual(runs):
    traces, p_star = runs
    fig, ax = plt.subplots()
    assert plots.plot_solver_race(traces, p_star, x="epoch", ax=ax) is ax
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"DCD", "Pegasos"}
    assert lines["Pegasos"].get_linestyle() == "--" and lines["DCD"].get_linestyle() == "-"
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    np.testing.assert_allclose(lines["DCD"].get_xdata(), traces["DCD"].epoch[traces["DCD"].epoch > 0])
    assert np.all(lines["DCD"].get_ydata() >= 1e-12)


def test_show_race_draws_time_and_epochs(runs):
    traces, p_star = runs
    left, right = widgets.show_race(traces, p_star, title="a race")
    assert left.get_xlabel().startswith("time") and right.get_xlabel().startswith("epoch")
    assert len(left.get_lines()) == len(right.get_lines()) == 2
    assert right.get_legend() is not None and left.get_legend() is None


def test_race_explorer_reuses_stored_runs_and_keeps_new_ones(runs):
    traces, p_star = runs
    asked = []

    def fit(problem, C):
        asked.append((problem, C))
        return {k: dataclasses.replace(t) for k, t in traces.items()}, p_star

    stored = {("small", 0.5): (traces, p_star)}
    explorer = widgets.race_explorer(stored, fit, ["small"], Cs=[0.5, 2.0], C=0.5)
    assert isinstance(explorer, ipywidgets.interactive)
    assert asked == []  # the stored pair is drawn without running anything
    explorer.children[1].value = 2.0
    assert asked == [("small", 2.0)] and ("small", 2.0) in stored
    explorer.children[1].value = 0.5
    explorer.children[1].value = 2.0
    assert asked == [("small", 2.0)]  # run once, then reused
    with pytest.raises(ValueError, match="not one of"):
        widgets.race_explorer(stored, fit, ["small"], Cs=[0.5], C=3.0)
