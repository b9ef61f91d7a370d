"""Solvers run in slices (svmlab.solvers.slices): Ctrl-C, warm start, progress, and slicing that
changes no iterate."""

import os
import signal
import textwrap
import time
import warnings

import numpy as np
import pytest

import svmlab
from svmlab import datasets
from svmlab.estimators import ConvergenceWarning, KernelSVM, LinearSVM, linear_coef, no_coef
from svmlab.kernels import make_kernel
from svmlab.solvers import KERNEL, KERNEL_REGRESSION, LINEAR, KernelProblem, KernelRegressionProblem, starter
from svmlab.solvers.coordinate import ACTIVE, Problem, Stop
from svmlab.solvers.slices import GROWTH, Progress, next_budget
from svmlab.trace import Recorder
from tests import child

TABLES = {"LinearSVM": LINEAR, "KernelSVM": KERNEL, "KernelSVR": KERNEL_REGRESSION}
REGISTRY = [(cls, name) for cls, table in TABLES.items() for name in table]

CHILD = textwrap.dedent("""
    import signal, sys, time
    import numpy as np
    # Python's own handler: a child of a shell's background job inherits SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from svmlab import {cls}
    rng = np.random.default_rng(0)
    n = {n}
    X = rng.normal(size=(n, 10))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1, -1)  # overlapping classes: no early optimum
    kw = dict(solver={solver!r}, trace={trace}, {extra})
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
    extra = "" if cls == "KernelSVR" else "random_state=0, "  # KernelSVR has no random_state, as SVR
    extra += "fit_intercept=False" if (cls, solver) == ("KernelSVM", "dcd") else ""
    n = 3000 if cls == "LinearSVM" else 300
    code = CHILD.format(cls=cls, solver=solver, n=n, trace=trace, extra=extra)
    fit = child.Child(code)
    try:
        assert fit.readline(timeout=60) == "fitting", fit.error
        time.sleep(0.3)  # well into the fit
        sent = time.time()
        os.kill(fit.process.pid, signal.SIGINT)
        out = fit.output(timeout=60)
    finally:
        fit.stop()
    words = out.split()
    assert words[:1] == ["caught"], f"{out}\n{fit.error}"
    return words[1], float(words[2]) - sent


@pytest.mark.parametrize("cls, solver", REGISTRY)
def test_sigint_raises_keyboard_interrupt_between_slices(cls, solver):
    assert starter(TABLES[cls], solver) is not None, f"{cls}(solver={solver!r}) has no start()"
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


# kernel solvers: (table, name, options); a small cache makes SMO shrink its slots (kernel_cache.fit_to_active)
KERNEL_SLICED = [(KERNEL, "smo", {}), (KERNEL, "smo", dict(selection="random")),
                 (KERNEL, "smo", dict(selection="max_violating", cache_size=0.01)),
                 (KERNEL, "smo", dict(shrinking=False)), (KERNEL, "dcd", {}), (KERNEL, "dcd", dict(cache_size=0.01)),
                 (KERNEL_REGRESSION, "smo", {})]


def _kernel_problem(data, table, name):
    X, y = data
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    Ci, kernel = np.full(len(y), 0.5), make_kernel("rbf", X)
    if table is KERNEL_REGRESSION:
        return KernelRegressionProblem(X, kernel, X[:, 0] + 0.1 * y_pm, Ci, 0.1)
    return KernelProblem(X, kernel, y_pm, Ci, 0, name == "smo")


def _sliced_and_whole(start, problem, options, w_size, coef_of):
    """The state of ``start`` run one unit a slice and in one slice: [(result, trace, slices), ...]."""
    runs = []
    for budget in (1, 10**9):
        recorder = Recorder(1, 40, len(problem[2]), w_size)
        state = start(problem, Stop(1e-6, 40), recorder.buffers, np.random.default_rng(7), None, **options)
        slices = 0
        while not state.advance(budget)[1]:
            slices += 1
        runs.append((state.result(), recorder.to_trace("", coef_of, state.unit), slices))
    return runs


def _assert_the_same_iterates(runs):
    (one, trace_one, n_one), (whole, trace_whole, n_whole) = runs
    assert n_one > n_whole == 0
    np.testing.assert_array_equal(one.alpha, whole.alpha)
    np.testing.assert_array_equal(one.w, whole.w)
    assert one.b == whole.b and one.n_iter == whole.n_iter and one.converged == whole.converged
    np.testing.assert_array_equal(trace_one.epoch, trace_whole.epoch)
    np.testing.assert_array_equal(trace_one.primal, trace_whole.primal)
    np.testing.assert_array_equal(trace_one.intercept, trace_whole.intercept)


@pytest.mark.parametrize("solver, options", SLICED)
def test_one_epoch_slices_give_the_iterates_of_one_call(data, solver, options):
    X, y = data
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    problem = Problem(X, y_pm, np.full(len(y), 0.5), 0, 1.0)
    _assert_the_same_iterates(_sliced_and_whole(starter(LINEAR, solver), problem, options, X.shape[1] + 1,
                                                linear_coef))


def test_a_dcd_slice_ends_soon_after_every_variable_comes_back():
    """The driver sizes a slice's budget on the epochs of the last slice, which with shrinking pass
    over a few variables each; after an unshrink an epoch passes over all n. So a slice ends at
    its budget or at the first epoch whose steps (active sizes, summed) reach the budget at the
    last slice's mean size, and it lasts about as long as the driver planned (a Ctrl-C waited 4 s
    for a slice without this)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    problem = Problem(X, np.where(X[:, 0] + rng.normal(size=200) > 0, 1.0, -1.0), np.full(200, 0.5), 0, 1.0)

    def state():  # tol 1e-300: the shrunk problem is solved to rounding, then every variable comes back
        return starter(LINEAR, "dcd")(problem, Stop(1e-300, 1000), Recorder(0, 1, 200, 6).buffers,
                                      np.random.default_rng(7), None)

    one, sizes = state(), []  # the active size each epoch passes over, one epoch a slice
    while True:
        sizes.append(int(one.arrays.count[ACTIVE]))
        if one.advance(1)[1]:
            break
    budget, sliced, epoch, mean, early = 100, state(), 0, 200, 0
    while True:
        done, finished = sliced.advance(budget)
        steps = np.cumsum(sizes[epoch:epoch + done])
        assert finished or done == budget or steps[-1] >= budget * mean > steps[-2]
        early += not finished and done < budget
        epoch, mean = epoch + done, steps[-1] // done
        if finished:
            break
    assert epoch == len(sizes) == 1000 and early > 0
    np.testing.assert_array_equal(one.result().alpha, sliced.result().alpha)


@pytest.mark.parametrize("table, name, options", KERNEL_SLICED,
                         ids=[f"{'svr' if t is KERNEL_REGRESSION else 'svm'}-{n}-{o}" for t, n, o in KERNEL_SLICED])
def test_kernel_slices_of_one_unit_give_the_iterates_of_one_call(data, table, name, options):
    """SMO (one pair update a slice), its epsilon-SVR and kernel DCD (one epoch a slice): the
    state and the RNG stream carry over between slices, so the iterates are those of one call."""
    problem = _kernel_problem(data, table, name)
    _assert_the_same_iterates(_sliced_and_whole(starter(table, name), problem, options, 0, no_coef))


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


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_linear_svr_warm_start_after_a_change_of_C_is_faster_and_reaches_the_same_optimum(data, loss):
    X, _ = data
    z = X @ np.arange(1.0, 6.0) + np.random.default_rng(0).normal(size=len(X))
    kw = dict(loss=loss, epsilon=0.3, tol=1e-8, max_iter=100_000, random_state=0)
    warm = svmlab.LinearSVR(C=1.0, warm_start=True, **kw).fit(X, z)
    warm.set_params(C=0.4).fit(X, z)
    cold = svmlab.LinearSVR(C=0.4, **kw).fit(X, z)
    if loss == "epsilon_insensitive":
        assert np.abs(warm.alpha_).max() <= 0.4  # started from the old beta clipped to the new box
    assert warm.n_iter_ < cold.n_iter_
    problem = svmlab.SVRProblem(X, z, 0.4, 0.3, loss, bias="regularized")
    p_warm, p_cold = (problem.primal(m.coef_, m.intercept_[0]) for m in (warm, cold))
    assert abs(p_warm - p_cold) <= 1e-6 * p_cold
    with pytest.raises(ValueError, match="same samples"):
        warm.fit(X[:50], z[:50])


def test_warm_start_from_the_optimum_stops_at_once(data):
    X, y = data
    model = LinearSVM(C=0.3, tol=1e-6, warm_start=True).fit(X, y)
    first = model.n_iter_
    model.fit(X, y)
    assert model.n_iter_ < first


def _updates(model, X, y):
    """Fit ``model`` and return the units (pair updates, epochs) its run took, seen by a callback."""
    seen = []
    model.set_params(callback=seen.append).fit(X, y)
    return seen[-1].units


KERNEL_MODELS = {"smo": lambda **kw: KernelSVM(tol=1e-6, random_state=0, **kw),
                 "dcd": lambda **kw: KernelSVM(solver="dcd", fit_intercept=False, tol=1e-6, random_state=0, **kw),
                 "svr": lambda **kw: svmlab.KernelSVR(epsilon=0.1, tol=1e-6, **kw)}


def _targets(name, X, y):
    return X[:, 0] + 0.3 * y if name == "svr" else y


def _dual(model, X, y):
    """D at the model's alpha, by the problem's definitions (svmlab.problem)."""
    gamma = model._kernel.gamma
    if isinstance(model, svmlab.KernelSVR):
        problem = svmlab.SVRProblem(X, y, C=model.C, epsilon=model.epsilon, bias="free", kernel="rbf", gamma=gamma)
        return problem.dual(model.alpha_)
    bias = "free" if model.fit_intercept else "none"
    return svmlab.SVMProblem(X, y, C=model.C, bias=bias, kernel="rbf", gamma=gamma).dual(model.alpha_)


@pytest.mark.parametrize("name", KERNEL_MODELS)
def test_kernel_warm_start_at_the_same_C_stops_sooner_at_the_same_dual(data, name):
    X, y = data
    z = _targets(name, X, y)
    model = KERNEL_MODELS[name](C=2.0, warm_start=True)
    cold = _updates(model, X, z)
    d_cold = _dual(model, X, z)
    warm = _updates(model, X, z)
    assert warm < cold
    assert _dual(model, X, z) == pytest.approx(d_cold, rel=1e-6)


@pytest.mark.parametrize("name", KERNEL_MODELS)
@pytest.mark.parametrize("C_old, C", [(2.0, 0.3), (0.3, 2.0)])
def test_kernel_warm_start_at_a_new_C_reaches_the_cold_solution(data, name, C_old, C):
    """From the old alpha clipped to the new box (and, with a free bias, rebalanced so that
    sum y_i alpha_i = 0 holds again), the solution of a cold fit at the new C."""
    X, y = data
    z = _targets(name, X, y)
    warm = KERNEL_MODELS[name](C=C_old, warm_start=True).fit(X, z)
    warm.set_params(C=C).fit(X, z)
    cold = KERNEL_MODELS[name](C=C).fit(X, z)
    assert np.all(np.abs(warm.alpha_) <= C)
    if name == "svr":
        assert abs(warm.alpha_.sum()) <= 1e-12 * np.abs(warm.alpha_).sum()
    elif name == "smo":
        assert abs(warm.dual_coef_.sum()) <= 1e-12 * warm.alpha_.sum()
    assert _dual(warm, X, z) == pytest.approx(_dual(cold, X, z), rel=1e-6)
    assert warm.intercept_[0] == pytest.approx(cold.intercept_[0], abs=1e-4)


@pytest.mark.parametrize("name", KERNEL_MODELS)
def test_kernel_solvers_call_back_after_each_slice(data, name):
    X, y = data
    seen = []
    model = KERNEL_MODELS[name](C=10.0, callback=seen.append).fit(X, _targets(name, X, y))
    assert seen and all(isinstance(p, Progress) for p in seen)
    units = [p.units for p in seen]
    assert all(a <= b for a, b in zip(units, units[1:])) and seen[-1].finished
    unit = "active-set epoch" if name == "dcd" else "pair update"  # kernel DCD shrinks by default
    assert all(p.unit == unit for p in seen)
    per_epoch = 1 if name == "dcd" else len(y) * (2 if name == "svr" else 1)
    assert model.n_iter_ == -(-units[-1] // per_epoch)


def test_warm_start_refuses_other_samples(data):
    X, y = data
    model = LinearSVM(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="same samples"):
        model.fit(X[:50], y[:50])
    svr = svmlab.KernelSVR(warm_start=True).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="same samples"):
        svr.fit(X[:50], X[:50, 0])


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


def test_linear_svr_reports_its_slices_and_prints_with_verbose(data, capsys):
    X, _ = data
    seen = []
    model = svmlab.LinearSVR(tol=1e-8, max_iter=50_000, random_state=0, verbose=True, callback=seen.append)
    model.fit(X, X @ np.arange(1.0, 6.0))
    assert seen and seen[-1].finished and seen[-1].units == model.n_iter_
    assert seen[-1].unit == "active-set epoch" and seen[-1].solver == "dcd"
    assert len(capsys.readouterr().out.splitlines()) == len(seen)


@pytest.mark.parametrize("estimator", [LinearSVM, svmlab.LinearSVR, KernelSVM, svmlab.KernelSVR])
def test_callback_must_be_callable(data, estimator):
    X, y = data
    with pytest.raises(ValueError, match="callback"):
        estimator(callback=3).fit(X, y)


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
