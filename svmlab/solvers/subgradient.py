"""Primal (sub)gradient descent on P(w) (book chapter 1, Algorithm 1.1).

One epoch is one full (sub)gradient step, a pass over the data::

    v   = sum_i c_i y_i x_i,   c_i = C_i [m_i < 1] (hinge) or 2 C_i max(0, 1 - m_i) (squared hinge)
    w  <- w + eta (v - w)       (the step w <- w - eta * grad P(w), since grad P = w - v)

For the hinge P is 1-strongly convex and not smooth: eta_t = 1/t. Then w_t is exactly the
average of the first t vectors v, so w_t = w(alpha_t) with alpha_t the running average of c:
the method carries a feasible dual point along (0 <= alpha <= C), and the duality gap
P(w_t) - D(alpha_t) certifies it. For the squared hinge P is smooth: eta = 1/L with
L = 1 + 2 max C_i |X|_2^2, and c itself (alpha_i = 2 C_i xi_i, eq. 2.12) is the dual point.

Stops when P - D <= tol * P (returning that certified iterate), or after ``max_iter`` epochs
(returning the iterate of lowest P seen).
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..jit import njit
from ..rows import assign, axpy, dot, margins, multiply, rmatvec, spectral_norm_sq
from . import SolverResult
from .coordinate import starting_point

Rule = namedtuple("Rule", "tol max_iter L t0")
Rule.__doc__ = """The stopping rule, the smoothness constant L of the squared hinge (0 for the
hinge) and the step count t0 the warm start stands for (eta_t = 1 / (t0 + t) for the hinge)."""

Arrays = namedtuple("Arrays", "w alpha c m G v best_w best_alpha reals count")
Arrays.__doc__ = """The state: w, alpha, the scratch c, margins m, G, v, the best iterate so far,
reals = [best P, P, D, |dw|] and count = [epoch, finished]."""
_BEST_P, _P, _D, _DW = 0, 1, 2, 3
_EPOCH, _FINISHED = 0, 1


class State:
    """A run of the (sub)gradient method, advanced by :func:`svmlab.solvers.slices.run`."""

    unit = "epoch"

    def __init__(self, problem, rule, buf, alpha0=None):
        n = len(problem.y)
        alpha, w = starting_point(problem, alpha0)
        self.problem, self.rule = problem, rule
        self.arrays = Arrays(w, alpha, np.empty(n), np.empty(n), np.empty(n), np.empty(w.shape[0]), w.copy(),
                             alpha.copy(), np.array([np.inf, 0.0, 0.0, 0.0]), np.zeros(2, dtype=np.int64))
        self._args = (problem, rule, self.arrays, buf)  # the kernels' arguments (then a budget)
        trace.start_after(buf, (_evaluate, *self._args), (_advance, *self._args, 1))
        _evaluate(*self._args)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def status(self):
        a = self.arrays
        return a.count[_EPOCH], np.sum(a.m < 1.0), a.reals[_P] - a.reals[_D]

    def result(self):
        a = self.arrays
        epoch = int(a.count[_EPOCH])
        if _certified(a.reals[_P], a.reals[_D], self.rule.tol):  # the certified iterate
            return SolverResult(a.alpha, a.w, 0.0, epoch, True)
        return SolverResult(a.best_alpha, a.best_w, 0.0, epoch, False)


def start(problem, stop, buf, rng, alpha0=None):
    """A state on ``problem``; a warm start from ``alpha0`` (clipped to the box) starts at
    w(alpha0) and, for the hinge, counts it as one step of the running average."""
    X, y, Ci, code, B = problem
    L = 1.0 + 2.0 * Ci.max() * spectral_norm_sq(X, B) if code == obj.SQUARED_HINGE else 0.0
    return State(problem, Rule(stop.tol, stop.max_iter, L, 0 if alpha0 is None else 1), trace.used(buf),
                 alpha0)


@njit(cache=True, inline="always")
def _certified(p, d, tol):
    """P - D <= tol |P| with both finite (inf <= inf would read as certified)."""
    return np.isfinite(p) and np.isfinite(d) and p - d <= tol * abs(p)


@njit(cache=True)
def _evaluate(p, rule, s, buf):
    """P and D at the current iterate, the best iterate, the stopping test and the trace;
    leaves v = w(c) for the next step. Returns whether the run is over."""
    X, y, Ci, code, B = p
    w, alpha, c, m, G, v = s.w, s.alpha, s.c, s.m, s.G, s.v
    n = alpha.shape[0]
    epoch = s.count[_EPOCH]
    margins(X, y, w, B, m)
    primal = obj.primal_value(dot(w, w), m, Ci, code)
    for i in range(n):
        r = 1.0 - m[i]
        c[i] = 0.0 if r <= 0.0 else (Ci[i] if code == obj.HINGE else 2.0 * Ci[i] * r)
    multiply(G, c, y)
    rmatvec(X, G, B, v)  # v = w(c)
    if code == obj.SQUARED_HINGE:
        assign(alpha, c)
        d = obj.dual_value(alpha, dot(v, v), Ci, code)
    else:
        d = obj.dual_value(alpha, dot(w, w), Ci, code)  # w = w(alpha) exactly
    if primal < s.reals[_BEST_P]:
        s.reals[_BEST_P] = primal
        assign(s.best_w, w)
        assign(s.best_alpha, alpha)
    s.reals[_P], s.reals[_D] = primal, d
    done = _certified(primal, d, rule.tol) or epoch >= rule.max_iter
    if trace.due(buf, epoch, done):
        t = trace.pause(buf)
        if code == obj.SQUARED_HINGE:  # gradient at alpha needs the margins of w(alpha) = v
            margins(X, y, v, B, G)
            obj.gradient(alpha, G, Ci, code, G)
        else:
            obj.gradient(alpha, m, Ci, code, G)
        kkt = obj.kkt_violation(alpha, G, Ci, code, y, False)
        n_active = np.sum(m < 1.0)
        row = trace.Row(epoch, primal, d, kkt, n_active, s.reals[_DW], t, B * w[-1])
        trace.append(buf, row, alpha, w, done)
    s.count[_FINISHED] = done
    return done


@njit(cache=True)
def _advance(p, rule, s, buf, budget):
    """At most ``budget`` steps; returns (steps taken, finished)."""
    if s.count[_FINISHED]:
        return 0, True
    w, alpha, c, v = s.w, s.alpha, s.c, s.v
    for done in range(1, budget + 1):
        s.count[_EPOCH] += 1
        epoch = s.count[_EPOCH]
        eta = 1.0 / (rule.t0 + epoch) if p.code == obj.HINGE else 1.0 / rule.L
        axpy(-1.0, w, v)  # v - w = -grad P
        s.reals[_DW] = eta * np.sqrt(dot(v, v))
        axpy(eta, v, w)
        if p.code == obj.HINGE:
            axpy(-1.0, alpha, c)
            axpy(eta, c, alpha)
        if _evaluate(p, rule, s, buf):
            return done, True
    return budget, False
