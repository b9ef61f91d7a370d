"""The Q-matrix interface (svmlab.solvers.qmatrix): columns and diagonal of the classification
and of the epsilon-SVR dual, as the solvers see them through the cache."""

import numpy as np
import pytest

from svmlab import datasets
from svmlab.kernel_rows import prepare
from svmlab.kernels import kernel_matrix, make_kernel
from svmlab.solvers import kernel_cache, qmatrix


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_columns_and_diagonal_are_those_of_q(task):
    """Q_jk = s_j s_k K(x_(j mod n), x_(k mod n)) entry for entry, over every variable, full and
    on a shrunk active set, and Q_jj on the diagonal."""
    X, y = datasets.make_random(40, 5, random_state=0)
    kernel = make_kernel("rbf", X)
    K = kernel_matrix(kernel, X, X)
    if task == "classification":
        s, Kfull = y, K
    else:
        s, Kfull = qmatrix.regression_signs(len(y)), np.block([[K, K], [K, K]])
    expected = s[:, None] * Kfull * s[None, :]
    m = len(s)
    cache = kernel_cache.new_cache(m, 1.0)
    kr = prepare(X, kernel)
    Q = qmatrix.classification(cache, kr, y) if task == "classification" else qmatrix.regression(cache, kr)
    np.testing.assert_array_equal(Q.s, s)
    order, work = np.arange(m), np.zeros(X.shape[1])
    for j in (0, 7, m - 1):
        np.testing.assert_allclose(qmatrix.q_full_column(Q, j, order, work), expected[:, j], rtol=1e-12, atol=1e-15)
        assert qmatrix.q_diag(Q, j) == pytest.approx(expected[j, j], rel=1e-12)
    active = order[::-1].copy()  # a permuted order; the first half is the active set
    kernel_cache.new_generation(cache)
    col = qmatrix.q_column(Q, 3, active, m // 2, work)
    np.testing.assert_allclose(col[cache.pos[active[:m // 2]]], expected[active[:m // 2], 3], rtol=1e-12, atol=1e-15)
