"""Kernel columns inside numba (chapter 5, eq. 5.1) and the exponential they use."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

import svmlab
from svmlab import datasets
from svmlab.kernel_rows import _argument, _transform, column, diagonal, exp, prepare
from svmlab.kernels import kernel_matrix, make_kernel
from svmlab.rows import as_rows, four_row_dots, row_dot


@njit
def _exp_all(x):
    out = np.empty_like(x)
    for t in range(x.shape[0]):
        out[t] = exp(x[t])
    return out


@njit
def _numba_diagonal(kr):
    """K(x_i, x_i) as the numba kernels compute a kernel value from x_i.x_i = |x_i|^2."""
    out = np.empty_like(kr.sqnorm)
    for i in range(out.shape[0]):
        out[i] = _transform(kr, _argument(kr, kr.sqnorm[i], i, i))
    return out


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_numpy_diagonal_is_the_numba_kernels_bit_for_bit(kernel):
    """kernel_rows.diagonal (NumPy, for the solvers' Q_ii) is what the numba kernels compute, to the
    last bit, and K(x, x) of the kernel matrix: 1 for rbf, |x|^2 for linear."""
    X, _ = datasets.make_random(50, 7, random_state=3)
    k = make_kernel(kernel, X, gamma=0.37, degree=3, coef0=0.6)
    kr = prepare(X, k)
    d = diagonal(kr)
    np.testing.assert_array_equal(d, _numba_diagonal(kr))
    np.testing.assert_allclose(d, np.diag(kernel_matrix(k, X, X)), rtol=1e-13)
    if kernel != "poly":
        np.testing.assert_array_equal(d, 1.0 if kernel == "rbf" else kr.sqnorm)


def test_exp_is_within_one_unit_in_the_last_place_of_libm():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-745.0, 709.0, 200_000), rng.uniform(-1.0, 1.0, 100_000),
                        rng.uniform(-745.2, -708.0, 20_000), -np.logspace(-300, 2, 1000)])
    libm = np.array([math.exp(v) for v in x])
    ulps = np.abs(_exp_all(x).view(np.int64) - libm.view(np.int64))
    assert ulps.max() <= 1 and (ulps == 0).mean() > 0.8


def test_exp_at_its_edges():
    x = np.array([0.0, -0.0, -np.inf, np.inf, np.nan, -746.0, -1e300, 710.0, 1e300, 709.78])
    out = _exp_all(x)
    assert out[0] == out[1] == 1.0 and out[2] == 0.0 and out[3] == np.inf and np.isnan(out[4])
    assert out[5] == out[6] == 0.0 and out[7] == out[8] == np.inf
    assert out[9] == pytest.approx(math.exp(709.78), rel=1e-15)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_numba_kernel_columns_equal_the_kernel_matrix(kernel):
    X, _ = datasets.make_random(30, 6, random_state=7)
    X[3, :3] = 0.0
    k = make_kernel(kernel, X, gamma=0.3, degree=3, coef0=0.5)
    K = kernel_matrix(k, X, X)
    index = np.random.default_rng(1).permutation(30)
    for data in (X, sp.csr_matrix(X)):
        kr = prepare(svmlab.validation.check_array(data), k)
        for j in (0, 3, 29):
            out = np.full(30, -7.0)
            column(kr, j, index, 5, 25, np.zeros(6), out)  # out[t] = K(x_index[t], x_j) for 5 <= t < 25
            np.testing.assert_allclose(out[5:25], K[index[5:25], j], rtol=1e-12, atol=1e-12)
            assert np.all(out[:5] == -7.0) and np.all(out[25:] == -7.0)


def test_rbf_clips_a_squared_distance_that_rounds_below_zero():
    """|x|^2 + |z|^2 - 2 x.z rounds to -3.6e-15 for these neighbours (one ulp apart): both RBF
    implementations clip it at 0, so K(x, z) = 1, not a value above 1."""
    x = np.array([0.2, 0.2, 2.9])
    X = np.array([x, np.nextafter(x, 10.0)])
    assert sum(svmlab.kernels.sqnorms(X)) - 2.0 * X[0] @ X[1] < 0.0
    k = make_kernel("rbf", X, gamma=1.0)
    out = np.empty(2)
    column(prepare(X, k), 1, np.arange(2), 0, 2, np.zeros(3), out)
    assert out[0] == kernel_matrix(k, X, X)[0, 1] == 1.0


@njit
def _dots(X, ks, w):
    """x_k . w for the four rows ks, one at a time (row_dot) and four at a time."""
    one = np.empty(4)
    for q in range(4):
        one[q] = row_dot(X, ks[q], w, 0.0)
    four = four_row_dots(X, ks[0], ks[1], ks[2], ks[3], w)
    return one, np.array(four)


def test_four_row_dots_are_row_dot_bit_for_bit():
    """A kernel column's dot products, four rows at a time, are summed in row_dot's order: the
    same floats, dense and CSR, with repeated rows too."""
    X, _ = datasets.make_random(60, 37, random_state=3)
    X[X < -0.5] = 0.0
    w = np.random.default_rng(4).normal(size=37)
    for data in (X, as_rows(sp.csr_matrix(X))):
        for ks in (np.arange(4), np.array([59, 3, 17, 40]), np.array([5, 5, 0, 5])):
            one, four = _dots(data, ks, w)
            assert np.array_equal(one, four)
