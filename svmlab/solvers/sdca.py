"""Stochastic dual coordinate ascent, SDCA and ASDCA (book chapter 6, Algorithms 6.1 and 6.2).

Shalev-Shwartz and Zhang (JMLR 2013) write the problem in the lambda-form

    P_lam(w) = lam/2 |w|^2 + 1/n sum_i s_i loss(y_i w.x_i),   lam = 1 / (n C_bar)

which is the book's C-form divided by n C_bar: P_lam = P_C / (n C_bar), with weights
s_i = C_i / C_bar (all 1 when every C_i = C). With one C their dual variable is alpha_SDCA_i =
alpha_i / (C y_i) in LIBLINEAR units (book eq. 6.2), so y_i alpha_SDCA_i in [0, 1] is alpha_i in
[0, C]; with per-sample C_i the book writes the rescaled alpha_i / (C_i y_i), box [0, 1] (the
paper's variable of the weighted form is alpha_i / (C_bar y_i), box [0, s_i]: chapter 6, §6.2). In
those units the lambda disappears and the closed-form step of the paper (eq. 6.3) reads

    alpha_i <- clip(alpha_i - G_i / (|x_i|^2 + D_ii), 0, U_i),   G_i = y_i w.x_i - 1 + D_ii alpha_i
    w       <- w + (new - old) y_i x_i

which is dual coordinate descent (chapter 3) -- SDCA is DCD in other units. The smoothed hinge
of parameter gamma (eq. 6.5) changes only D_ii: gamma / C_i, with U_i = C_i; the squared hinge
has D_ii = 1/(2 C_i), U_i = inf (objective.py).

Options: ``order`` of the coordinates within an epoch (a fresh random permutation, index order,
or draws with replacement); ``batch_size`` > 1 computes the steps of a mini-batch A_t at the
same w and applies each scaled by 1/|A_t| (an average of dual-improving points, so D never falls);
``accelerated`` runs ASDCA (Shalev-Shwartz and Zhang, NIPS 2013; eq. 6.6) on the smoothed
hinge::

    u = (1 - theta) w + theta v,                          v = w(alpha)
    alpha_i <- (1 - theta) alpha_i + theta C_i clip((1 - y_i u.x_i) / gamma, 0, 1),  i in A_t
    w <- (1 - theta) w + theta v

with theta = 1/4 min(1, sqrt(kappa/batch), kappa, kappa^(2/3) / batch^(1/3)) for batches of
``batch`` samples, kappa = gamma lam n / R^2 in lambda units, i.e. gamma / (max_i C_i R^2)
here, R^2 = max_i |x_i|^2 (the paper's theorem assumes |x_i| <= 1).

``output`` "last" returns the last iterate and stops as soon as the duality gap certifies
it, P - D <= tol * P (checked once an epoch, one extra pass). "average" and "random" are the
paper's outputs for a budget of T iterations fixed in advance: T = max_iter epochs, the
average of the states T0 = T/2 .. T-1 or one of them drawn at random; ``converged`` then says
whether the returned point meets the gap rule. With smoothing, the rule is applied to the
smoothed problem that is solved, while the trace records the book's hinge problem (alpha is
feasible for its dual): at the smoothed optimum the hinge gap is at most gamma/4 times the sum
of the C_i over the samples with margin in (1 - gamma, 1).

An epoch's order is known before the epoch starts (a permutation, index order, or the draws
made beforehand), so the kernel starts loading the row LOOKAHEAD positions ahead, and that
sample's entries of alpha, y and the diagonals, while it works on the current one
(rows.prefetch_row): a row in random order would otherwise wait on memory each time. This
changes no value: the iterates are bit for bit those of the plain loop.
"""

import math
from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..jit import njit
from ..rows import (assign, axpy, distance, dot, margins, multiply, prefetch, prefetch_row, rmatvec, row_axpy,
                    row_dot)
from . import ORDERS, OUTPUTS, SolverResult
from .coordinate import (AVERAGE, LAST, LOOKAHEAD, RANDOM_ITERATE, clipped_step,
                         diagonals, epoch_order, seed, starting_point)


Rule = namedtuple("Rule", "tol max_iter order output batch gamma theta T0 pick")
Rule.__doc__ = """SDCA's stopping rule and options: tol, max_iter, the order and output codes, the
batch size, the smoothing gamma, ASDCA's theta (0: plain SDCA), the first state T0 of the
output window and the iteration ``pick`` kept for output="random" (-1: none)."""

Arrays = namedtuple("Arrays", "alpha w m index step sums since w_sum kept_alpha kept_w w_prev QD U Dg reals count")
Arrays.__doc__ = """The state (ASDCA's v = w(alpha) apart, see State): alpha, w, the margins m,
the epoch's order index, the batch's steps, the running sums of output="average" (sums, since,
w_sum), the kept state of output="random", w at the last record, the diagonals Q-bar_ii, U_i,
D_ii, reals = [P, D] and count = [epoch, iteration t, finished]."""
_P, _D = 0, 1
_EPOCH, _T, _FINISHED = 0, 1, 2


class State:
    """An SDCA run, advanced by :func:`svmlab.solvers.slices.run` (see its contract)."""

    unit = "epoch"

    def __init__(self, problem, rule, diag, buf, seed_value, alpha0=None):
        X, y, Ci, code, B = problem
        n = len(y)
        QD, U, Dg = diag
        alpha, w = starting_point(problem, alpha0)
        m = np.zeros(n)
        if alpha0 is not None:  # the margins at epoch 0 (zero for a cold start)
            margins(X, y, w, B, m)
        sums = np.zeros(n if rule.output == AVERAGE else 0)  # output="average": see _held
        w_sum = np.zeros(w.shape[0] if rule.theta > 0.0 and rule.output == AVERAGE else 0)
        w_prev = np.zeros(w.shape[0] if buf is not None else 0)
        self.problem, self.rule, self._result = problem, rule, None
        # ASDCA keeps v = w(alpha) apart from w; SDCA has None, and its kernels no ASDCA code
        self.v = w.copy() if rule.theta > 0.0 else None
        self.arrays = Arrays(alpha, w, m, np.arange(n), np.empty(rule.batch), sums,
                             np.zeros(sums.shape[0], dtype=np.int64), w_sum, alpha.copy(), w.copy(), w_prev, QD, U,
                             Dg, np.array([np.nan, np.nan]), np.zeros(3, dtype=np.int64))
        self._args = (problem, rule, self.arrays, self.v, buf)  # the kernels' arguments (then a budget)
        seed(seed_value)
        trace.start_after(buf, (_evaluate, *self._args), (_advance, *self._args, 1))
        _evaluate(*self._args)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def status(self):
        a = self.arrays
        return a.count[_EPOCH], np.sum(a.alpha > 0.0), a.reals[_P] - a.reals[_D]

    def result(self):
        """The output: the last state, the average over the window, or the kept state."""
        if self._result is None:
            self._result = _output(self.problem, self.rule, self.arrays)
        return self._result


def start(problem, stop, buf, rng, alpha0=None, order="permutation", output="last", smoothing=0.0, batch_size=1,
          accelerated=False):
    """Algorithm 6.1 (SDCA, mini-batch SDCA) or 6.2 (ASDCA) as a state; see the module docstring."""
    X, y, Ci, code, B = problem
    order_code, output_code = ORDERS.index(order), OUTPUTS.index(output)
    gamma, batch = float(smoothing), batch_size
    QD, U, Dg = diagonals(X, Ci, code, B, gamma)
    theta = asdca_theta(gamma, Ci.max(), (QD - Dg).max(), batch) if accelerated else 0.0
    steps = math.ceil(len(y) / batch)  # iterations an epoch
    T = stop.max_iter * steps
    seed_value = int(rng.integers(2**31 - 1))
    pick = int(rng.integers(T // 2, T)) if output_code == RANDOM_ITERATE else -1
    rule = Rule(stop.tol, stop.max_iter, order_code, output_code, batch, gamma, theta, T // 2, pick)
    return State(problem, rule, (QD, U, Dg), trace.used(buf), seed_value, alpha0)


def asdca_theta(gamma, C_max, R2, batch):
    """theta of ASDCA's theorem for the smoothed hinge, in C-form units (module docstring)."""
    kappa = gamma / (C_max * R2) if R2 > 0 else 1.0
    return 0.25 * min(1.0, math.sqrt(kappa / batch), kappa, kappa ** (2.0 / 3.0) / batch ** (1.0 / 3.0))


@njit(cache=True)
def epoch_orders(seed, order, n, epochs):
    """The (epochs, n) sample sequence a solve with this seed visits (for the reference tests)."""
    np.random.seed(seed)
    index = np.arange(n)
    out = np.empty((epochs, n), dtype=np.int64)
    for e in range(epochs):
        epoch_order(order, index)
        for s in range(n):
            out[e, s] = index[s]
    return out


@njit(cache=True)
def _evaluate(p, rule, s, v, buf):
    """P and D (output="last"), the stopping test and the trace at the current epoch; returns
    whether the run is over."""
    epoch = s.count[_EPOCH]
    primal, d = np.nan, np.nan
    if rule.output == LAST:
        primal, d = _values(p, s.alpha, s.w, v, s.m, epoch)
    s.reals[_P], s.reals[_D] = primal, d
    done = epoch >= rule.max_iter or (rule.output == LAST and _met(primal, d, s.m, s.alpha, p.Ci, rule.gamma,
                                                                   rule.tol))
    if trace.due(buf, epoch, done):
        _record(p, buf, epoch, s, v, done)
    s.count[_FINISHED] = done
    return done


@njit(cache=True)
def _advance(p, rule, s, v, buf, budget):
    """At most ``budget`` epochs; returns (epochs run, finished)."""
    if s.count[_FINISHED]:
        return 0, True
    for done in range(1, budget + 1):
        s.count[_EPOCH] += 1
        epoch_order(rule.order, s.index)
        s.count[_T] = _epoch(p, rule, s, v, s.count[_T])
        if _evaluate(p, rule, s, v, buf):
            return done, True
    return budget, False


def _output(p, rule, s):
    """The run's result (Python: called once, at the end)."""
    epoch = int(s.count[_EPOCH])
    if rule.output == LAST:
        met = _met(s.reals[_P], s.reals[_D], s.m, s.alpha, p.Ci, rule.gamma, rule.tol)
        return SolverResult(s.alpha, s.w, 0.0, epoch, bool(met))
    alpha, w = s.kept_alpha, s.kept_w
    if rule.output == AVERAGE:
        alpha, w = _average_result(p, s, s.count[_T], rule.T0)
    return SolverResult(alpha, w, 0.0, epoch, bool(_certified(p, rule.gamma, rule.tol, alpha, w)))


@njit(cache=True, inline="always")
def _epoch(p, rule, s, v, t):
    """One epoch of iterations t + 1, ...; returns the last t. A (mini-batch) SDCA iteration
    computes its steps at the same w and applies each scaled by 1/|A_t|; see _asdca_batch for ASDCA.
    The row LOOKAHEAD positions ahead starts loading early; see the module docstring."""
    X, y, B = p.X, p.y, p.B
    batch, T0, pick = rule.batch, rule.T0, rule.pick
    alpha, w, QD, U, Dg, index, step = s.alpha, s.w, s.QD, s.U, s.Dg, s.index, s.step
    sums, since, w_sum = s.sums, s.since, s.w_sum
    n = index.shape[0]
    for start in range(0, n, batch):
        if t == pick:  # output="random": keep state t
            assign(s.kept_alpha, alpha)
            assign(s.kept_w, w)
        if v is not None and w_sum.shape[0] > 0 and t >= T0:  # state t enters the sum of ASDCA's w
            axpy(1.0, w, w_sum)
        t += 1
        stop = min(start + batch, n)
        if v is not None:
            _asdca_batch(p, rule, s, v, start, stop, t)
            continue
        size = stop - start  # |A_t|
        for j in range(size):
            if start + j + LOOKAHEAD < n:
                r = index[start + j + LOOKAHEAD]
                prefetch_row(X, r)
                prefetch(alpha, r)
                prefetch(y, r)
                prefetch(QD, r)
                prefetch(Dg, r)
                prefetch(U, r)
            # the closed-form maximiser of D along alpha_i (eq. 6.3) minus alpha_i, written here: passed
            # to a helper, the arrays were counted up and down at every step (a quarter of a sparse epoch)
            i = index[start + j]
            G = y[i] * row_dot(X, i, w, B) - 1.0 + Dg[i] * alpha[i]
            step[j] = clipped_step(alpha[i], G, QD[i], U[i]) - alpha[i]
        for j in range(size):
            i = index[start + j]
            delta = step[j] / size
            if delta != 0.0:
                if sums.shape[0] > 0:
                    _held(sums, since, alpha, i, t, T0)
                alpha[i] += delta
                row_axpy(X, i, delta * y[i], w, B)
    return t


@njit(cache=True, inline="always")
def _asdca_batch(p, rule, s, v, start, stop, t):
    """One iteration of ASDCA (eq. 6.6): dual targets -grad loss(u), then w moves towards v."""
    X, y, Ci, B = p.X, p.y, p.Ci, p.B
    gamma, theta, T0 = rule.gamma, rule.theta, rule.T0
    alpha, w, index, target, sums, since = s.alpha, s.w, s.index, s.step, s.sums, s.since
    size = stop - start  # |A_t|
    for j in range(size):
        if start + j + LOOKAHEAD < index.shape[0]:
            r = index[start + j + LOOKAHEAD]
            prefetch_row(X, r)
            prefetch(alpha, r)
            prefetch(y, r)
            prefetch(Ci, r)
        i = index[start + j]
        margin = y[i] * ((1.0 - theta) * row_dot(X, i, w, B) + theta * row_dot(X, i, v, B))
        target[j] = Ci[i] * min(max((1.0 - margin) / gamma, 0.0), 1.0)
    for j in range(size):
        i = index[start + j]
        delta = theta * (target[j] - alpha[i])
        if delta != 0.0:
            if sums.shape[0] > 0:
                _held(sums, since, alpha, i, t, T0)
            alpha[i] += delta
            row_axpy(X, i, delta * y[i], v, B)
    for j in range(w.shape[0]):
        w[j] = (1.0 - theta) * w[j] + theta * v[j]


@njit(cache=True, inline="always")
def _values(p, alpha, w, v, m, epoch):
    """P at the primal point w and D at alpha (|w(alpha)|^2 from v, or from w when v is None);
    leaves the margins y_i w.x_i in m (no pass at epoch 0, where m is set already)."""
    X, y, Ci, code, B = p
    if epoch > 0:
        margins(X, y, w, B, m)
    wa = w if v is None else v
    return obj.primal_value(dot(w, w), m, Ci, code), obj.dual_value(alpha, dot(wa, wa), Ci, code)


@njit(cache=True, inline="always")
def _record(p, buf, epoch, s, v, last):
    """P, D and the KKT violation of alpha (book problem); margins of w(alpha) for the gradient."""
    X, y, Ci, code, B = p
    alpha, w, m, w_prev = s.alpha, s.w, s.m, s.w_prev
    t = trace.pause(buf)
    primal, d = _values(p, alpha, w, v, m, epoch)
    G = np.empty(alpha.shape[0])
    if v is None:
        assign(G, m)
    else:
        margins(X, y, v, B, G)
    obj.gradient(alpha, G, Ci, code, G)
    kkt = obj.kkt_violation(alpha, G, Ci, code, y, False)
    dw_norm = distance(w, w_prev)
    assign(w_prev, w)
    trace.append(buf, trace.Row(epoch, primal, d, kkt, np.sum(alpha > 0.0), dw_norm, t, B * w[-1]), alpha, w, last)


@njit(cache=True)
def _certified(p, gamma, tol, alpha, w):
    """Whether the gap of the output (alpha, w) meets the rule (|w(alpha)|^2 by one pass)."""
    X, y, Ci, code, B = p
    v = np.empty(w.shape[0])
    ay = np.empty(alpha.shape[0])
    multiply(ay, alpha, y)
    rmatvec(X, ay, B, v)
    m = np.empty(alpha.shape[0])
    primal, d = _values(p, alpha, w, v, m, 1)
    return _met(primal, d, m, alpha, Ci, gamma, tol)


@njit(cache=True, inline="always")
def _met(p, d, m, alpha, Ci, gamma, tol):
    """The stopping rule P - D <= tol * P for the problem solved: the book's (P, D given), or
    with smoothing the smoothed-hinge problem, whose P and D are lower by the amounts below."""
    if gamma > 0.0:
        dp, dd = _smoothing_shift(m, alpha, Ci, gamma)
        p -= dp
        d -= dd
    return p - d <= tol * p


@njit(cache=True, inline="always")
def _smoothing_shift(m, alpha, Ci, gamma):
    """P - P_gamma = sum_i C_i (hinge - smoothed hinge)(m_i) and D - D_gamma =
    sum_i gamma alpha_i^2 / (2 C_i) (eq. 6.5: the smoothed loss is hinge minus gamma/2 for
    m <= 1 - gamma, (1 - m)^2 / (2 gamma) on (1 - gamma, 1), and 0 beyond)."""
    dp = 0.0
    dd = 0.0
    for i in range(m.shape[0]):
        r = 1.0 - m[i]
        if r >= gamma:
            dp += 0.5 * gamma * Ci[i]
        elif r > 0.0:
            dp += Ci[i] * (r - 0.5 * r * r / gamma)
        dd += 0.5 * gamma * alpha[i] * alpha[i] / Ci[i]
    return dp, dd


# -- the average over the states T0 .. T-1 of the run (output="average") -------------------
# alpha changes one coordinate at a time, so its running sum is kept lazily: sums[i] gets
# alpha_i times the number of window states it held, when it changes and at the end. SDCA's
# w is then w(average alpha); ASDCA's w is not w(alpha), and its sum is added every
# iteration (an iteration costs O(d) there anyway).

@njit(cache=True, inline="always")
def _held(sums, since, alpha, i, t, T0):
    """alpha_i is about to change at iteration t (state t-1 -> t): count the states it held."""
    if t > T0:
        sums[i] += alpha[i] * (t - max(since[i], T0))
        since[i] = t


@njit(cache=True)
def _average_result(p, s, T, T0):
    """The averaged (alpha, w) over the states T0 .. T-1."""
    X, y, B = p.X, p.y, p.B
    alpha, w, sums, since, w_sum = s.alpha, s.w, s.sums, s.since, s.w_sum
    count = T - T0
    a = np.empty(alpha.shape[0])
    for i in range(a.shape[0]):
        a[i] = (sums[i] + alpha[i] * (T - max(since[i], T0))) / count
    out = np.empty(w.shape[0])
    if w_sum.shape[0] > 0:
        for j in range(out.shape[0]):
            out[j] = w_sum[j] / count
    else:
        ay = np.empty(a.shape[0])
        multiply(ay, a, y)
        rmatvec(X, ay, B, out)
    return a, out
