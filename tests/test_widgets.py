"""svmlab.widgets: the numbers it prints are the book's, and it never touches the caller's estimator."""

import re
import subprocess
import sys
import warnings

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

import svmlab
from svmlab import datasets, widgets


@pytest.fixture(scope="module")
def toy():
    X, y = datasets.make_toy(200, random_state=1)
    return X, np.where(y > 0, "spam", "ham")  # any two labels


def numbers(text):
    """{'margin 2/|w|': 1.23, 'primal P': ..., ...}: the number after each '<name> ='."""
    return {k: float(v) for k, v in re.findall(r"^([^=\n]+?) = (\S+)", text, flags=re.M)}


def subgradient(**params):
    defaults = dict(solver="subgradient", max_iter=300, tol=1e-2, C=1.0)
    return svmlab.LinearSVM(**{**defaults, **params})


@pytest.mark.parametrize("params, bias", [
    (dict(loss="hinge", class_weight={"spam": 3.0}, intercept_scaling=2.0), "regularized"),
    (dict(loss="squared_hinge", fit_intercept=False, C=0.3), "none"),
])
def test_describe_fit_reports_the_problem_values(toy, params, bias):
    X, y = toy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model = subgradient(**params).fit(X, y)
    got = numbers(widgets.describe_fit(model, X, y))

    y_pm = np.where(y == "spam", 1.0, -1.0)
    Ci = model.C * np.where(y_pm > 0, params.get("class_weight", {}).get("spam", 1.0), 1.0)
    problem = svmlab.SVMProblem(X, y_pm, Ci, params["loss"], bias, params.get("intercept_scaling", 1.0))
    P = problem.primal(model.coef_, model.intercept_)
    D = problem.dual(model.alpha_)
    assert got["margin 2/|w|"] == pytest.approx(2 / np.linalg.norm(model.coef_), abs=1e-4)
    assert got["primal P"] == pytest.approx(P, rel=1e-5)
    assert got["dual D"] == pytest.approx(D, rel=1e-5)
    assert got["gap P - D"] == pytest.approx(P - D, rel=1e-2)
    assert got["epochs"] == model.n_iter_
    assert got["support vectors"] == np.count_nonzero(model.alpha_ > 0)
    assert got["training accuracy"] == pytest.approx(np.mean(model.predict(X) == y), abs=1e-4)
    assert D <= P  # weak duality, so the printed gap is never negative
    assert widgets.describe_fit(model, X, y) == widgets.describe_fit(model, X, y)


def test_describe_fit_kernel_model(toy):
    X, y = toy[0][:60], toy[1][:60]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model = svmlab.KernelSVM(C=1.0, kernel="rbf", max_iter=300).fit(X, y)
    got = numbers(widgets.describe_fit(model, X, y))
    problem = svmlab.SVMProblem(X, np.where(y == "spam", 1.0, -1.0), 1.0, "hinge", "free", kernel="rbf")
    alpha = model.alpha_
    assert got["margin 2/|w|"] == pytest.approx(2 / np.sqrt(alpha @ problem.Q() @ alpha), rel=1e-3)
    assert got["primal P"] == pytest.approx(problem.primal_at(alpha, model.intercept_[0]), rel=1e-5)
    assert got["dual D"] == pytest.approx(problem.dual(alpha), rel=1e-5)


def test_describe_fit_rejects_unfitted_model_and_unknown_labels(toy):
    X, y = toy
    with pytest.raises(ValueError, match="fit"):
        widgets.describe_fit(subgradient(), X, y)
    model = subgradient(tol=0.5).fit(X, y)
    with pytest.raises(ValueError, match="classes"):
        widgets.describe_fit(model, X, np.where(y == "spam", 1, -1))


def test_show_fit_uses_the_given_axes_and_the_asked_parameters(toy):
    X, y = toy
    est = subgradient(C=1.0)
    before = est.get_params()
    ax = plt.figure().add_subplot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", svmlab.ConvergenceWarning)
        model, out = widgets.show_fit(est, X, y, ax=ax, C=10.0, tol=0.05)
    assert out is ax
    assert model is not est and model.C == 10.0 and model.tol == 0.05
    assert model.coef_.shape == (1, 2)
    assert est.get_params() == before and not hasattr(est, "coef_")
    # the drawing: three level lines and one point per sample
    assert any(getattr(c, "levels", None) is not None and list(c.levels) == [-1.0, 0.0, 1.0]
               for c in ax.collections)
    assert "C = 10" in ax.get_title()


def test_fit_explorer_slider_refits_and_changes_the_margin(toy, capsys):
    X, y = toy
    rng = np.random.default_rng(5)
    est = subgradient(C=0.1, random_state=rng)
    before = est.get_params()
    state = rng.bit_generator.state

    box = widgets.fit_explorer(est, X, y, C_range=(-2, 2))
    assert isinstance(box, ipywidgets.interactive)
    slider = box.children[0]
    assert isinstance(slider, ipywidgets.FloatLogSlider)
    assert slider.description == "C" and not slider.continuous_update
    assert slider.min == -2 and slider.max == 2 and slider.value == pytest.approx(0.1)

    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", svmlab.ConvergenceWarning)  # caught and printed instead
        box.f(C=0.01)
        small = capsys.readouterr().out
        box.f(C=10.0)
        large = capsys.readouterr().out
    m_small, m_large = numbers(small)["margin 2/|w|"], numbers(large)["margin 2/|w|"]
    assert m_small > m_large  # a larger C buys fewer violations with a narrower margin
    assert "Traceback" not in large
    assert large.count("note: stopped at max_iter=300") <= 1

    assert est.get_params().keys() == before.keys()
    assert all(est.get_params()[k] is before[k] for k in before)
    assert rng.bit_generator.state == state and not hasattr(est, "coef_")


def test_fit_explorer_tol_slider_and_ranges(toy, capsys):
    X, y = toy
    box = widgets.fit_explorer(subgradient(C=5000.0, tol=1e-3), X, y, C_range=(-1, 1), tol_range=(-4, -1))
    C, tol = box.children[:2]
    assert C.value == pytest.approx(10.0)  # clipped into the range
    assert isinstance(tol, ipywidgets.FloatLogSlider) and tol.description == "tol"
    assert tol.value == pytest.approx(1e-3)
    box.f(C=1.0, tol=0.5)
    assert "margin 2/|w| =" in capsys.readouterr().out
    with pytest.raises(ValueError, match="C range"):
        widgets.fit_explorer(subgradient(), X, y, C_range=(2, -2))


def test_fit_explorer_draws_the_stopping_rule_of_the_solver_with_a_line_at_epsilon(toy, monkeypatch, capsys):
    X, y = toy
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    box = widgets.fit_explorer(svmlab.LinearSVM(solver="dcd", tol=1e-2), X, y, C_range=(-1, 1), tol_range=(-5, -1))
    rule = box.children[2]
    assert isinstance(rule, ipywidgets.ToggleButtons) and set(rule.options) == {("PG max - PG min", "pg"),
                                                                                 ("|w_k - w_(k-1)|", "dw")}
    for stopping, label, words in [("pg", "PG max - PG min", "spread of the projected gradients"),
                                   ("dw", "|w_k - w_(k-1)|", "change of w over one epoch")]:
        shown.clear()
        capsys.readouterr()
        box.f(C=1.0, tol=1e-3, stopping=stopping)
        assert words in capsys.readouterr().out  # the sentence on what epsilon means
        (fig,) = shown
        stop_ax = fig.axes[1]
        curve, line = stop_ax.get_lines()
        assert stop_ax.get_ylabel().startswith(label) and np.allclose(line.get_ydata(), 1e-3)
        assert curve.get_ydata()[0] > curve.get_ydata()[-1]  # the quantity falls as the run proceeds
    shown.clear()
    widgets.fit_explorer(subgradient(), X, y, C_range=(-1, 1)).f(C=1.0)
    assert len(shown[0].axes) == 1  # no tol slider, no stopping panel
    est = svmlab.LinearSVM(solver="sdca", tol=1e-2, random_state=0)
    model, axes, meaning = widgets.show_stopping(est, X, y, C=1.0)  # the static figure: the same two panels
    assert model.trace_ is not None and est.trace is False and "relative duality gap" in meaning
    assert axes[1].get_ylabel() == "relative gap (P - D) / P"
    with pytest.raises(ValueError, match="no tol"):
        widgets.show_stopping(svmlab.LinearSVM(solver="pegasos"), X, y)


@pytest.mark.parametrize("params, rule", [(dict(solver="dual_gradient", C=0.01, max_iter=3000), "kkt"),
                                          (dict(solver="dcd", stopping="dw"), "dw"),
                                          (dict(solver="sdca", random_state=0), "gap")])
def test_stopping_series_is_the_quantity_the_solver_stopped_on(toy, params, rule):
    X, y = toy
    model = svmlab.LinearSVM(**{"C": 1.0, "tol": 1e-3, "trace": True, **params}).fit(X, y)
    assert widgets.stopping_rule(model) == rule
    epochs, values = widgets.stopping_series(model, X, y)
    assert epochs[-1] == model.n_iter_
    assert values[-1] <= 1e-3 < values.max()  # met at the last epoch, not before the start
    assert widgets.stopping_rule(svmlab.LinearSVM(solver="pegasos")) is None
    with pytest.raises(ValueError, match="trace=True"):
        widgets.stopping_series(svmlab.LinearSVM(C=1.0).fit(X, y), X, y)


def test_every_registered_solver_has_a_stopping_rule_and_an_unknown_one_is_an_error():
    """A solver added to the registry but not to widgets.stopping_rule must not be drawn with
    another solver's stopping quantity."""
    from svmlab import warmup

    for estimator, table in warmup.TABLES.items():
        for name in table:
            rule = widgets.stopping_rule(getattr(svmlab, estimator)(solver=name))
            assert rule is None or rule in widgets._RULES, (estimator, name, rule)
    unknown = svmlab.LinearSVM()
    unknown.solver = "rcd"  # as a newcomer's solver would be before it is named there
    with pytest.raises(ValueError, match="add it to svmlab.widgets.stopping_rule"):
        widgets.stopping_rule(unknown)


def test_import_svmlab_does_not_load_the_widgets():
    code = "import sys, svmlab; print('ipywidgets' in sys.modules or 'svmlab.widgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_show_pegasos_draws_the_run_and_the_ball():
    X, y = datasets.make_toy(200, random_state=2)
    fig, axes = plt.subplots(1, 2)
    model, radius, out = widgets.show_pegasos(X, y, C=50.0, batch_size=4, projection=True, epochs=10, axes=axes)
    assert out is axes and model.batch_size == 4 and model.projection and model.n_iter_ == 10
    assert radius == pytest.approx(np.sqrt(50.0 * len(y)))  # 1/sqrt(lambda) = sqrt(sum_i C_i)
    norms = axes[1].lines[0].get_ydata()
    assert len(norms) == len(model.trace_.snapshot_epoch) - 1  # w = 0 at epoch 0 is not drawn on a log axis
    assert np.all(norms <= radius * (1 + 1e-12))
    assert axes[1].lines[-1].get_ydata()[0] == pytest.approx(radius)  # the dashed ball
    assert "k = 4" in axes[0].get_title() and "projection on" in axes[0].get_title()


def test_pegasos_explorer_controls_and_projection(capsys):
    X, y = datasets.make_toy(200, random_state=2)
    box = widgets.pegasos_explorer(X, y, C=10.0, batch_sizes=(1, 8), epochs=5)
    C, k, projection = box.children[:3]
    assert isinstance(C, ipywidgets.FloatLogSlider) and C.value == pytest.approx(10.0)
    assert isinstance(k, ipywidgets.Dropdown) and list(k.options) == [1, 8]
    assert isinstance(projection, ipywidgets.Checkbox) and projection.value
    largest = {}
    for on in (True, False):
        capsys.readouterr()
        box.f(C=1000.0, batch_size=1, projection=on)
        got = re.search(r"largest recorded \|w\| = (\S+) \(radius 1/sqrt\(lambda\) = (\S+)\)", capsys.readouterr().out)
        largest[on], radius = float(got.group(1)), float(got.group(2))
    assert largest[True] <= radius * (1 + 1e-3)
    assert largest[False] > radius  # the early unprojected steps 1/(lambda t) leave the ball
    with pytest.raises(ValueError, match="batch_sizes"):
        widgets.pegasos_explorer(X, y, batch_sizes=(0,))
