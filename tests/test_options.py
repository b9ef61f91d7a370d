"""The solvers' options and their checks, declared once in the registry (svmlab.solvers): a bad
value is refused with one message naming the solver, the parameter, the value and what is
allowed, before the data is read; an option the chosen solver ignores warns when set away from
its default; defaults never warn. Parametrized over the registry, so a new option or solver is
covered as soon as it is registered."""

import inspect
import warnings

import numpy as np
import pytest

import svmlab
from svmlab import datasets, solvers

ESTIMATORS = [svmlab.LinearSVM, svmlab.KernelSVM, svmlab.LinearSVR, svmlab.KernelSVR]
# Data every estimator refuses: an error about it means the parameters passed their checks.
NAN_DATA = (np.array([[np.nan, 0.0], [1.0, 1.0], [0.0, 1.0]]), np.array([0.0, 1.0, 1.0]))


def _declared(table):
    return list({option.name: option for solver in table.values() for option in solver.options}.values())


def _runnable(Estimator, name):
    """The parameters that choose solver ``name``: the bias-free kernel DCD without a bias."""
    return {"solver": name, **({"fit_intercept": False} if (Estimator, name) == (svmlab.KernelSVM, "dcd") else {})}


def _changed(option):
    """A valid value of ``option`` other than its default."""
    if isinstance(option.default, bool):
        return not option.default
    if isinstance(option.default, str):
        return next(c for c in option.check.keywords["accepted"] if c != option.default)
    if option.default is None:  # n_jobs: None is one thread
        return 2
    return option.default + 1


SOLVERS = [(E, name) for E in ESTIMATORS for name in E._solvers]
OPTIONS = [(E, name, option) for E, name in SOLVERS for option in E._solvers[name].options]
REQUIREMENTS = [(E, name, rule) for E, name in SOLVERS for rule in E._solvers[name].requires]
IGNORED = [(E, name, option) for E, name in SOLVERS for option in _declared(E._solvers)
           if option not in E._solvers[name].options]
# for each requirement in the registry, parameters that break it
BROKEN = {
    solvers.HINGE_ONLY: {"loss": "squared_hinge"},
    solvers.SMOOTHED_HINGE: {"loss": "squared_hinge", "smoothing": 0.5},
    solvers.SMOOTH_FOR_ASDCA: {"accelerated": True},
    solvers.FREE_BIAS: {"fit_intercept": False},
    solvers.NO_BIAS: {"fit_intercept": True},
}


def _id(case):
    """Estimator-solver[-option] as a test id."""
    Estimator, name, *option = case
    return "-".join([Estimator.__name__, name] + [o.name for o in option if hasattr(o, "name")])


@pytest.mark.parametrize("bad", ["nonsense", -1])
@pytest.mark.parametrize("Estimator, name, option", OPTIONS, ids=map(_id, OPTIONS))
def test_a_bad_option_is_refused_naming_solver_parameter_value_and_what_is_allowed(Estimator, name, option, bad):
    bad = 0 if option.name == "n_jobs" and bad == -1 else bad  # n_jobs=-1 is every core
    model = Estimator(**_runnable(Estimator, name), **{option.name: bad})
    with pytest.raises(ValueError) as info:
        model.fit(*NAN_DATA)  # refused before the data is read
    message = str(info.value)
    assert message.startswith(f"solver={name!r}: {option.name}")
    assert repr(bad) in message
    assert "must be" in message or "accepted:" in message


@pytest.mark.parametrize("Estimator, name, rule", REQUIREMENTS, ids=map(_id, REQUIREMENTS))
def test_what_a_solver_requires_is_checked_before_the_data(Estimator, name, rule):
    model = Estimator(**{**_runnable(Estimator, name), **BROKEN[rule]})
    with pytest.raises(ValueError) as info:
        model.fit(*NAN_DATA)
    assert str(info.value) == f"solver={name!r} {rule.reason}"


@pytest.mark.parametrize("Estimator, name, option", IGNORED, ids=map(_id, IGNORED))
def test_an_option_the_solver_ignores_warns(Estimator, name, option):
    value = _changed(option)
    taken = ", ".join(o.name for o in Estimator._solvers[name].options) or "no options"
    with pytest.warns(UserWarning) as record, pytest.raises(ValueError, match="NaN"):
        Estimator(**_runnable(Estimator, name), **{option.name: value}).fit(*NAN_DATA)
    assert [str(w.message) for w in record] == [f"solver={name!r} ignores {option.name}={value!r}; it takes {taken}."]


def test_the_warning_points_at_the_callers_fit():
    X, y = datasets.make_toy(30)
    with pytest.warns(UserWarning, match="solver='subgradient' ignores shrinking=False; it takes no options") as record:
        svmlab.LinearSVM(solver="subgradient", shrinking=False, tol=1.0).fit(X, y)
    assert record[0].filename == __file__


@pytest.mark.parametrize("Estimator, name", SOLVERS, ids=map(_id, SOLVERS))
def test_defaults_never_warn(Estimator, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="NaN"):
            Estimator(**_runnable(Estimator, name)).fit(*NAN_DATA)


@pytest.mark.parametrize("Estimator, name", SOLVERS, ids=map(_id, SOLVERS))
def test_a_default_given_as_another_type_of_the_same_value_does_not_warn(Estimator, name):
    """An option equal to its default in value (0 for 0.0, np.int64(1) for 1, np.True_ for True)
    is the default: the solver ignores nothing."""
    taken = {option.name for option in Estimator._solvers[name].options}
    same = {option.name: _same_value(option.default) for option in _declared(Estimator._solvers)
            if option.name not in taken and _same_value(option.default) is not None}
    if not same:
        pytest.skip(f"{name} takes every numeric option of its estimator")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="NaN"):
            Estimator(**_runnable(Estimator, name), **same).fit(*NAN_DATA)


def _same_value(default):
    """The default as another type of the same value, or None for a default that has none."""
    if isinstance(default, bool):
        return np.bool_(default)
    if isinstance(default, float) and default.is_integer():
        return int(default)
    if isinstance(default, int):
        return np.int64(default)
    return None


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_the_estimators_defaults_are_the_registrys(Estimator):
    signature = inspect.signature(Estimator).parameters
    for option in _declared(Estimator._solvers):
        assert repr(signature[option.name].default) == repr(option.default), option.name


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_an_option_is_declared_once_in_a_table(Estimator):
    declared = [option for solver in Estimator._solvers.values() for option in solver.options]
    by_name = {option.name: option for option in declared}
    assert all(option is by_name[option.name] for option in declared)


def test_the_solver_gets_its_checked_options():
    params = svmlab.LinearSVM(shrinking=np.True_, batch_size=np.int64(4)).get_params()
    options = solvers.check(solvers.LINEAR, "sdca", params)
    assert set(options) == {"order", "output", "smoothing", "batch_size", "accelerated"}
    assert type(options["batch_size"]) is int
    options = solvers.options(solvers.LINEAR, "dcd", params)
    assert options["shrinking"] is True
    with pytest.raises(ValueError, match="solver='dcd': stopping='x' is not supported"):
        solvers.options(solvers.LINEAR, "dcd", dict(params, stopping="x"))


def test_the_choices_are_in_the_order_of_the_solvers_codes():
    from svmlab.solvers import coordinate

    codes = {"cyclic": coordinate.CYCLIC, "random": coordinate.RANDOM, "permutation": coordinate.PERMUTATION}
    assert all(solvers.ORDERS.index(name) == code for name, code in codes.items())
    codes = {"last": coordinate.LAST, "average": coordinate.AVERAGE, "random": coordinate.RANDOM_ITERATE}
    assert all(solvers.OUTPUTS.index(name) == code for name, code in codes.items())
