"""Hostile input and extreme numbers (issue: never a hang, a silent NaN model, or a crash in numba).

The rule every case checks: a fit returns a model that is what it claims (finite, and
certified or with a ConvergenceWarning), or raises a ValueError that says what to change.
Each repro runs in a process of its own (:mod:`tests.child`) with a 60 s limit, so that a hang
inside a numba kernel (which no signal interrupts) fails its own test, not the run.
"""

import json
import os
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import svmlab
from svmlab import ConvergenceWarning, KernelSVM, LinearSVM
from svmlab.trace import MAX_ROWS
from tests import child

REPO = Path(__file__).resolve().parent.parent
SETUP = """
import json, warnings, numpy as np, svmlab
r = np.random.default_rng(1); X = r.normal(size=(60, 5)); y = (X @ np.arange(1, 6) + r.normal(size=60) > 0).astype(int)
x = X[:, :1]
"""
RUN = """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        model = {fit}
        values = [model.intercept_, model.alpha_] + ([model.coef_] if hasattr(model, "coef_") else [])
        out = dict(raised=None, finite=all(np.isfinite(v).all() for v in values))
    except Exception as error:
        out = dict(raised=type(error).__name__, message=str(error))
out["warnings"] = sorted({{type(w.message).__name__ for w in caught}})
print(json.dumps(out))
"""

VALUE_ERROR, WARNED, FINE = "ValueError", "ConvergenceWarning", "fine"
REPROS = [  # (fit expression, outcome, what the message must say)
    ('svmlab.LinearSVM(solver="dual_gradient").fit(X * 1e200, y)', VALUE_ERROR, "overflows"),
    ('svmlab.KernelSVM(solver="dual_gradient", kernel="linear").fit(X * 1e40, y)', VALUE_ERROR, "overflows"),
    ('svmlab.KernelSVM(solver="dual_gradient", kernel="poly", gamma=1.0).fit(X * 1e10, y)', WARNED, ""),
    ('svmlab.KernelSVM(solver="dual_gradient", fit_intercept=False, loss="squared_hinge", kernel="poly", '
     'coef0=-1.0).fit(X, y)', VALUE_ERROR, "not positive semi-definite"),
    ("svmlab.KernelSVM().fit(X * 1e160, y)", VALUE_ERROR, "overflows float64"),
    ('svmlab.KernelSVM(solver="dcd", fit_intercept=False).fit(X * 1e160, y)', VALUE_ERROR, "overflows float64"),
    ("svmlab.LinearSVM().fit(X * 1e200, y)", VALUE_ERROR, "overflows float64"),
    ('svmlab.LinearSVM(solver="subgradient", C=1e300).fit(X, y)', WARNED, ""),
    ('svmlab.KernelSVM(loss="squared_hinge", kernel="poly", coef0=-1.0).fit(X, y)', VALUE_ERROR,
     "not positive semi-definite"),
    ('svmlab.KernelSVM(selection="max_violating", loss="squared_hinge", kernel="poly", coef0=-1.0).fit(X, y)',
     VALUE_ERROR, "not positive semi-definite"),
    ('svmlab.KernelSVM(selection="random", loss="squared_hinge", kernel="poly", coef0=-1.0).fit(X, y)',
     VALUE_ERROR, "not positive semi-definite"),
    ('svmlab.KernelSVM(solver="dcd", fit_intercept=False, loss="squared_hinge", kernel="poly", coef0=-1.0)'
     '.fit(X, y)', VALUE_ERROR, "not positive semi-definite"),
    ('svmlab.KernelSVM(kernel="poly", coef0=-1.0).fit(X, y)', "UserWarning", ""),
    ('svmlab.LinearSVM(solver="pegasos", C=1e12, output="average", batch_size=7).fit(X, y)', VALUE_ERROR,
     "overflowed"),
    ('svmlab.LinearSVM(solver="pegasos", C=1e12).fit(X, y)', WARNED, ""),
    ('svmlab.LinearSVM(solver="pegasos", C=1e300).fit(X, y)', WARNED, ""),
    ('svmlab.LinearSVM(solver="pegasos").fit(X * 1e200, y)', VALUE_ERROR, "overflows float64"),
    ('svmlab.LinearSVM(solver="dual_gradient", fit_intercept=False).fit(np.c_[x, -x], y)', WARNED, ""),
    ('svmlab.KernelSVM(solver="dual_gradient").fit(np.zeros((40, 3)), np.arange(40) % 2)', FINE, ""),
    ('svmlab.LinearSVM(solver="dual_gradient").fit(np.ones((2, 3)), np.array([0, 1]))', FINE, ""),
    ('svmlab.LinearSVM(solver="subgradient", loss="squared_hinge").fit(np.c_[x, -x], y)', FINE, ""),
    ("svmlab.LinearSVM(trace=True, max_iter=10**9).fit(X, y)", FINE, ""),
]


def _repro(code, timeout=60):
    try:
        out = child.run(code, timeout)
    except TimeoutError:
        pytest.fail(f"hung for more than {timeout} s")
    return json.loads(out.strip().splitlines()[-1])


def _run(code, timeout=60):
    """What a new interpreter running ``code`` printed last, as JSON (for what depends on the order
    of the imports)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for more than {timeout} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("fit, outcome, says", REPROS, ids=[r[0][:70] for r in REPROS])
def test_a_fit_is_finite_and_honest_or_a_clear_error(fit, outcome, says):
    out = _repro(SETUP + RUN.format(fit=fit))
    if outcome == VALUE_ERROR:
        assert out["raised"] == "ValueError" and says in out["message"], out
        return
    assert out["raised"] is None and out["finite"], out
    assert "RuntimeWarning" not in out["warnings"], out
    if outcome == FINE:
        assert "ConvergenceWarning" not in out["warnings"], out
    else:
        assert outcome in out["warnings"], out


def _repro_data():
    r = np.random.default_rng(1)
    X = r.normal(size=(60, 5))
    return X, (X @ np.arange(1, 6) + r.normal(size=60) > 0).astype(int)


def _with(y, index, value):
    y = y.astype(object)
    y[index] = value
    return y


LABELS = [  # (X from the repro X, y from the repro y, what the ValueError must say)
    (lambda X: X, lambda y: _with(y, 3, np.nan), "NaN or infinity"),
    (lambda X: X, lambda y: _with(y, 0, None), "NaN or infinity"),
    (lambda X: X, lambda y: _with(y, 5, type("NAType", (), {})()), "NaN or infinity"),  # pandas' NA, by its type name
    (lambda X: X, lambda y: np.array(["a" if v else 1 for v in y], dtype=object), "mixes strings and numbers"),
    (lambda X: X, lambda y: y + 1j, "Complex labels"),
    (lambda X: X, lambda y: _with(y, slice(None), np.arange(60) * 0.37), "continuous"),
    (lambda X: X, lambda y: sp.csr_matrix(y), "sparse matrix"),
    (lambda X: _with(X, (0, 0), "abc"), lambda y: y, "must hold real numbers"),
    (lambda X: X.astype(str).astype(object), lambda y: y, "must hold real numbers"),
    (lambda X: X.astype(str), lambda y: y, "must hold real numbers"),
]


@pytest.mark.parametrize("make_X, make_y, says", LABELS)
def test_labels_and_data_of_the_wrong_kind_get_clear_errors(make_X, make_y, says):
    X, y = _repro_data()
    with pytest.raises(ValueError, match=says):
        LinearSVM().fit(make_X(X), make_y(y))


@pytest.mark.parametrize("estimator, says", [
    (LinearSVM(random_state=-1), "random_state must be None, an integer >= 0"),
    (KernelSVM(kernel="poly", coef0="1"), "coef0 must be a finite number"),
    (KernelSVM(gamma="2"), "gamma"),
    (LinearSVM(solver="sdca", smoothing=-1), "smoothing must be a finite number >= 0"),
])
def test_parameters_of_the_wrong_kind_get_clear_errors(estimator, says):
    with pytest.raises(ValueError, match=says):
        estimator.fit(*_repro_data())


def test_integer_labels_as_objects_stay_integers_and_large_entries_raise_no_runtime_warning():
    X, y = _repro_data()
    assert LinearSVM().fit(X, y.astype(object)).classes_.dtype.kind == "i"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = LinearSVM().fit(X, y)
        model.predict(np.r_[X, [[1e308, 1e308, 0, 0, 0]]])  # finite, legitimate entries: no overflow warning


def test_the_trace_is_sized_by_what_it_records():
    X, y = _repro_data()
    for solver in ("dcd", "subgradient", "pegasos"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            trace = LinearSVM(solver=solver, tol=1e-300, max_iter=5000, trace=True).fit(X, y).trace_
        assert len(trace) <= MAX_ROWS and trace.epoch[0] == 0 and trace.epoch[-1] == 5000
        assert len(set(np.diff(trace.epoch[:-1]))) == 1  # evenly thinned


@pytest.mark.parametrize("order", ["sklearn first", "sklearn after svmlab"])
def test_errors_and_warnings_are_scikit_learns_and_pickle(order):
    first, after = ("import sklearn.exceptions\n", "") if order == "sklearn first" else ("", "import sklearn.exceptions\n")
    code = first + "import pickle, warnings, numpy as np, svmlab\n" + after + textwrap.dedent("""
        from multiprocessing import get_context
        try:
            svmlab.LinearSVM().predict(np.zeros((2, 2)))
        except sklearn.exceptions.NotFittedError as error:
            again = pickle.loads(pickle.dumps(error))
        with warnings.catch_warnings():
            warnings.simplefilter("error", sklearn.exceptions.DataConversionWarning)
            try:
                svmlab.LinearSVM().fit(np.random.default_rng(0).normal(size=(20, 2)), (np.arange(20) % 2)[:, None])
                caught = False
            except sklearn.exceptions.DataConversionWarning:
                caught = True
        import json
        print(json.dumps(dict(pickled=isinstance(again, svmlab.NotFittedError), caught=caught)))
        """)
    assert _run(code) == {"pickled": True, "caught": True}


def test_pickled_not_fitted_error_crosses_processes():
    import sklearn.exceptions

    with pytest.raises(sklearn.exceptions.NotFittedError) as info:
        LinearSVM().predict(np.zeros((2, 2)))
    assert isinstance(pickle.loads(pickle.dumps(info.value)), svmlab.NotFittedError)


def test_no_writable_numba_cache_still_fits(tmp_path):
    """NUMBA_CACHE_DIR, the package's folders and HOME unwritable (each path runs through a
    regular file, so no folder can be made there, root or not): a fit works, with one warning."""
    import shutil

    package = tmp_path / "svmlab"
    shutil.copytree(REPO / "svmlab", package, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("", "solvers", "distributed"):
        (package / folder / "__pycache__").write_text("a file, not a folder")
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(blocked / "cache"), HOME=str(blocked / "home"), XDG_CACHE_HOME="",
               PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    code = ("import warnings, numpy as np\nwith warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n    import svmlab\n"
            "    X = np.random.default_rng(0).normal(size=(30, 2)); y = (X[:, 0] > 0).astype(int)\n"
            "    print(svmlab.__file__, svmlab.LinearSVM().fit(X, y).score(X, y), sum('NUMBA_CACHE_DIR' in str(m.message) for m in w))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    path, score, warned = done.stdout.split()
    assert path.startswith(str(tmp_path)) and float(score) > 0.9 and warned == "1"


SOLVERS = [(LinearSVM, dict(solver=s)) for s in ("dcd", "subgradient", "dual_gradient", "sdca", "pegasos")] + [
    (KernelSVM, dict(solver="smo")), (KernelSVM, dict(solver="dcd", fit_intercept=False)),
    (KernelSVM, dict(solver="dual_gradient"))]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(solver=st.sampled_from(range(len(SOLVERS))), scale_exp=st.integers(-150, 150), C_exp=st.integers(-12, 300),
       twist=st.sampled_from(["none", "duplicates", "opposite", "zero column"]), seed=st.integers(0, 3))
def test_property_extreme_scales_and_degenerate_points(solver, scale_exp, C_exp, twist, seed):
    """Random scalings of X (1e-150..1e150) and of C (1e-12..1e300), duplicated and opposite
    points, an all-zero column: every solver ends with a finite model (and a warning where it
    is not certified) or a ValueError."""
    cls, params = SOLVERS[solver]
    r = np.random.default_rng(seed)
    X = r.normal(size=(16, 3))
    y = (X[:, 0] + 0.3 * r.normal(size=16) > 0).astype(int)
    if twist == "duplicates":
        X[8:], y[8:] = X[:8], 1 - y[:8]
    elif twist == "opposite":
        X[8:], y[8:] = -X[:8], 1 - y[:8]
    elif twist == "zero column":
        X[:, 1] = 0.0
    model = cls(C=10.0 ** C_exp, max_iter=30, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning is an allowed outcome
        try:
            model.fit(X * 10.0 ** scale_exp, y)
        except ValueError:
            return
    values = [model.intercept_, model.alpha_] + ([model.coef_] if hasattr(model, "coef_") else [])
    assert all(np.isfinite(v).all() for v in values)
