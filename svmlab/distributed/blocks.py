"""The blocks of a distributed fit as they live on the workers, and what a worker runs on them.

A :class:`Block` is a slice of rows of X (in the form the numba kernels read, :func:`svmlab.rows.as_rows`)
and the class code of each row; a :class:`State` is what one binary problem keeps on that
block between rounds: alpha_[k], the order of its rows, and the state of numba's random
generator, so that a block draws the same sequence whichever worker thread runs it (and a
single block draws what :mod:`svmlab.solvers.dcd` draws for the same seed). A
:class:`Worker` holds both on its worker; only w, the change dw and two sums travel between
it and the client each round.
"""

from dataclasses import dataclass

import numpy as np
from numba import _helperlib

from ..rows import as_rows, rmatvec, row_sqnorms
from ..solvers import coordinate
from ..validation import check_array
from . import local


@dataclass
class Block:
    """Rows of X for the kernels, and each row's class code (an index into ``classes_``)."""

    X: object
    codes: np.ndarray

    @property
    def n(self):
        return self.codes.shape[0]


@dataclass(frozen=True)
class Problem:
    """One binary problem and the round's settings, sent with every task (a few numbers).

    positive: the class code that is +1; C_positive: its C_i; C_negative: C_i of each class
    when it is -1; code: the loss code; B: the bias feature; sigma: sigma' of the local
    subproblem; gamma: the weight of a block's change (1 adding, 1/K averaging); passes:
    local passes a round; order: local.DCD_ORDER or local.SDCA_ORDER."""

    positive: int
    C_positive: float
    C_negative: np.ndarray
    code: int
    B: float
    sigma: float
    gamma: float
    passes: float
    order: int


@dataclass
class State:
    """alpha_[k] of one binary problem, the block's row order, and its generator's state."""

    alpha: np.ndarray
    index: np.ndarray
    rng: tuple


def labels(block, problem):
    """y_i in {-1, +1} and C_i of the block for ``problem``."""
    positive = block.codes == problem.positive
    y = np.where(positive, 1.0, -1.0)
    return y, np.where(positive, problem.C_positive, problem.C_negative[block.codes])


def _swap_rng(state):
    """Install ``state`` as this thread's numba generator; returns the one it replaces."""
    pointer = _helperlib.rnd_get_np_state_ptr()
    previous = _helperlib.rnd_get_state(pointer)
    _helperlib.rnd_set_state(pointer, state)
    return previous


class Worker:
    """One block on its worker (a Dask actor): the rows, and the State of each binary problem.

    Calls on an actor go from the client to the worker directly, without the scheduler, so a
    round costs one message each way per block. A round's new state is kept aside and taken
    only when the next round starts (the client does not take it when the round's start is
    certified), so the returned state is always the one the certificate speaks of.
    """

    def __init__(self, X, codes):
        self.block = Block(as_rows(check_array(X)), np.asarray(codes, dtype=np.int64))
        self.states, self.pending, self.sqnorms = {}, {}, {}  # sqnorms: B -> |[x_i, B]|^2 of the rows

    def start(self, key, seed):
        """alpha = 0, rows in index order, the generator seeded with ``seed``."""
        previous = _helperlib.rnd_get_state(_helperlib.rnd_get_np_state_ptr())
        local.seed(seed)
        self.states[key] = State(np.zeros(self.block.n), np.arange(self.block.n), _swap_rng(previous))
        self.pending.pop(key, None)

    def round(self, key, w, problem, take):
        """Take the last round's state (``take``; else drop it: that round was abandoned), then
        return the block's (loss sum, dual sum) at (w, alpha_[k]) and dw = gamma A_k Delta of
        its local subproblem (local.py); alpha moves by gamma times the local change, in the
        pending state."""
        if key in self.pending:
            state = self.pending.pop(key)
            if take:
                self.states[key] = state
        state, block = self.states[key], self.block
        y, Ci = labels(block, problem)
        loss, dual = local.sums(block.X, y, Ci, problem.code, problem.B, state.alpha, w)
        alpha, index = state.alpha.copy(), state.index.copy()
        previous = _swap_rng(state.rng)
        try:
            rows = coordinate.Problem(block.X, y, Ci, problem.code, problem.B)
            if problem.B not in self.sqnorms:
                self.sqnorms[problem.B] = row_sqnorms(block.X, problem.B, np.empty(block.n))
            dw = local.subproblem(rows, self.sqnorms[problem.B], alpha, index, w, problem.sigma,
                                  max(1, round(problem.passes * block.n)), problem.order)
        finally:
            rng = _swap_rng(previous)
        if problem.gamma != 1.0:
            alpha = state.alpha + problem.gamma * (alpha - state.alpha)
            dw *= problem.gamma
        self.pending[key] = State(alpha, index, rng)
        return loss, dual, dw

    def combination(self, key, problem, size):
        """A_k alpha_[k] = sum_{i in k} alpha_i y_i [x_i, B] (length ``size`` = d + 1)."""
        y, _ = labels(self.block, problem)
        return rmatvec(self.block.X, self.states[key].alpha * y, problem.B, np.empty(size))

    def sums(self, key, w, problem):
        """The block's (loss sum, dual sum) at (w, alpha_[k])."""
        y, Ci = labels(self.block, problem)
        return local.sums(self.block.X, y, Ci, problem.code, problem.B, self.states[key].alpha, w)

    def alpha(self, key):
        return self.states[key].alpha
