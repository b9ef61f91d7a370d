"""Chapter 9's plots (plot_tube, plot_svr_step, plot_svr_curves) and widgets (show_svr,
describe_svr, svr_explorer): they draw what they are given, and the numbers they print are
SVRProblem's."""

import re

import ipywidgets
import numpy as np
import pytest

import svmlab
from svmlab import datasets, plots, widgets


@pytest.fixture(scope="module")
def line():
    x, z = datasets.make_noisy_line(40, random_state=3)
    x_test, z_test = datasets.make_noisy_line(50, random_state=4)
    return x, z, x_test, z_test


def numbers(text):
    return {k: float(v.split()[0]) for k, v in re.findall(r"^([^=\n]+?) = (.+)$", text, flags=re.M)}


def test_plot_tube_band_is_two_epsilon_wide_and_rings_the_support():
    x, z = np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.1, 1.5, 2.0, 2.9])
    grid = np.linspace(0, 3, 7)
    ax = plots.plot_tube(x, z, grid, 0.9 * grid, 0.25, support=np.array([1, 3]))
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() == pytest.approx(0.9 * 3 + 0.25) and band[:, 1].min() == pytest.approx(-0.25)
    rings = ax.collections[-1].get_offsets()
    assert np.allclose(rings, [[1.0, 1.5], [3.0, 2.9]])
    with pytest.raises(ValueError, match="same lengths"):
        plots.plot_tube(x, z[:3], grid, grid, 0.1)


@pytest.mark.parametrize("G, beta, upper", [(-1.5, 0.0, 1.0), (0.2, 0.2, 1.0), (1.4, 0.2, 1.0), (-9.0, 0.0, 1.0),
                                            (0.3, -0.5, np.inf)])
def test_plot_svr_step_marks_the_minimum_of_the_kinked_quadratic(G, beta, upper):
    H, eps = 2.0, 0.5
    ax = plots.plot_svr_step(G, H, beta, eps, upper)
    t, phi = ax.lines[0].get_data()
    assert np.allclose(phi, G * (t - beta) + 0.5 * H * (t - beta) ** 2 + eps * np.abs(t))
    if np.isfinite(upper):
        assert t.min() == -upper and t.max() == upper
    (tm,), (pm,) = ax.lines[-1].get_data()
    assert pm == phi.min()
    # the marked point is within one grid step of the exact minimiser (the reference's rule, clipped)
    exact = beta - (G + eps) / H if G + eps < H * beta else (beta - (G - eps) / H if G - eps > H * beta else 0.0)
    assert abs(tm - np.clip(exact, -upper, upper)) <= t[1] - t[0]


def test_plot_svr_curves_draws_the_given_values():
    values = np.array([0.1, 0.2, 0.3])
    ax = plots.plot_svr_curves(values, [9, 5, 2], {"train": [0.3, 0.2, 0.25]})
    assert np.array_equal(ax.lines[0].get_ydata(), [9, 5, 2])
    right = [a for a in ax.figure.axes if a is not ax][0]
    assert np.allclose(right.lines[0].get_ydata(), [0.3, 0.2, 0.25])


def test_show_svr_and_describe_svr_agree_with_the_kkt_conditions(line):
    x, z, x_test, z_test = line
    est = svmlab.LinearSVR(C=1.0, epsilon=0.2, tol=1e-8, max_iter=20000, random_state=0)
    model, ax = widgets.show_svr(est, x, z, epsilon=0.4)
    assert model.epsilon == 0.4 and est.epsilon == 0.2 and not hasattr(est, "coef_")
    residual = np.abs(z - model.predict(x[:, None]))
    assert np.all(residual[model.support_] >= 0.4 - 1e-6)  # no support vector strictly inside the tube
    assert np.all(np.isin(np.flatnonzero(residual > 0.4 + 1e-6), model.support_))
    values = numbers(widgets.describe_svr(model, x[:, None], z, x_test[:, None], z_test))
    assert values["support vectors"] == len(model.support_)
    assert values["train error (mean |z - f|)"] == pytest.approx(residual.mean(), abs=1e-4)
    assert 0 <= values["gap P - D"] < 1e-6


def test_describe_svr_counts_outside_the_tube_only_the_points_at_the_bound():
    """(9.6): a point outside the tube has |beta_i| = C. Chapter 9's line at epsilon = 0.5 has a point on
    the edge whose residual exceeds epsilon by 4e-10 (the fit's tolerance), with |beta_i| < C: on, not outside."""
    x, z = datasets.make_noisy_line()
    model = svmlab.LinearSVR(C=1.0, epsilon=0.5, tol=1e-8, max_iter=20000, random_state=0).fit(x[:, None], z)
    residual = np.abs(z - model.predict(x[:, None]))
    outside = int(re.search(r"outside the tube: (\d+)", widgets.describe_svr(model, x[:, None], z)).group(1))
    at_bound = np.count_nonzero(np.abs(model.alpha_) >= model.C * (1 - 1e-9))
    assert outside == at_bound > 0
    assert np.count_nonzero(residual > model.epsilon) > outside  # the edge point, beyond epsilon by rounding


def test_svr_explorer_epsilon_slider_refits_with_fewer_support_vectors(line, capsys):
    x, z, x_test, z_test = line
    est = svmlab.LinearSVR(C=1.0, epsilon=0.1, tol=1e-8, max_iter=20000, random_state=0)
    box = widgets.svr_explorer(est, x, z, x_test, z_test, C_range=(-1, 1), epsilon_max=0.8)
    C, eps = box.children[0], box.children[1]
    assert isinstance(C, ipywidgets.FloatLogSlider) and C.description == "C"
    assert isinstance(eps, ipywidgets.FloatSlider) and eps.description == "epsilon" and eps.max == 0.8
    capsys.readouterr()
    box.f(C=1.0, epsilon=0.0)
    narrow = numbers(capsys.readouterr().out)
    box.f(C=1.0, epsilon=0.6)
    wide = numbers(capsys.readouterr().out)
    assert wide["support vectors"] < narrow["support vectors"]
    assert est.epsilon == 0.1 and not hasattr(est, "coef_")
    with pytest.raises(ValueError, match="epsilon_max"):
        widgets.svr_explorer(est, x, z, x_test, z_test, epsilon_max=0.0)


@pytest.mark.parametrize("make, lo, hi", [(datasets.make_noisy_line, -2.0, 2.0),
                                          (datasets.make_noisy_sine, 0.0, 2 * np.pi)])
def test_noisy_1d_data_are_repeatable_and_in_range(make, lo, hi):
    x, z = make(500, random_state=7)
    again = make(500, random_state=7)
    assert x.shape == z.shape == (500,) and np.array_equal(x, again[0]) and np.array_equal(z, again[1])
    assert lo <= x.min() and x.max() <= hi
    clean = 0.8 * x + 0.3 if make is datasets.make_noisy_line else np.sin(x)
    assert 0.5 * 0.15 < np.std(z - clean) < 2 * 0.25  # noise of the stated size, not none
    with pytest.raises(ValueError):
        make(1)
