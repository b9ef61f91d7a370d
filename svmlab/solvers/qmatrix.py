"""The matrix Q of a kernel dual, as SMO and kernel DCD see it (LIBSVM's ``QMatrix``).

The solvers ask two things of Q: column j over the active set, and the diagonal Q_jj; they
know nothing of kernels or of the cache. Both duals the book solves have the same form,

    Q_jk = s_j s_k K(x_(j mod n), x_(k mod n))

over m variables with signs s:

- classification (LIBSVM's ``SVC_Q``): m = n variables alpha, s = y;
- epsilon-SVR (LIBSVM's ``SVR_Q``): m = 2n variables, alpha then alpha^*, s = [+1]*n + [-1]*n,
  so variable j and j + n stand for the same sample (:func:`svmlab.kernel_rows.column` reads
  an index k >= n as sample k - n).

A :data:`QMatrix` holds the signs, the kernel and its data (:data:`svmlab.kernel_rows.KernelRows`)
and an LRU :mod:`kernel cache <svmlab.solvers.kernel_cache>` of columns of Q. Unlike LIBSVM's
``SVR_Q``, which caches n-length kernel columns and expands them with the signs, the cache here
holds m-length columns of Q itself, so SVR pays twice the kernel evaluations per miss.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from ..kernel_rows import sample, value
from .kernel_cache import get_column, get_full_column

QMatrix = namedtuple("QMatrix", "cache kr s")
QMatrix.__doc__ = """Q_jk = s_j s_k K(x_(j mod n), x_(k mod n)): the cache, the kernel rows, the signs s."""


def classification(cache, kr, y):
    """Q of the classification dual: Q_jk = y_j y_k K(x_j, x_k)."""
    return QMatrix(cache, kr, y)


def regression_signs(n):
    """The signs of epsilon-SVR's 2n variables (alpha, then alpha^*)."""
    return np.concatenate([np.ones(n), -np.ones(n)])


def regression(cache, kr):
    """Q of epsilon-SVR's 2n-variable dual (signs +1 for alpha, -1 for alpha^*)."""
    return QMatrix(cache, kr, regression_signs(kr.sqnorm.shape[0]))


@njit(cache=True)
def q_column(Q, j, order, active_size, work):
    """Column j of Q, valid on ``order[:active_size]``; entry k is at ``Q.cache.pos[k]``."""
    return get_column(Q.cache, Q.kr, Q.s, j, order, active_size, work)


@njit(cache=True)
def q_full_column(Q, j, order, work):
    """All of column j of Q, indexed by variable."""
    return get_full_column(Q.cache, Q.kr, Q.s, j, order, work)


@njit(cache=True)
def q_diag(Q, j):
    """Q_jj = K(x, x) for the sample x of variable j (s_j^2 = 1)."""
    n = Q.kr.sqnorm.shape[0]
    i = sample(j, n)
    return value(Q.kr, Q.kr.sqnorm[i], i, i)
