"""What the linear dual solvers share: the problem bundle, the starting point, the diagonals and
box of the unified dual (eq. 3.2), the clipped coordinate step (eq. 3.5), the shrinking solvers'
end of a pass (dcd, dcd_svr) and the one random path (a uniform integer from one double, and
the Fisher-Yates permutation built on it).

Every solver that draws a permutation of the coordinates draws it through :func:`shuffle`, and
every draw with replacement through :func:`below`, so two solvers seeded alike visit the
coordinates in the same order: DCD without shrinking and SDCA with batch size 1 then make the
same steps (SDCA is DCD in other units). This one path changed the draws of SDCA (orders
"permutation" and "random") and of Pegasos, which drew through numpy's shuffle and randint
before: their iterates for a given random_state differ from earlier versions, bit for bit
equal to before for DCD, the subgradient and dual gradient methods.
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from ..jit import njit
from ..rows import CSR, rmatvec, row_sqnorm
from . import SolverResult

PERMUTATION, CYCLIC, RANDOM = 0, 1, 2
LAST, AVERAGE, RANDOM_ITERATE = 0, 1, 2
LOOKAHEAD = 4  # steps ahead whose row and per-sample values start loading early (rows.prefetch)
EPOCH, ACTIVE, N_ACTIVE, CONVERGED, STEPS = range(5)  # the entries of a shrinking solver's count

Problem = namedtuple("Problem", "X y Ci code B")
Problem.__doc__ = """One binary linear problem: the rows X (rows.as_rows), labels y in {-1, +1},
the per-sample penalties C_i, the loss code (objective.HINGE / SQUARED_HINGE) and the value B of
the bias feature (0: no bias)."""

Stop = namedtuple("Stop", "tol max_iter")
Stop.__doc__ = """The stopping rule's numbers: the tolerance and the most epochs."""


@njit(cache=True)
def diagonals(X, Ci, code, B, gamma):
    """Q-bar_ii = |[x_i, B]|^2 + D_ii, the upper bounds U_i and the diagonal D_ii (eq. 3.2);
    D_ii = gamma / C_i for the hinge smoothed by gamma > 0 (chapter 6, eq. 6.5)."""
    n = Ci.shape[0]
    QD, U, Dg = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        Dg[i] = gamma / Ci[i] if gamma > 0.0 else obj.diag(Ci[i], code)
        U[i] = obj.upper(Ci[i], code)
        QD[i] = row_sqnorm(X, i, B) + Dg[i]
    return QD, U, Dg


@njit(cache=True, inline="always")
def clipped_step(a, G, QD, U):
    """The exact minimiser of the dual along coordinate i, clipped to the box (eq. 3.5):
    min(max(a - G / Q-bar_ii, 0), U_i). When Q-bar_ii = 0 (x_i = 0, hinge, no bias) the dual is
    linear in alpha_i, so the step goes to the bound the gradient points to."""
    if QD > 0.0:
        return min(max(a - G / QD, 0.0), U)
    return U if G < 0.0 else 0.0


@njit(cache=True, inline="always")
def compact(index, active, shrunk):
    """Drop the marked entries of index[:active] (clearing their marks), the others keeping
    their order; returns the count kept."""
    kept = 0
    for s in range(active):
        i = index[s]
        if shrunk[i]:
            shrunk[i] = False
        else:
            index[kept] = i
            kept += 1
    return kept


@njit(cache=True, inline="always")
def end_pass(count, index, new_active, met, max_iter, still=False):
    """Count a shrinking solver's pass: the epoch, the active set and whether it converged
    (the rule met on every variable). When only the shrunk problem meets the rule, every
    variable comes back (the unshrink: index reset) and the rule must hold on a full pass. A
    pass that moved no variable (``still``: every |PG_i| under the step threshold) unshrinks
    too: the shrunk problem cannot get any closer to the rule, so only the variables shrunk
    too early can. Returns (unshrunk, finished)."""
    n = index.shape[0]
    count[EPOCH] += 1
    converged = met and new_active == n
    count[CONVERGED] = converged
    count[N_ACTIVE] = new_active
    unshrunk = (met or still) and new_active != n
    if unshrunk:
        count[ACTIVE] = n
        reset(index)
    else:
        count[ACTIVE] = new_active
    return unshrunk, converged or count[EPOCH] >= max_iter


def shrinking_count(n):
    """A shrinking solver's count at the start: [epoch, active, n_active, converged, steps]; steps
    is the mean active size of the last slice's epochs (:func:`slice_spent`), n before any."""
    return np.array([0, n, n, 0, n], dtype=np.int64)


@njit(cache=True, inline="always")
def slice_spent(count, budget, done, steps):
    """Whether a slice of ``budget`` epochs ends after ``done`` epochs of ``steps`` coordinate steps
    in all: at the budget, or once the steps reach the budget's epochs at the last slice's mean
    size. The driver sizes a budget on the last slice's epochs; with shrinking these can pass over
    a few variables each, and after an unshrink every epoch passes over n (an epoch's cost varies
    300-fold: a Ctrl-C once waited 4 s for such a slice)."""
    return done >= budget or steps >= budget * count[STEPS]


@njit(cache=True, inline="always")
def shuffle(index, active):
    """A uniform random permutation of index[:active] (Fisher-Yates)."""
    for s in range(active - 1):
        j = s + below(active - s)
        t = index[s]
        index[s] = index[j]
        index[j] = t


@njit(cache=True, inline="always")
def below(k):
    """A random integer in [0, k): one uniform double (numba's randint costs several)."""
    return min(int(np.random.random() * k), k - 1)


@njit(cache=True, inline="always")
def epoch_order(order, index):
    """The coordinates of one epoch in ``index``: shuffled (:func:`shuffle`, DCD's draws), left
    in index order, or drawn with replacement (:func:`below`). Uses numba's generator, seeded
    once a solve."""
    n = index.shape[0]
    if order == PERMUTATION:
        shuffle(index, n)
    elif order == RANDOM:
        for s in range(n):
            index[s] = below(n)


@njit(cache=True, inline="always")
def reset(index):
    """index[i] = i."""
    for i in range(index.shape[0]):
        index[i] = i


@njit(cache=True, inline="always")
def seed(value):
    """Seed numba's global generator, which then persists between calls in this thread: the
    draws of a run sliced into many calls are those of one call."""
    np.random.seed(value)


def epoch_unit(shrinking):
    """What a coordinate descent run counts: epochs, passes over the data; with shrinking, passes
    over the active set only (chapter 4), "active-set epoch"."""
    return "active-set epoch" if shrinking else "epoch"


class ShrinkingState:
    """What the shrinking DCD states (dcd, dcd_svr) share of the slice contract
    (:mod:`svmlab.solvers.slices`): ``arrays`` holds w and count (:func:`shrinking_count`)."""

    @property
    def unit(self):
        return epoch_unit(self.rule.shrinking)

    def status(self):
        count = self.arrays.count
        return count[EPOCH], count[N_ACTIVE], np.nan

    def _result(self, dual):
        """The SolverResult of the dual point ``dual`` (alpha or beta), w and the counts."""
        count = self.arrays.count
        return SolverResult(dual, self.arrays.w, 0.0, int(count[EPOCH]), bool(count[CONVERGED]))


def primal_size(X):
    """The length d + 1 of w (the bias feature's weight last), for dense rows or CSR."""
    return (int(X.n_cols) if isinstance(X, CSR) else X.shape[1]) + 1


def w_of(X, y, B, alpha):
    """w(alpha) = sum_i alpha_i y_i [x_i, B] (eq. 3.7 summed)."""
    return rmatvec(X, alpha * y, B, np.zeros(primal_size(X)))


def starting_point(problem, alpha0):
    """(alpha, w(alpha)): zero, or warm_start's previous alpha clipped to this fit's box."""
    X, y, Ci, code, B = problem
    if alpha0 is None:
        return np.zeros(len(y)), np.zeros(primal_size(X))
    alpha = np.clip(np.asarray(alpha0, dtype=float), 0.0, box(Ci, code))
    return alpha, w_of(X, y, B, alpha)


def box(Ci, code):
    """The upper bounds U_i of the dual box (eq. 3.2)."""
    return np.array([obj.upper(c, code) for c in Ci])

