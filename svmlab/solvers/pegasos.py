"""Pegasos, the primal stochastic subgradient method (book chapter 7, Algorithm 7.1).

Shalev-Shwartz, Singer, Srebro and Cotter (Math. Programming 2011) minimise the lambda-form
lam/2 |w|^2 + 1/n sum_i s_i hinge(y_i w.x_i); with lam = 1 / (n C_bar), C_bar the mean of the
C_i and s_i = C_i / C_bar this is the book's C-form divided by n C_bar (the same minimiser).
Step t takes a mini-batch A_t of ``batch`` samples and the learning rate eta_t = 1 / (lam t)::

    w <- (1 - 1/t) w + eta_t / |A_t| * sum_{i in A_t, y_i w.x_i < 1} s_i y_i x_i
      =  (1 - 1/t) w + n / (t |A_t|) * sum_{i in A_t, y_i w.x_i < 1} C_i y_i x_i      (eq. 7.2)
    optionally w <- min(1, r / |w|) w,   r = 1 / sqrt(lam) = sqrt(sum_i C_i)      (eq. 7.3)

The ball of radius r holds the optimum (|w*|^2 <= sum_i alpha_i <= sum_i C_i by strong
duality), so the projection never cuts it off and bounds the early, large steps. w is stored
as a * v, so the shrink (1 - 1/t) and the projection cost O(1) and a step O(nnz of the batch).

Samples are drawn uniformly with replacement (n draws an epoch, cut into batches of ``batch``,
the last one shorter when batch does not divide n, and the sum divided by its own size |A_t|; a
batch may repeat a sample, which keeps the subgradient estimate unbiased). ``output``:
"last" the last iterate, "average" the average of the states T0 = T/2 .. T-1 of the T steps
(kept lazily, O(nnz) a step), "random" one of them drawn at random.

Pegasos has no dual problem of its own, but its w is still a combination of the samples:
every step adds multiples of y_i x_i, so w = sum_i alpha_i y_i x_i with alpha_i >= 0 the
accumulated (shrunk, projected, averaged) step sizes, kept alongside v as alpha = a u. This
alpha is returned; unlike a dual point it may leave the box [0, C_i] (a sample drawn more often
than average collects more), so D(alpha) is no bound on P* and the trace records D = gap = KKT
= NaN and the primal of the current iterate. There is no certificate to stop on, so ``tol`` is
not used:
the solver runs ``max_iter`` epochs, as asked, and reports ``converged=True`` (no warning for
doing what it was told; measure suboptimality against a reference optimum instead).

The draws of an epoch are made before it starts, so the kernel starts loading the row
LOOKAHEAD draws ahead (and that sample's y_i, C_i, u_i, |x_i|^2) while it works on the current
one (rows.prefetch_row). With the projection, |v|^2 is updated from x_i . v, which is the
product the margin was computed from as long as no earlier step of the batch has moved v
(always so with batch_size 1): it is reused then, and recomputed otherwise. Neither changes a
value; the iterates are bit for bit those of computing everything afresh.
"""

import math
import warnings
from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..estimators import ConvergenceWarning
from ..jit import njit
from ..rows import assign, distance, dot, margins, prefetch, prefetch_row, row_axpy, row_dot, row_sqnorms
from . import OUTPUTS, SolverResult
from .coordinate import (AVERAGE, LAST, LOOKAHEAD, RANDOM, RANDOM_ITERATE, epoch_order, primal_size, seed,
                         w_of)

_RESCALE = 1e-9  # fold the scale a into v when it falls below this

Rule = namedtuple("Rule", "max_iter batch output radius T0 pick t0")
Rule.__doc__ = """Pegasos' options: max_iter epochs, the batch size, the output code, the radius
of the projection (inf: none), the output window's first state T0, the state ``pick`` kept for
output="random" (-1: none), and the steps t0 a warm start stands for (eta_t = 1 / (lam (t0 + t)))."""

Arrays = namedtuple("Arrays", "v u U Ua scalars sq index margin vx out out_alpha w_prev count")
Arrays.__doc__ = """The state: w = a v and alpha = a u, the window sums U, Ua (output="average"),
the scalars [a, |v|^2, a_sum], |x_i|^2 (with the projection), the epoch's draws, the batch's
margins and x_i . v, the kept output, w at the last record, and count = [epoch, t, finished]."""
_EPOCH, _T, _FINISHED = 0, 1, 2
_SCALE, _NORM2, _SCALE_SUM = 0, 1, 2  # the entries of scalars: a, |v|^2, a_sum


class State:
    """A Pegasos run, advanced by :func:`svmlab.solvers.slices.run` (see its contract)."""

    unit = "epoch"

    def __init__(self, problem, rule, buf, seed_value, alpha0=None):
        X, y, Ci, code, B = problem
        n = len(y)
        v = np.zeros(primal_size(X)) if alpha0 is None else w_of(X, y, B, np.asarray(alpha0, dtype=float))
        u = np.zeros(n) if alpha0 is None else np.asarray(alpha0, dtype=float) * y
        average = rule.output == AVERAGE
        sq = row_sqnorms(X, B, np.empty(n if rule.radius < np.inf else 0))  # the projection's |v + c x_i|^2
        self.problem, self.rule, self._result = problem, rule, None
        self.arrays = Arrays(v, u, np.zeros(v.shape[0] if average else 0), np.zeros(n if average else 0),
                             np.array([1.0, 0.0, 0.0]), sq, np.arange(n), np.empty(rule.batch), np.empty(rule.batch),
                             np.zeros(v.shape[0]), np.zeros(n), np.zeros(v.shape[0] if buf is not None else 0),
                             np.zeros(3, dtype=np.int64))
        self._args = (problem, rule, self.arrays, buf)  # the kernels' arguments (then a budget)
        seed(seed_value)
        trace.start_after(buf, (_evaluate, *self._args), (_advance, *self._args, 1))
        _evaluate(*self._args)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def status(self):
        return self.arrays.count[_EPOCH], np.count_nonzero(self.arrays.u), np.nan

    def result(self):
        """The output, refused when it overflowed; warns when it is worse than w = 0."""
        if self._result is None:
            self._result = self._output()
        return self._result

    def _output(self):
        X, y, Ci, code, B = self.problem
        a, rule = self.arrays, self.rule
        if rule.output == LAST:
            _scaled(a.out, a.scalars[_SCALE], a.v)
            _scaled(a.out_alpha, a.scalars[_SCALE], a.u)
        elif rule.output == AVERAGE:
            _average(a.out, a.scalars[_SCALE_SUM], a.v, a.U, a.count[_T] - rule.T0)
            _average(a.out_alpha, a.scalars[_SCALE_SUM], a.u, a.Ua, a.count[_T] - rule.T0)
        w, alpha = a.out, a.out_alpha
        if not (np.isfinite(w).all() and np.isfinite(alpha).all()):
            raise ValueError(f"Pegasos' iterate overflowed: its steps n C_i / t are too large for C up to "
                             f"{Ci.max():g} on this data. Lower C, rescale X, or use solver='sdca' or 'dcd'.")
        _warn_if_worse_than_zero(X, y, Ci, B, w)
        return SolverResult(alpha, w, 0.0, int(a.count[_EPOCH]), True)


def start(problem, stop, buf, rng, alpha0=None, batch_size=1, output="last", projection=True):
    """Algorithm 7.1 (mini-batch Pegasos) as a state; a warm start begins at w(alpha0) as if
    after one epoch of steps. See the module docstring."""
    X, y, Ci, code, B = problem
    batch, output_code = batch_size, OUTPUTS.index(output)
    radius = math.sqrt(Ci.sum()) if projection else np.inf
    steps = math.ceil(len(y) / batch)
    T = stop.max_iter * steps
    seed_value = int(rng.integers(2**31 - 1))
    pick = int(rng.integers(T // 2, T)) if output_code == RANDOM_ITERATE else -1
    rule = Rule(stop.max_iter, batch, output_code, radius, T // 2, pick, 0 if alpha0 is None else steps)
    return State(problem, rule, trace.used(buf), seed_value, alpha0)


def _warn_if_worse_than_zero(X, y, Ci, B, w):
    """A ConvergenceWarning when the returned w has a higher primal than w = 0 (P(0) = sum_i C_i):
    Pegasos has no certificate, but a result worse than not fitting at all is not left silent."""
    p = obj.primal_value(dot(w, w), margins(X, y, w, B, np.empty(len(y))), Ci, obj.HINGE)
    if p > Ci.sum():
        warnings.warn(f"Pegasos returned w with P(w) = {p:.3g}, above P(0) = {Ci.sum():.3g}: its steps 1/(lambda t) "
                      "are too large for this C and budget. Increase max_iter, lower C, or use solver='sdca' or "
                      "'dcd', which certify their result.", ConvergenceWarning, stacklevel=4)


# The iterate is w = a v, so that the shrink and the projection only change the scale a; its
# coefficients are alpha = a u, with u_i the steps taken along y_i x_i in units of v.
# With averaging, the sum of the states in the window is S = a_sum v - U, with a_sum the sum
# of their scales (the trick of Xu 2011 for averaged SGD): adding d to v adds a_sum d to U, and
# S costs nothing a step; likewise a_sum u - Ua for alpha. The scalars a, |v|^2 and a_sum live
# in one array, ``scalars``.

@njit(cache=True)
def _evaluate(p, rule, s, buf):
    """The stopping test and the trace at the current epoch; returns whether the run is over."""
    epoch = s.count[_EPOCH]
    done = epoch >= rule.max_iter
    if trace.due(buf, epoch, done):
        _record(p, buf, epoch, s, done)
    s.count[_FINISHED] = done
    return done


@njit(cache=True)
def _advance(p, rule, s, buf, budget):
    """At most ``budget`` epochs; returns (epochs run, finished)."""
    if s.count[_FINISHED]:
        return 0, True
    for done in range(1, budget + 1):
        s.count[_EPOCH] += 1
        epoch_order(RANDOM, s.index)
        s.scalars[_NORM2] = dot(s.v, s.v)  # |v|^2 afresh each epoch, against drift
        s.count[_T] = _epoch(p, rule, s, s.count[_T])
        if _evaluate(p, rule, s, buf):
            return done, True
    return budget, False


@njit(cache=True, inline="always")
def _average(out, a_sum, v, U, count):
    """out = (a_sum v - U) / count, the average of the states in the window."""
    for j in range(out.shape[0]):
        out[j] = (a_sum * v[j] - U[j]) / count


@njit(cache=True, inline="always")
def _epoch(p, rule, state, t):
    """Steps t + 1, ... of eq. 7.2 (and the projection 7.3) over one epoch's batches; returns
    the last t. The row LOOKAHEAD draws ahead starts loading early; see the module docstring."""
    X, y, Ci, B = p.X, p.y, p.Ci, p.B
    radius, batch, T0, pick, t0 = rule.radius, rule.batch, rule.T0, rule.pick, rule.t0
    v, u, U, Ua, sc, sq, index = state.v, state.u, state.U, state.Ua, state.scalars, state.sq, state.index
    margin, vx, out, out_alpha = state.margin, state.vx, state.out, state.out_alpha
    n = index.shape[0]
    for start in range(0, n, batch):
        if t == pick:  # output="random": keep state t
            _scaled(out, sc[_SCALE], v)
            _scaled(out_alpha, sc[_SCALE], u)
        if U.shape[0] > 0 and t >= T0:
            sc[_SCALE_SUM] += sc[_SCALE]  # state t enters the average: S += a v
        t += 1
        size = min(start + batch, n) - start  # |A_t|
        for j in range(size):  # margins at w_t, before the step
            if start + j + LOOKAHEAD < n:
                r = index[start + j + LOOKAHEAD]
                prefetch_row(X, r)
                prefetch(y, r)
                prefetch(Ci, r)
                prefetch(u, r)
                if sq.shape[0] > 0:
                    prefetch(sq, r)
            i = index[start + j]
            vx[j] = row_dot(X, i, v, B)  # x_i . v
            margin[j] = y[i] * sc[_SCALE] * vx[j]
        if t0 + t > 1:
            sc[_SCALE] *= 1.0 - 1.0 / (t0 + t)  # at t = 1 the factor is 0, and w_1 = 0 already
        moved = False  # whether v has changed in this batch
        for j in range(size):
            if margin[j] < 1.0:
                i = index[start + j]
                c = n * Ci[i] * y[i] / ((t0 + t) * size * sc[_SCALE])  # in units of v
                if radius < np.inf:  # |v + c x_i|^2 from the current v
                    # x_i . v: the product of the margin while v is as it was then (always with
                    # batch_size 1), recomputed once an earlier step of the batch has moved v
                    xv = row_dot(X, i, v, B) if moved else vx[j]
                    sc[_NORM2] += 2.0 * c * xv + c * c * sq[i]
                row_axpy(X, i, c, v, B)
                moved = True
                u[i] += c * y[i]  # c carries the sign y_i; alpha does not
                if U.shape[0] > 0:
                    row_axpy(X, i, sc[_SCALE_SUM] * c, U, B)
                    Ua[i] += sc[_SCALE_SUM] * c * y[i]
        # scalars in, a scalar out: a function given the arrays, called at every step, counted
        # their references up and down each time (NRT_incref, NRT_decref: 15 % of a fit in perf)
        sc[_SCALE] = _projected(sc[_SCALE], sc[_NORM2], radius)
        if 0.0 < sc[_SCALE] < _RESCALE:
            _fold(v, u, sc)
    return t


@njit(cache=True, inline="always")
def _projected(a, norm2, radius):
    """The scale a of w = a v after w <- min(1, r/|w|) w (eq. 7.3), |w| = a sqrt(|v|^2)."""
    norm = a * np.sqrt(max(norm2, 0.0))
    if radius < norm < np.inf:  # an infinite norm (overflow) is left for solve() to refuse
        a *= radius / norm
    return a


@njit(cache=True, inline="always")
def _fold(v, u, sc):
    """Fold a tiny scale a into v and u: w, alpha and S unchanged. ``sc`` holds the scalars a,
    |v|^2, a_sum."""
    a = sc[_SCALE]
    for j in range(v.shape[0]):
        v[j] *= a
    for i in range(u.shape[0]):
        u[i] *= a
    sc[_NORM2] *= a * a
    sc[_SCALE_SUM] /= a
    sc[_SCALE] = 1.0


@njit(cache=True, inline="always")
def _scaled(out, a, v):
    """out = a v"""
    for j in range(out.shape[0]):
        out[j] = a * v[j]


@njit(cache=True, inline="always")
def _record(p, buf, epoch, state, last):
    """P at w = a v; D, gap and KKT are NaN (no dual); n_active counts the margin violators."""
    X, y, Ci, B = p.X, p.y, p.Ci, p.B
    v, u, a, w_prev = state.v, state.u, state.scalars[_SCALE], state.w_prev
    t = trace.pause(buf)
    w = np.empty(v.shape[0])
    _scaled(w, a, v)
    m = margins(X, y, w, B, np.empty(y.shape[0]))
    primal = obj.primal_value(dot(w, w), m, Ci, obj.HINGE)
    dw_norm = distance(w, w_prev)
    assign(w_prev, w)
    alpha = np.empty(y.shape[0])
    _scaled(alpha, a, u)
    row = trace.Row(epoch, primal, np.nan, np.nan, np.sum(m < 1.0), dw_norm, t, B * w[-1])
    trace.append(buf, row, alpha, w, last)
