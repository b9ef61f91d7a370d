"""The numba SMO against the readable one (svmlab.reference.smo), update by update.

tests/test_smo.py compares the end points; here both take the same working set (i, j) at
every pair update and reach the same alpha after it, for both deterministic selection rules.
The numba run is KernelSVM's (no shrinking): its state advanced one update a slice, as
:mod:`svmlab.solvers.slices` would advance it (slicing leaves the iterates unchanged).
"""

import numpy as np
import pytest

import svmlab
from svmlab import datasets
from svmlab.kernel_rows import column, prepare
from svmlab.kernels import make_kernel
from svmlab.reference import smo as ref
from svmlab.solvers import KernelProblem, smo
from svmlab.solvers.coordinate import Stop
from svmlab.trace import Recorder

C, TOL, UPDATES = 10.0, 1e-10, 200


def _numba_updates(X, y, selection, count):
    """(pairs, alphas, alpha at the end): the working set and alpha after each of the first
    ``count`` pair updates of KernelSVM(C, tol=TOL, selection, shrinking=False)'s SMO, then
    its solution: KernelSVM's state (smo.start, cache_size 200: all of Q, in float64) advanced
    one update a slice."""
    n = len(y)
    problem = KernelProblem(X, make_kernel("rbf", X), y, np.full(n, C), 0, True)
    run = smo.start(problem, Stop(TOL, 1000), Recorder(0, 1, n, 0).buffers, np.random.default_rng(0),
                    shrinking=False, selection=selection, n_pairs=count)
    alphas = []
    while len(alphas) < count and not run.advance(1)[1]:
        alphas.append(run.st.alpha.copy())
    while not run.advance(10**6)[1]:
        pass
    return run.pairs[: len(alphas)], np.array(alphas), run.st.alpha


def _numba_Q(X, y):
    """Q as the numba kernel computes it, column by column (kernel_rows.column): the
    readable SMO on it adds the same numbers in the same order."""
    n = len(y)
    kr = prepare(X, make_kernel("rbf", X))
    K, out = np.empty((n, n)), np.empty(n)
    for j in range(n):
        column(kr, j, np.arange(n), 0, n, np.zeros(X.shape[1]), out)
        K[:, j] = out
    assert np.all(np.diag(K) == 1.0)  # Q_ii as SMO's diagonal has it (qmatrix.diagonal)
    return y[:, None] * K * y[None, :]


def _reference_updates(X, y, selection, count):
    """The same for the readable SMO."""
    steps = []
    ref.smo(_numba_Q(X, y), y, np.full(len(y), C), selection=selection, tol=TOL,
            each=lambda i, j, alpha: steps.append((i, j, alpha.copy())))
    return np.array([(i, j) for i, j, _ in steps[:count]]), np.array([alpha for _, _, alpha in steps[:count]])


def _toy():
    return datasets.make_toy(60, random_state=0)


def _duplicates():
    """Points repeated under both labels: eta_ij = 0 for these pairs, where TAU stands in."""
    X, y = _toy()
    X[50:], y[50:] = X[:10], -y[:10]
    return X, y


@pytest.mark.parametrize("data", [_toy, _duplicates])
@pytest.mark.parametrize("selection", ["second_order", "max_violating"])
def test_every_update_takes_the_reference_pair_and_step(selection, data):
    X, y = data()
    pairs, alphas, end = _numba_updates(X, y, selection, UPDATES)
    ref_pairs, ref_alphas = _reference_updates(X, y, selection, UPDATES)
    assert len(pairs) == len(ref_pairs) >= 100
    for t in range(len(pairs)):
        assert tuple(pairs[t]) == tuple(ref_pairs[t]), f"update {t}"
        np.testing.assert_allclose(alphas[t], ref_alphas[t], rtol=0, atol=1e-12, err_msg=f"update {t}")
    model = svmlab.KernelSVM(C=C, tol=TOL, solver="smo", selection=selection, shrinking=False).fit(X, y)
    np.testing.assert_array_equal(model.alpha_, end)  # the stepped state is the estimator's run
