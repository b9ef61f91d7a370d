"""Dual coordinate descent for linear support vector regression, with shrinking.

The method of Ho and Lin, "Large-scale linear support vector regression" (JMLR 2012,
Algorithm 4), as LIBLINEAR's ``solve_l2r_l1l2_svr`` runs it. It minimises the dual in beta
(:mod:`svmlab.regression`)

    f(beta) = 1/2 beta' (Q + D) beta - z' beta + epsilon |beta|_1,   -U_i <= beta_i <= U_i

one coordinate at a time, keeping w = sum_i beta_i x_i up to date. In beta_i alone, with
G the gradient of the smooth part and H = Q_ii + D_ii, f is the piecewise quadratic

    g(d) = 1/2 H d^2 + G d + epsilon |beta_i + d|

whose slopes right and left of beta_i + d = 0 are G_+ = G + epsilon and G_- = G - epsilon.
Its minimiser, before clipping to [-U_i, U_i], has three cases:

    G_+ < H beta_i:  d = -G_+ / H      (the minimum lies where beta_i + d > 0)
    G_- > H beta_i:  d = -G_- / H      (where beta_i + d < 0)
    otherwise:       d = -beta_i       (the kink: beta_i + d = 0)

An epoch visits the active variables in a random permutation (or in index order, "cyclic").
The violation of a variable is |PG_i| (:func:`svmlab.regression.projected`). Shrinking, with
M the largest violation of the previous epoch: a variable leaves the active set when it sits
at 0 with G_+ > M and G_- < -M, at U_i with G_+ < -M, or at -U_i with G_- > M. Stopping
(LIBLINEAR's rule): the sum of the violations over an epoch falls to ``tol`` times that of
the first epoch (from a warm start, the sum of the violations at beta = 0, about what a cold
start's first epoch sums: measured against a warm first epoch, a start near the optimum would be
held to a far tighter rule); when the shrunk problem meets it, every variable comes back and the
rule must hold on a full epoch.

The run is a :class:`State` that :func:`svmlab.solvers.slices.run` advances a few epochs at a
time (``start``).
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import regression as reg
from .. import trace
from ..jit import njit, ready
from ..rows import dot, matvec, prefetch, prefetch_row, rmatvec, row_axpy, row_dot
from .coordinate import (ACTIVE, EPOCH, LOOKAHEAD, N_ACTIVE, STEPS, ShrinkingState, compact, diagonals, end_pass,
                         primal_size, seed, shrinking_count, shuffle, slice_spent)

Problem = namedtuple("Problem", "X z Ci epsilon code B")
Problem.__doc__ = """One linear regression problem: the rows X (rows.as_rows), targets z, penalties
C_i, the tube's half-width epsilon, the loss code (regression.EPSILON_INSENSITIVE /
SQUARED_EPSILON_INSENSITIVE) and the value B of the bias feature (0: no bias)."""

Rule = namedtuple("Rule", "tol max_iter shrinking cyclic")

Arrays = namedtuple("Arrays", "beta w H U index shrunk count bounds")
Arrays.__doc__ = """The state a slice advances: beta, w, H_i = Q_ii + D_ii, U_i, the active set
index[:active] and the marks of the pass, count (coordinate.shrinking_count) and bounds = [M_old,
the first epoch's summed violation (-1 before it)]."""
_M_OLD, _FIRST = 0, 1


class State(ShrinkingState):
    """A DCD-SVR run, advanced by :func:`svmlab.solvers.slices.run` (see its contract)."""

    def __init__(self, problem, rule, buf, seed_value, beta0=None):
        X, z, n = problem.X, problem.z, len(problem.z)
        H, U, _ = diagonals(X, problem.Ci, problem.code, problem.B, 0.0)  # H_i = Q_ii + D_ii
        first = -1.0
        if beta0 is None:
            beta, w = np.zeros(n), np.zeros(primal_size(X))
        else:  # the rule's reference: the violations at beta = 0 (w = 0, G = -z), not those of the warm start
            beta = np.clip(np.asarray(beta0, dtype=float), -U, U)
            w = rmatvec(X, beta, problem.B, np.zeros(primal_size(X)))  # w(beta) = sum_i beta_i [x_i, B]
            first = float(np.maximum(np.abs(z) - problem.epsilon, 0.0).sum())
        self.problem, self.rule = problem, rule
        self.arrays = Arrays(beta, w, H, U, np.arange(n), np.zeros(n, dtype=np.bool_), shrinking_count(n),
                             np.array([np.inf, first]))
        self._args = (problem, rule, self.arrays, buf)  # _advance's arguments (then a budget)
        if buf.every > 0:  # _advance's code in memory before _begin starts the clock (trace.start_after)
            ready(_advance, *self._args, 1)
        _begin(problem, self.arrays, buf, seed_value)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def result(self):
        return self._result(self.arrays.beta)


def start(problem, stop, buf, rng, beta0=None, shrinking=True, order="permutation"):
    """A DCD-SVR state on ``problem`` (a :data:`Problem`), from beta = 0 or from warm_start's
    ``beta0`` clipped to the box [-U_i, U_i]."""
    rule = Rule(stop.tol, stop.max_iter, shrinking, order == "cyclic")
    return State(problem, rule, buf, int(rng.integers(2**31 - 1)), beta0)


@njit(cache=True)
def _begin(p, s, buf, seed_value):
    seed(seed_value)
    trace.start(buf)
    if buf.every > 0:
        # not (0, False): numba compiles a call with literal arguments apart
        _record(p, buf, s.count[EPOCH], s.count[N_ACTIVE], s.beta, s.w, np.bool_(False))


@njit(cache=True)
def _advance(p, rule, s, buf, budget):
    """At most ``budget`` epochs from the state ``s``, fewer when they grow costlier
    (:func:`coordinate.slice_spent`); returns (epochs run, finished)."""
    count, bounds = s.count, s.bounds
    done, steps, finished = 0, 0, False
    while not (finished or slice_spent(count, budget, done, steps)):
        active = count[ACTIVE]
        if not rule.cyclic:
            shuffle(s.index, active)
        M_new, total, new_active = _pass(p, s, active, bounds[_M_OLD], rule.shrinking)
        if bounds[_FIRST] < 0.0:
            bounds[_FIRST] = total
        met = total <= rule.tol * bounds[_FIRST]  # LIBLINEAR's rule
        unshrunk, finished = end_pass(count, s.index, new_active, met, rule.max_iter)
        bounds[_M_OLD] = np.inf if unshrunk else M_new
        epoch = count[EPOCH]
        if trace.due(buf, epoch, finished):
            _record(p, buf, epoch, new_active, s.beta, s.w, finished)
        done += 1
        steps += active
    count[STEPS] = steps // done
    return done, finished


@njit(cache=True)
def _pass(p, s, active, M_old, shrinking):
    """One epoch over index[:active]. Variables that meet a shrinking condition are marked,
    then dropped from the prefix, the others keeping their order. Returns the largest and the
    summed violation and the new active size."""
    X, z, Ci, epsilon, code, B = p
    beta, w, H, U, index, shrunk = s.beta, s.w, s.H, s.U, s.index, s.shrunk
    M_new, total = 0.0, 0.0
    for t in range(active):
        if t + LOOKAHEAD < active:  # start loading a row a few steps ahead (random order: memory latency)
            r = index[t + LOOKAHEAD]
            prefetch_row(X, r)
            prefetch(beta, r)
            prefetch(z, r)
        i = index[t]
        b, u = beta[i], U[i]
        G = row_dot(X, i, w, B) - z[i] + obj.diag(Ci[i], code) * b  # gradient of the smooth part
        gp, gn = G + epsilon, G - epsilon
        if shrinking and ((b == 0.0 and gp > M_old and gn < -M_old) or (b >= u and gp < -M_old)
                          or (b <= -u and gn > M_old)):
            shrunk[i] = True
            continue
        v = abs(reg.projected(b, G, epsilon, u))
        M_new = max(M_new, v)
        total += v
        new = _step(b, gp, gn, H[i], u)
        if abs(new - b) >= 1e-12:  # LIBLINEAR skips Newton steps below 1e-12
            new = min(max(new, -u), u)
            beta[i] = new
            row_axpy(X, i, new - b, w, B)
    return M_new, total, compact(index, active, shrunk)


@njit(cache=True)
def _step(b, gp, gn, h, u):
    """The minimiser of the one-variable subproblem (the three cases), before clipping to [-u, u]."""
    if h <= 0.0:  # x_i = 0 with the L1 loss and no bias: g is piecewise linear, go where it falls
        return u if gp < 0.0 else (-u if gn > 0.0 else 0.0)
    if gp < h * b:
        return b - gp / h
    if gn > h * b:
        return b - gn / h
    return 0.0


@njit(cache=True)
def _record(p, buf, epoch, n_active, beta, w, last):
    """P, D and the KKT violation max |PG_i| over all variables (one extra pass over X)."""
    X, z, Ci, epsilon, code, B = p
    t = trace.pause(buf)
    n = beta.shape[0]
    f = matvec(X, w, B, np.empty(n))
    r = np.empty(n)
    for i in range(n):
        r[i] = z[i] - f[i]
    wnorm2 = dot(w, w)  # w = w(beta) exactly, bias weight included
    primal = reg.primal_value(wnorm2, r, Ci, epsilon, code)
    d = reg.dual_value(beta, wnorm2, z, Ci, epsilon, code)
    kkt = reg.kkt_violation(beta, reg.gradient(beta, f, z, Ci, code, f), Ci, epsilon, code, False)
    trace.append(buf, trace.Row(epoch, primal, d, kkt, n_active, 0.0, t, B * w[-1]), beta, w, last)
