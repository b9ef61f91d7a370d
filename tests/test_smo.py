"""SMO and bias-free kernel DCD (chapter 5): parity with LIBSVM, KKT, cache, degenerate data."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

import svmlab
from svmlab import datasets
from svmlab.kernel_rows import column, prepare
from svmlab.kernels import kernel_matrix, make_kernel
from svmlab.solvers import KernelProblem, dual_state, kernel_cache, qmatrix, smo
from svmlab.solvers.coordinate import Stop
from svmlab.trace import Recorder

from svmlab.reference import smo as ref

SELECTIONS = ("second_order", "max_violating", "random")
KERNELS = {"linear": {}, "poly": {"degree": 3, "coef0": 1.0}, "rbf": {}}


def _toy():
    return datasets.make_toy(160, random_state=1)


def _cancer():
    X, y = datasets.load_breast_cancer()
    return X[:300], y[:300]


def _digits():
    return datasets.load_digits_1v7()


def _random():
    return datasets.make_random(200, 10, random_state=3)


DATA = {"toy": _toy, "cancer": _cancer, "digits": _digits, "random": _random}


def _svc_alpha(svc, n):
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", svmlab.ConvergenceWarning)
        return svmlab.KernelSVM(**params).fit(X, y)


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("kernel", KERNELS)
def test_parity_with_libsvm(data, kernel):
    """Dual objective to 1e-6 relative, bias to 1e-4, same predictions (and support for the
    positive definite RBF kernel, where the solution is unique), for every selection rule."""
    X, y = DATA[data]()
    X_train, X_test, y_train, _ = datasets.train_test_split(X, y, test_size=0.3, random_state=0)
    params = dict(C=1.0, kernel=kernel, tol=1e-6, **KERNELS[kernel])
    models = {rule: _fit(X_train, y_train, selection=rule, random_state=0, **params) for rule in SELECTIONS}
    gamma = models["second_order"]._kernel.gamma
    svc = SVC(gamma=gamma, cache_size=50, **params).fit(X_train, y_train)
    problem = svmlab.SVMProblem(X_train, y_train, C=1.0, bias="free", kernel=kernel, gamma=gamma, **KERNELS[kernel])
    d_ref = problem.dual(_svc_alpha(svc, len(y_train)))
    f_ref = svc.decision_function(X_test)
    clear = np.abs(f_ref) > 1e-4  # points that are not on the boundary to rounding
    for rule, model in models.items():
        assert problem.dual(model.alpha_) == pytest.approx(d_ref, rel=1e-6), rule
        assert model.intercept_[0] == pytest.approx(svc.intercept_[0], abs=1e-4), rule
        np.testing.assert_allclose(model.decision_function(X_test), f_ref, atol=1e-4 * max(1.0, np.abs(f_ref).max()))
        assert np.array_equal(model.predict(X_test)[clear], svc.predict(X_test)[clear]), rule
        if kernel == "rbf":
            assert np.array_equal(model.support_, np.sort(svc.support_)), rule


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("rule", SELECTIONS)
def test_kkt_equality_and_gap_at_the_solution(rule, shrinking):
    X, y = datasets.load_breast_cancer()
    model = _fit(X, y, C=10.0, tol=1e-6, selection=rule, shrinking=shrinking, random_state=1)
    problem = svmlab.SVMProblem(X, y, C=10.0, bias="free", kernel="rbf", gamma=model._kernel.gamma)
    y_pm = np.where(y > 0, 1.0, -1.0)
    assert abs(model.alpha_ @ y_pm) <= 1e-12 * model.alpha_.sum()
    assert problem.kkt_violation(model.alpha_) <= 1e-6
    assert 0.0 <= problem.gap(model.alpha_, model.intercept_[0]) <= 1e-6 * problem.dual(model.alpha_)
    assert model.intercept_[0] == pytest.approx(problem.bias_from_alpha(model.alpha_), abs=1e-9)


def test_numba_smo_follows_the_reference():
    X, y = datasets.make_toy(120, random_state=2)
    kernel = make_kernel("rbf", X)
    Q = y[:, None] * kernel_matrix(kernel, X, X) * y[None, :]
    alpha_ref, b_ref, _ = ref.smo(Q, y, np.full(len(y), 2.0), tol=1e-9)
    model = _fit(X, y, C=2.0, tol=1e-9, selection="max_violating", shrinking=False)
    np.testing.assert_allclose(model.alpha_, alpha_ref, atol=1e-7)
    assert model.intercept_[0] == pytest.approx(b_ref, abs=1e-8)


def test_squared_hinge_matches_the_reference():
    X, y = datasets.make_toy(100, random_state=4)
    model = _fit(X, y, C=0.5, loss="squared_hinge", tol=1e-9)
    Q = y[:, None] * kernel_matrix(model._kernel, X, X) * y[None, :]
    alpha_ref, b_ref, _ = ref.smo(Q, y, np.full(len(y), 0.5), loss="squared_hinge", tol=1e-9)
    np.testing.assert_allclose(model.alpha_, alpha_ref, atol=1e-7)
    assert model.intercept_[0] == pytest.approx(b_ref, abs=1e-7)


def _run(X, y, C=1.0, every=0, **options):
    """smo.run on the hinge with a free bias: (SolverResult, SMOInfo)."""
    problem = KernelProblem(X, make_kernel("rbf", X), y, np.full(len(y), C), 0, True)
    buf = Recorder(every, 1000, len(y), 0).buffers
    return smo.run(problem, Stop(1e-6, 1000), buf, np.random.default_rng(0), **options)


def test_cache_size_changes_the_work_not_the_result():
    """Single-precision columns (caches too small for all of Q) give the same result whatever
    their number; double precision (all of Q fits) agrees with them to float32 rounding."""
    X, y = datasets.load_breast_cancer()
    (tiny, info_tiny), (small, info_small), (full, info_full) = [_run(X, y, cache_size=mb) for mb in (1e-9, 0.1, 1e6)]
    assert np.array_equal(small.alpha, tiny.alpha) and small.b == tiny.b
    assert info_tiny.kernel_evaluations > info_small.kernel_evaluations > info_full.kernel_evaluations
    assert info_full.cache_misses <= len(y) < info_tiny.cache_misses
    problem = svmlab.SVMProblem(X, y, C=1.0, bias="free", kernel="rbf")
    assert problem.dual(tiny.alpha) == pytest.approx(problem.dual(full.alpha), rel=1e-6)
    assert tiny.b == pytest.approx(full.b, abs=1e-5)
    assert np.array_equal(tiny.alpha > 0, full.alpha > 0)


def test_a_run_on_the_pool_of_an_earlier_run_gives_the_same_result():
    """The pool a run leaves (kernel_cache.opened) holds the earlier data's columns; the next
    run reuses the memory but never reads them."""
    (X1, y1), (X2, y2) = _random(), _toy()

    def run(X, y):
        return _run(X, y, cache_size=0.05)[0]

    kernel_cache._SPARE.clear()
    alone = run(X2, y2)
    run(X1, y1)
    spare = kernel_cache._SPARE[0]
    with kernel_cache.opened(len(y2), 0.05) as cache:
        assert np.shares_memory(cache.pool, spare) and not kernel_cache._SPARE  # taken, not shared
    after = run(X2, y2)
    np.testing.assert_array_equal(after.alpha, alone.alpha)
    assert after.b == alone.b


def test_a_cache_that_holds_all_of_q_has_no_places():
    """The pool holds all of Q in float64 exactly when every column fits (kernel_cache.layout). Such
    a cache has no places (pos None: entry k at k, read without a lookup), and its slots keep their
    full length, as should_fit never asks to shorten them; a smaller pool stores float32 columns
    with places."""
    n = 50
    whole = kernel_cache.new_cache(n, 8 * n * n / kernel_cache.MB)
    part = kernel_cache.new_cache(n, 0.99 * 8 * n * n / kernel_cache.MB)
    assert whole.pool.dtype == np.float64 and whole.pos is None
    assert part.pool.dtype == np.float32 and np.array_equal(part.pos, np.arange(n))
    assert not any(kernel_cache.should_fit(whole, active) for active in range(n + 1))


def test_shortened_cache_slots_keep_every_entry():
    """After fit_to_active, cached columns read through pos, and full columns, hold the values
    of Q (rounded to the pool's float32) for the samples they cover."""
    X, y = _random()
    n = len(y)
    kr = prepare(X, make_kernel("rbf", X))
    Q = np.empty((n, n), dtype=np.float32)
    for j in range(n):  # the kernel's own columns (see tests/test_kernel_rows.py)
        out = np.empty(n)
        column(kr, j, np.arange(n), 0, n, np.zeros(X.shape[1]), out)
        Q[:, j] = out * y * y[j]
    cache = kernel_cache.new_cache(n, 4 * n * 10 / kernel_cache.MB)  # ten float32 columns
    order, work = np.random.default_rng(0).permutation(n), np.zeros(X.shape[1])
    for j in order[:6]:
        kernel_cache.get_column(cache, kr, y, j, order, n, work)
    active = 60
    assert kernel_cache.should_fit(cache, active)
    kernel_cache.fit_to_active(cache, order, active)
    assert cache.state[kernel_cache.LENGTH] == active and cache.state[kernel_cache.SLOTS] == 10 * n // active
    assert sorted(cache.pos[order[:active]]) == list(range(active)) and np.all(cache.pos[order[active:]] == -1)
    hits = cache.state[kernel_cache.HITS]
    for j in order[:6]:  # still cached: no kernel evaluation
        col = kernel_cache.slot_view(cache, kernel_cache.get_column(cache, kr, y, j, order, active, work))
        np.testing.assert_array_equal(col[cache.pos[order[:active]]], Q[order[:active], j])
    assert cache.state[kernel_cache.HITS] == hits + 6
    for j in order[:30]:  # more columns than the old slots held, each full one exact
        full = kernel_cache.full_view(cache, kernel_cache.get_full_column(cache, kr, y, j, order, work))
        np.testing.assert_array_equal(full, Q[:, j])
    kernel_cache.new_generation(cache)  # every sample gets its place back
    assert cache.state[kernel_cache.LENGTH] == n and np.array_equal(cache.pos, np.arange(n))


@pytest.mark.parametrize("case", ["opposite_duplicates", "zero_column", "all_identical"])
@pytest.mark.parametrize("rule", SELECTIONS)
def test_degenerate_data_neither_crashes_nor_loops(case, rule):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    if case == "opposite_duplicates":
        X[20:30] = X[:10]
        y[20:30] = -y[:10]
    elif case == "zero_column":
        X[:5] = 0.0  # with the linear kernel K(x_i, .) = 0 for these rows
    else:
        X[:] = 1.0
        y[::2] = -1.0
        y[1::2] = 1.0
    model = _fit(X, y, kernel="linear", C=1.0, tol=1e-6, selection=rule, random_state=0)
    problem = svmlab.SVMProblem(X, y, C=1.0, bias="free", kernel="linear")
    assert np.isfinite(model.alpha_).all() and np.isfinite(model.intercept_).all()
    assert problem.kkt_violation(model.alpha_) <= 1e-6


def test_pair_step_is_the_exact_clipped_minimiser():
    rng = np.random.default_rng(6)
    for _ in range(200):
        yi, yj = rng.choice([-1.0, 1.0], 2)
        ui, uj = rng.uniform(0.5, 2.0, 2)
        ai, aj = rng.choice([0.0, 1.0, rng.uniform()], 2) * (ui, uj)
        gi, gj = rng.normal(size=2)
        eta = rng.choice([0.0, rng.uniform(0.1, 3.0)])
        new_i, new_j = smo.pair_step(ai, aj, yi, yj, ui, uj, gi, gj, eta)
        assert 0.0 <= new_i <= ui and 0.0 <= new_j <= uj
        assert yi * new_i + yj * new_j == pytest.approx(yi * ai + yj * aj, abs=1e-12)
        # f along the feasible segment: f(t) = (y_i g_i - y_j g_j) t + eta t^2 / 2
        t_new = yi * (new_i - ai)
        lo = max(-ai if yi > 0 else ai - ui, aj - uj if yj > 0 else -aj)
        hi = min(ui - ai if yi > 0 else ai, aj if yj > 0 else uj - aj)
        ts = np.linspace(lo, hi, 101)
        f = (yi * gi - yj * gj) * ts + 0.5 * eta * ts ** 2
        assert (yi * gi - yj * gj) * t_new + 0.5 * eta * t_new ** 2 <= f.min() + 1e-12


def test_status_marks_the_index_sets_of_the_selection():
    """State.status has UP set exactly for I_up and LOW exactly for I_low (eq. 5.9)."""
    X, y = _random()
    Ci = np.full(len(y), 2.0)
    for code, U in ((0, 2.0), (1, np.inf)):  # hinge: U = C; squared hinge: no upper bound
        Q = qmatrix.classification(kernel_cache.new_cache(len(y), 1.0), prepare(X, make_kernel("rbf", X)), y)
        prob = dual_state.Problem(Q, -np.ones(len(y)), Ci, code, True, None, 0.0)
        st = dual_state.new_state(prob)
        dual_state.begin(st, prob, 0, None, np.zeros(X.shape[1]))
        for k, a in enumerate(np.resize([0.0, 1.0, U if U < np.inf else 5.0], len(y))):
            dual_state.set_alpha(st, y, k, a)
        in_up = ((y > 0) & (st.alpha < U)) | ((y < 0) & (st.alpha > 0))
        in_low = ((y > 0) & (st.alpha > 0)) | ((y < 0) & (st.alpha < U))
        assert np.array_equal(st.status & dual_state.UP > 0, in_up)
        assert np.array_equal(st.status & dual_state.LOW > 0, in_low)


def test_sparse_input_gives_the_dense_solution():
    X, y = datasets.make_toy(80, random_state=8)
    dense = _fit(X, y, tol=1e-8)
    sparse = _fit(sp.csr_matrix(X), y, tol=1e-8)
    np.testing.assert_allclose(sparse.alpha_, dense.alpha_, atol=1e-10)


def test_trace_records_updates_and_ends_at_the_solution():
    X, y = datasets.make_toy(60, random_state=9)
    model = _fit(X, y, C=5.0, trace=1, max_iter=2)  # 2 epochs: rows for ~120 updates, then thinned
    tr = model.trace_
    problem = svmlab.SVMProblem(X, y, C=5.0, bias="free", kernel="rbf", gamma=model._kernel.gamma)
    assert tr.epoch[0] == 0 and np.all(np.diff(tr.epoch) > 0)
    assert tr.dual[-1] == pytest.approx(problem.dual(model.alpha_), rel=1e-12)
    assert np.all(np.diff(tr.dual) >= -1e-12)  # SMO never decreases D
    assert tr.kkt[-1] < 1e-3 <= tr.kkt[0]
    assert tr.snapshot_intercept[-1] == pytest.approx(model.intercept_[0])
    np.testing.assert_array_equal(tr.snapshot_alpha[-1], model.alpha_)


def test_max_iter_warns_and_counts_epochs():
    X, y = datasets.load_breast_cancer()
    with pytest.warns(svmlab.ConvergenceWarning):
        model = svmlab.KernelSVM(C=100.0, tol=1e-8, max_iter=1).fit(X, y)
    assert model.n_iter_ == 1


def test_options_are_validated():
    X, y = datasets.make_toy(30)
    for params, name in [({"selection": "best"}, "selection"), ({"cache_size": 0}, "cache_size"),
                         ({"shrinking": "yes"}, "shrinking"), ({"fit_intercept": False}, "dcd")]:
        with pytest.raises(ValueError, match=name):
            svmlab.KernelSVM(**params).fit(X, y)
    with pytest.raises(ValueError, match="smo"):
        svmlab.KernelSVM(solver="dcd").fit(X, y)


def test_arrays_of_the_caller_are_not_modified():
    X, y = datasets.make_toy(50)
    X0, y0 = X.copy(), y.copy()
    _fit(X, y, trace=True)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)


@pytest.mark.parametrize("shrinking", [True, False])
def test_kernel_dcd_reaches_the_bias_free_optimum(shrinking):
    X, y = datasets.make_toy(120, random_state=10)
    model = _fit(X, y, C=3.0, solver="dcd", fit_intercept=False, tol=1e-8, shrinking=shrinking, random_state=0)
    problem = svmlab.SVMProblem(X, y, C=3.0, bias="none", kernel="rbf", gamma=model._kernel.gamma)
    Q = problem.Q()
    alpha_ref = ref.dcd(Q, np.full(len(y), 3.0), tol=1e-10)
    assert problem.dual(model.alpha_) == pytest.approx(problem.dual(alpha_ref), rel=1e-9)
    assert problem.kkt_violation(model.alpha_) <= 1e-7
    assert model.intercept_[0] == 0.0


def test_selection_codes_follow_the_registry_choices():
    assert [svmlab.solvers.SELECTIONS.index(name) for name in ("second_order", "max_violating", "random")] == \
        [smo.SECOND_ORDER, smo.MAX_VIOLATING, smo.RANDOM]


def test_trace_names_its_unit_and_records_the_intercept():
    """SMO's trace counts pair updates (Trace.unit) and holds b in its intercept column, the
    snapshots' intercepts among them; kernel DCD's counts epochs over the active set (shrinking,
    the default) or over the data, with b = 0."""
    X, y = datasets.make_toy(60, random_state=9)
    tr = _fit(X, y, C=5.0, trace=3).trace_
    assert tr.unit == "pair update" and "pair updates" in repr(tr)
    assert np.isfinite(tr.intercept).all() and tr.snapshot_coef.shape == (len(tr.snapshot_epoch), 0)
    at_snapshots = np.isin(tr.epoch, tr.snapshot_epoch)
    np.testing.assert_array_equal(tr.intercept[at_snapshots], tr.snapshot_intercept)
    dcd = _fit(X, y, solver="dcd", fit_intercept=False, trace=True).trace_
    assert dcd.unit == "active-set epoch" and np.all(dcd.intercept == 0.0) and np.all(dcd.snapshot_intercept == 0.0)
    assert _fit(X, y, solver="dcd", fit_intercept=False, shrinking=False, trace=True).trace_.unit == "epoch"


def test_convergence_plot_labels_its_x_axis_by_the_trace_unit():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from svmlab import plots

    X, y = datasets.make_toy(60, random_state=9)
    ax = plots.plot_convergence(_fit(X, y, trace=True).trace_, field="kkt")
    assert ax.get_xlabel().startswith("pair updates")
    shrinking = svmlab.LinearSVM(trace=True).fit(X, y).trace_
    whole = svmlab.LinearSVM(shrinking=False, trace=True).fit(X, y).trace_
    assert plots.plot_convergence(shrinking).get_xlabel() == "epoch (passes over the active set)"
    assert plots.plot_convergence(whole).get_xlabel() == "epoch (passes over the data)"
    both = plots.plot_convergence({"shrinking": shrinking, "not": whole}).get_xlabel()
    assert both == "epoch (passes over the data; with shrinking, over the active set)"
    plt.close("all")


def test_start_from_clips_rebalances_and_builds_the_gradient():
    """The warm start of SMO (dual_state.begin, through start_from): alpha0 clipped to a smaller box breaks
    y'alpha = 0; the class of the larger sum is scaled down until it holds, zeros stay zero, and
    G = Q-bar alpha - e and G_bar = sum over bounded j of U_j Q_:j are those of the new alpha."""
    X, y = _random()
    n = len(y)
    kr = prepare(X, make_kernel("rbf", X))
    alpha0 = np.where(np.arange(n) % 3 == 0, 0.0, np.linspace(0.1, 2.0, n))
    alpha0[y < 0] *= (alpha0 @ (y > 0)) / (alpha0 @ (y < 0))  # y'alpha0 = 0 before the clipping
    Q = qmatrix.classification(kernel_cache.new_cache(n, 10.0), kr, y)
    Ci = np.full(n, 1.0)
    prob = dual_state.Problem(Q, -np.ones(n), Ci, 0, True, None, 0.0)
    st = dual_state.new_state(prob)
    dual_state.begin(st, prob, 0, alpha0, np.zeros(X.shape[1]))  # calls start_from
    alpha = st.alpha
    assert abs(alpha @ y) <= 1e-14 * alpha.sum() and abs(np.minimum(alpha0, 1.0) @ y) > 1.0
    assert np.all((alpha >= 0) & (alpha <= 1.0)) and np.array_equal(alpha == 0, alpha0 == 0)
    heavy = 1.0 if np.minimum(alpha0, 1.0) @ y > 0 else -1.0  # its alphas scaled, the others only clipped
    np.testing.assert_array_equal(alpha[y != heavy], np.minimum(alpha0, 1.0)[y != heavy])
    K = kernel_matrix(make_kernel("rbf", X), X, X)
    Qd = y[:, None] * K * y[None, :]
    np.testing.assert_allclose(st.G, Qd @ alpha - 1.0, atol=1e-12)
    np.testing.assert_allclose(st.G_bar, Qd @ np.where(alpha >= 1.0, 1.0, 0.0), atol=1e-12)
