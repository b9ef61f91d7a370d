"""The row helpers of svmlab.rows against their readable versions (svmlab.reference.rows)."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from svmlab.reference.rows import dot
from svmlab.rows import row_dot


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
