"""CoCoA+ on Dask (svmlab.distributed): parity with the single-machine solver, the certificate,
one block = DCD, a worker lost mid-fit, and the input checks."""

import os
import signal
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from svmlab import LinearSVM as SingleMachine  # noqa: E402
from svmlab import ConvergenceWarning, SVMProblem, datasets  # noqa: E402
from svmlab.distributed import LinearSVM  # noqa: E402
from svmlab.distributed import cocoa  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def client():
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as c:
        yield c


def _data(n=300):
    X, y = datasets.make_toy(n, random_state=1)
    return X, y


def _primal(model, X, y, C=1.0, loss="hinge"):
    problem = SVMProblem(X, y, C, loss, "regularized")
    return problem, problem.primal(model.coef_, model.intercept_)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("sparse", [False, True])
def test_primal_matches_the_single_machine_solver(client, loss, sparse):
    X, y = _data()
    Xs = sp.csr_matrix(X) if sparse else X
    ours = LinearSVM(C=1.0, loss=loss, tol=5e-7, max_rounds=2000, local_passes=3.0, random_state=0).fit(Xs, y)
    reference = SingleMachine(C=1.0, loss=loss, tol=1e-10, max_iter=100_000).fit(X, y)
    _, p = _primal(ours, X, y, loss=loss)
    _, p_ref = _primal(reference, X, y, loss=loss)
    assert abs(p - p_ref) <= 1e-6 * p_ref


@pytest.mark.parametrize("aggregation", ["adding", "averaging"])
@pytest.mark.parametrize("local_solver", ["dcd", "sdca"])
def test_the_returned_model_is_certified(client, aggregation, local_solver):
    X, y = _data()
    tol = 1e-4
    model = LinearSVM(tol=tol, max_rounds=3000, aggregation=aggregation, local_solver=local_solver,
                      random_state=1, trace=True).fit(X, y)
    problem, p = _primal(model, X, y)
    w, _ = problem.w_from_alpha(model.alpha_)
    assert np.allclose(w, model.coef_[0], rtol=1e-9, atol=1e-12)  # w is the sum of its blocks' A_k alpha_k
    assert p - problem.dual(model.alpha_) <= tol * p
    assert np.all(np.diff(model.trace_.dual) >= -1e-9 * abs(model.trace_.dual[-1]))  # the dual never falls
    assert "current distributed.Client" in model.trace_.cluster


def test_one_block_takes_the_steps_of_dcd(client):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # neither is asked to converge in 7 rounds / epochs
        ours = LinearSVM(tol=1e-12, max_rounds=7, n_blocks=1, random_state=3).fit(X, y)
        dcd = SingleMachine(tol=1e-12, max_iter=7, shrinking=False, random_state=3).fit(X, y)
    assert ours.n_iter_ == 7
    np.testing.assert_allclose(ours.alpha_, dcd.alpha_, rtol=0, atol=1e-12)
    assert not np.allclose(ours.alpha_, LinearSVM(tol=1e-12, max_rounds=7, n_blocks=1, random_state=4)
                           .fit(X, y).alpha_)  # the seed matters, so the match above is not a coincidence


def test_several_classes_are_one_vs_rest(client):
    X, y = datasets.make_toy(240, random_state=2)
    labels = np.where(X[:, 0] > np.median(X[:, 0]), 2, 0) + (y > 0)
    ours = LinearSVM(tol=1e-6, max_rounds=3000, local_passes=3.0, random_state=0).fit(X, labels)
    reference = SingleMachine(tol=1e-10, max_iter=100_000).fit(X, labels)
    assert ours.coef_.shape == (4, 2) and list(ours.classes_) == [0, 1, 2, 3]
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=1e-3, atol=1e-4)
    assert (ours.predict(X) == reference.predict(X)).mean() > 0.99


@pytest.mark.parametrize("sparse", [False, True])
def test_a_dask_array_is_fitted_block_by_block(client, sparse):
    X, y = _data()
    blocks = da.from_array(sp.csr_matrix(X), chunks=(100, 2), asarray=False) if sparse else da.from_array(
        X, chunks=(100, 2))
    ours = LinearSVM(tol=5e-7, max_rounds=2000, local_passes=3.0, random_state=0, trace=True).fit(
        blocks, da.from_array(y, chunks=100))
    assert "3 blocks" in ours.trace_.cluster
    reference = SingleMachine(tol=1e-10, max_iter=100_000).fit(X, y)
    assert abs(_primal(ours, X, y)[1] - _primal(reference, X, y)[1]) <= 1e-6 * _primal(reference, X, y)[1]


@pytest.mark.parametrize("X, y, message", [
    (lambda X, y: da.from_array(X, chunks=(100, 1)), lambda X, y: y, "chunk it by rows only"),
    (lambda X, y: da.from_array(X, chunks=(100, 2)), lambda X, y: da.from_array(y, chunks=150), "rechunk"),
    (lambda X, y: da.from_array(np.where(np.arange(300)[:, None] == 7, np.nan, X), chunks=(100, 2)),
     lambda X, y: y, "NaN or infinity"),
    (lambda X, y: da.from_array(X, chunks=(100, 2)), lambda X, y: np.where(np.arange(300) == 3, np.nan, y),
     "NaN or infinity"),
])
def test_bad_dask_input_is_refused_clearly(client, X, y, message):
    X0, y0 = _data()
    with pytest.raises(ValueError, match=message):
        LinearSVM().fit(X(X0, y0), y(X0, y0))


@pytest.mark.parametrize("stage, at, known", [("run", 1, False), ("_round", 3, False), ("_round", 3, True),
                                              ("_finish", 1, False)])
def test_a_worker_lost_and_the_fit_is_still_certified(monkeypatch, stage, at, known):
    """A worker killed (SIGKILL, as a machine dies) at the start of the fit, in its third round, or
    while the result is gathered: the block restarts elsewhere and the fit is certified. With
    ``known`` the round begins only once the scheduler knows of the loss, when Dask's actor
    refuses the call itself rather than failing its future."""
    X, y = _data(400)
    tol = 1e-4  # 131 rounds
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      worker_dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        calls = {"n": 0}
        original = getattr(cocoa.CoCoA, stage)

        def killing_first(self, *args):
            calls["n"] += 1
            if calls["n"] == at:  # kill the worker holding block 0
                holder = self.blocks[0]._address
                os.kill(c.run(os.getpid, workers=[holder])[holder], signal.SIGKILL)
                deadline = time.monotonic() + 30
                while known and self.blocks[0]._future.status == "finished" and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert not known or self.blocks[0]._future.status == "error"
            return original(self, *args)

        monkeypatch.setattr(cocoa.CoCoA, stage, killing_first)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)  # certified, not stopped by max_rounds
            model = LinearSVM(tol=tol, max_rounds=5000, local_passes=3.0, random_state=0, trace=True).fit(X, y)
    assert model.trace_.events and "restarted" in model.trace_.events[0][1]
    problem, p = _primal(model, X, y)
    w, _ = problem.w_from_alpha(model.alpha_)
    assert np.allclose(w, model.coef_[0], rtol=1e-9, atol=1e-12)
    assert p - problem.dual(model.alpha_) <= tol * p


def test_a_worker_lost_just_before_the_fit_is_avoided():
    """A worker killed (SIGKILL) just before a fit, when the scheduler has not heard of it yet: the
    block sent to it is placed again on a live worker (cocoa.place_block), and the fit is certified."""
    X, y = _data(400)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      worker_dashboard_address=":0") as cluster, Client(cluster) as c:
        pids = c.run(os.getpid)
        os.kill(pids[min(pids)], signal.SIGKILL)  # two blocks, one on each worker: one goes to the dead one
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model = LinearSVM(tol=1e-4, max_rounds=5000, local_passes=3.0, random_state=0).fit(X, y)
    problem, p = _primal(model, X, y)
    assert p - problem.dual(model.alpha_) <= 1e-4 * p


def test_without_a_client_it_starts_its_own_cluster():
    X, y = _data(100)
    model = LinearSVM(tol=1e-3, max_rounds=500, trace=True).fit(X, y)
    assert "started for this fit" in model.trace_.cluster
