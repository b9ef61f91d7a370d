"""The row helpers of svmlab.rows against their readable versions (svmlab.reference.rows)."""

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from numba.core.errors import TypingError

from svmlab.reference.rows import dot
from svmlab.rows import as_rows, row_dot, spectral_norm_sq


@njit
def _row_dot(X, i, w, B):
    return row_dot(X, i, w, B)


def _in_order(x, w):
    s = 0.0
    for a, b in zip(x, w):
        s += a * b
    return s


@pytest.mark.parametrize("d", list(range(14)) + [37, 100, 784])
def test_dense_row_dot_adds_as_the_reference(d):
    """A dense row's x . w + B w_d is the reference's sum to the last bit, at every length: the
    whole groups of four in the vector's lanes, the tail, the bias feature last."""
    rng = np.random.default_rng(d)
    X, w = rng.normal(size=(5, d)), rng.normal(size=d + 1)
    for B in (0.0, 2.0):
        for i in range(5):
            x = list(X[i]) + ([B] if B else [])
            assert _row_dot(X, i, w, B) == dot(x, list(w), d)


def test_the_reference_order_is_not_one_running_sum():
    """The comparison above can fail: on rows of 100 features, four running sums and one give
    different last bits for most rows."""
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(50, 100)), rng.normal(size=100)
    differ = sum(dot(list(x), list(w), 100) != _in_order(x, w) for x in X)
    assert differ > 25


def test_strided_vectors_are_refused_at_compile_time():
    """The lanes are loaded four consecutive floats at a time, so a strided w is a typing error,
    not a wrong sum."""
    X, w = np.ones((2, 8)), np.ones(18)[::2]
    with pytest.raises(TypingError):
        _row_dot(X, 0, w, 0.0)


@pytest.mark.parametrize("shape", [(60, 3), (3, 60), (400, 120), (120, 400), (1200, 1100)])
@pytest.mark.parametrize("B", [0.0, 1.0, 2.5])
def test_spectral_norm_sq_is_the_largest_eigenvalue_with_the_bias_column(shape, B):
    """Exact (the small Gram matrix) for a dense side of at most 1000, power iteration beyond it
    and for CSR; each against LAPACK's norm of X with the bias column appended."""
    X = np.random.default_rng(sum(shape)).normal(size=shape)
    A = np.hstack([X, np.full((shape[0], 1), B)])
    exact = np.linalg.norm(A, 2) ** 2
    assert spectral_norm_sq(X, B) == pytest.approx(exact, rel=1e-12 if min(A.shape) <= 1000 else 1e-3)
    assert spectral_norm_sq(as_rows(sp.csr_matrix(X)), B) == pytest.approx(exact, rel=1e-3)


def test_spectral_norm_sq_of_huge_data_is_inf_and_of_zero_data_zero():
    X = np.full((5, 3), 1e200)
    assert spectral_norm_sq(X, 1.0) == np.inf and spectral_norm_sq(np.zeros((5, 3)), 1.0) == 5.0
    assert spectral_norm_sq(np.zeros((5, 3)), 0.0) == 0.0
