"""Solvers run in slices (svmlab.solvers.slices): Ctrl-C, warm start, progress, and slicing that
changes no iterate."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

from svmlab import datasets
from svmlab.estimators import ConvergenceWarning, KernelSVM, LinearSVM
from svmlab.solvers import KERNEL, LINEAR, starter
from svmlab.solvers.coordinate import Problem, Stop
from svmlab.solvers.slices import GROWTH, Progress, next_budget
from svmlab.trace import Recorder

REGISTRY = [("LinearSVM", name) for name in LINEAR] + [("KernelSVM", name) for name in KERNEL]

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from svmlab.estimators import {cls}
    rng = np.random.default_rng(0)
    n = {n}
    X = rng.normal(size=(n, 10))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1)  # overlapping classes: no early optimum
    kw = dict(solver={solver!r}, random_state=0, trace={trace}, {extra})
    {cls}(max_iter=2, **kw).fit(X, y)  # compile (or load from the cache) first
    model = {cls}(tol=1e-300, max_iter=10**9, **kw)
    print("fitting", flush=True)
    try:
        model.fit(X, y)
        print("finished", flush=True)
    except BaseException as error:
        print("caught", type(error).__name__, repr(time.time()), flush=True)
""")


def interrupt(cls, solver, trace=False):
    """Start a long fit in a child, send it SIGINT once it fits, and return what the child caught
    and the seconds from the signal to the exception in the child."""
    extra = "fit_intercept=False" if (cls, solver) == ("KernelSVM", "dcd") else ""
    n = 300 if cls == "KernelSVM" else 3000
    code = CHILD.format(cls=cls, solver=solver, n=n, trace=trace, extra=extra)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=os.environ.copy())
    try:
        assert child.stdout.readline().strip() == "fitting", child.stderr.read()
        time.sleep(0.3)  # well into the fit
        sent = time.time()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    words = out.split()
    assert words[:1] == ["caught"], out + err
    return words[1], float(words[2]) - sent


@pytest.mark.parametrize("cls, solver", REGISTRY)
def test_sigint_raises_keyboard_interrupt_between_slices(cls, solver):
    table = LINEAR if cls == "LinearSVM" else KERNEL
    if starter(table, solver) is None:
        pytest.skip(f"{cls}(solver={solver!r}) still runs in one numba call (it has no start())")
    caught, seconds = interrupt(cls, solver)
    print(f"{cls}(solver={solver!r}): {caught} {seconds * 1000:.0f} ms after SIGINT")
    assert caught == "KeyboardInterrupt"


def test_sigint_while_recording_a_trace_is_a_plain_keyboard_interrupt():
    caught, seconds = interrupt("LinearSVM", "dcd", trace=True)
    print(f"dcd with trace: {caught} {seconds * 1000:.0f} ms after SIGINT")
    assert caught == "KeyboardInterrupt"


@pytest.fixture(scope="module")
def data():
    X, y = datasets.make_random(n_samples=200, n_features=5, random_state=1)
    return X, y


SLICED = [("dcd", {}), ("dcd", dict(order="random", stopping="dw")), ("subgradient", {}), ("dual_gradient", {}),
          ("sdca", {}), ("sdca", dict(batch_size=4, output="average")), ("sdca", dict(smoothing=0.5, accelerated=True)),
          ("pegasos", dict(output="random"))]


@pytest.mark.parametrize("solver, options", SLICED)
def test_one_epoch_slices_give_the_iterates_of_one_call(data, solver, options):
    X, y = data
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    start = starter(LINEAR, solver)
    runs = []
    for budget in (1, 10**6):  # one epoch a slice, or the whole run in one
        recorder = Recorder(1, 40, len(y), X.shape[1] + 1)
        state = start(Problem(X, y_pm, np.full(len(y), 0.5), 0, 1.0), Stop(1e-6, 40), recorder.buffers,
                      np.random.default_rng(7), None, **options)
        slices = 0
        while not state.advance(budget)[1]:
            slices += 1
        runs.append((state.result(), recorder.to_trace(solver, lambda w: (w[:-1], w[-1])), slices))
    (one, trace_one, n_one), (whole, trace_whole, n_whole) = runs
    assert n_one > n_whole == 0
    np.testing.assert_array_equal(one.alpha, whole.alpha)
    np.testing.assert_array_equal(one.w, whole.w)
    assert one.n_iter == whole.n_iter
    np.testing.assert_array_equal(trace_one.primal, trace_whole.primal)


@pytest.mark.parametrize("solver, tol", [("dcd", 1e-4), ("sdca", 1e-4), ("subgradient", 1e-3)])
def test_warm_start_after_a_change_of_C_is_faster_and_reaches_the_same_optimum(data, solver, tol):
    X, y = data
    kw = dict(solver=solver, tol=tol, max_iter=100_000, random_state=0, trace=10**6)  # trace: P at the end
    warm = LinearSVM(C=1.0, warm_start=True, **kw).fit(X, y)
    warm.set_params(C=0.7).fit(X, y)
    cold = LinearSVM(C=0.7, **kw).fit(X, y)
    assert warm.alpha_.max() <= 0.7  # started from the old alpha clipped to the new box
    assert warm.n_iter_ < cold.n_iter_
    p_warm, p_cold = warm.trace_.primal[-1], cold.trace_.primal[-1]
    assert abs(p_warm - p_cold) <= tol * p_cold


def test_warm_start_from_the_optimum_stops_at_once(data):
    X, y = data
    model = LinearSVM(C=0.3, tol=1e-6, warm_start=True).fit(X, y)
    first = model.n_iter_
    model.fit(X, y)
    assert model.n_iter_ < first


def test_warm_start_refuses_other_samples(data):
    X, y = data
    model = LinearSVM(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="same samples"):
        model.fit(X[:50], y[:50])


def test_callback_sees_increasing_epochs_and_verbose_prints_a_line_per_slice(data, capsys):
    X, y = data
    seen = []
    model = LinearSVM(solver="sdca", tol=1e-10, max_iter=300, verbose=True, callback=seen.append)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert all(isinstance(p, Progress) for p in seen)
    epochs = [p.units for p in seen]
    assert len(epochs) >= 2 and all(a < b for a, b in zip(epochs, epochs[1:]))
    assert epochs[-1] == model.n_iter_ and seen[-1].finished and not seen[0].finished
    assert all(np.isfinite(p.gap) for p in seen)  # sdca's gap is known each epoch
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(seen) and "epochs" in lines[0] and "gap" in lines[0]


def test_kernel_dual_gradient_runs_in_slices_with_a_callback(data):
    X, y = data
    seen = []
    KernelSVM(solver="dual_gradient", tol=0.5, max_iter=10_000, callback=seen.append).fit(X, y)
    assert seen and seen[-1].finished and seen[-1].unit == "epoch"


def test_callback_must_be_callable(data):
    X, y = data
    with pytest.raises(ValueError, match="callback"):
        LinearSVM(callback=3).fit(X, y)


def test_next_budget_follows_the_measured_rate_and_grows_boundedly():
    assert next_budget(10, 0.01, 10, target=0.03) == 30  # 1000 units/s for 30 ms
    assert next_budget(1, 1e-6, 1, target=0.03) == GROWTH  # fast: grows, but at most GROWTH times
    assert next_budget(100, 10.0, 100, target=0.03) == 1  # slow: at least one unit


def test_dcd_and_sdca_draw_the_same_permutation_and_make_the_same_steps(data):
    """SDCA is DCD in other units (chapter 6): from one seed both visit the coordinates in the
    same order, so DCD without shrinking and SDCA with batch size 1 pass the same iterates
    (up to rounding: DCD writes the clipped value, SDCA adds the step to alpha)."""
    X, y = data
    for epochs in (1, 3, 8):
        common = dict(C=0.5, tol=1e-300, max_iter=epochs, random_state=11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            dcd = LinearSVM(solver="dcd", shrinking=False, **common).fit(X, y)
            sdca = LinearSVM(solver="sdca", **common).fit(X, y)
            other = LinearSVM(solver="sdca", **dict(common, random_state=12)).fit(X, y)
        np.testing.assert_allclose(sdca.alpha_, dcd.alpha_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(sdca.coef_, dcd.coef_, rtol=0, atol=1e-12)
        assert np.abs(other.alpha_ - dcd.alpha_).max() > 1e-6  # another seed: another path


def test_a_solver_that_runs_in_one_call_says_callback_has_no_effect(data):
    X, y = data
    unsliced = [name for name in KERNEL if starter(KERNEL, name) is None]
    if not unsliced:
        pytest.skip("every solver runs in slices")
    solver = unsliced[0]
    with pytest.warns(UserWarning, match="runs in one call"):
        KernelSVM(solver=solver, fit_intercept=solver != "dcd", callback=lambda p: None).fit(X, y)
