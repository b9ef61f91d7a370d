"""Projected gradient on the dual (book chapter 2, Algorithm 2.1).

Minimises f(alpha) = -D(alpha) = 1/2 alpha' Q-bar alpha - e' alpha over the feasible set::

    alpha <- Proj(alpha - G / L),   G = Q-bar alpha - e,   L >= largest eigenvalue of Q-bar

The feasible set is the box 0 <= alpha <= U, and with a free bias also the hyperplane
sum_i y_i alpha_i = 0 (the projection onto both is found by bisection on the multiplier of
the hyperplane). One epoch is one gradient, a pass over the data (linear: w = X'(alpha y),
then X w) or over Q (kernel). L comes from :func:`svmlab.rows.spectral_norm_sq` (exact to
rounding for a side of at most 1000, else power iteration, as for Q); should it under-estimate
and f rise, L is doubled and the step retried, so f never increases.

Stops when the KKT violation (:func:`svmlab.objective.kkt_violation`) is at most ``tol``.
"""

from collections import namedtuple

import numpy as np

from .. import objective as obj
from .. import trace
from ..jit import njit
from ..kernels import kernel_matrix
from ..rows import assign, axpy, dot, matvec, multiply, power_iteration, rmatvec, spectral_norm_sq
from . import SolverResult
from .coordinate import box, primal_size

Form = namedtuple("Form", "A y Ci code B kernel_form hyperplane")
Form.__doc__ = """The dual as this solver sees it: A is X (explicit features, bias feature B) or
Q (``kernel_form``); ``hyperplane`` is y for a free bias, whose hyperplane y'alpha = 0 the
feasible set adds, else None (the kernels are then compiled without the free bias' code)."""

Arrays = namedtuple("Arrays", "alpha w m G new step m_new U reals count")
Arrays.__doc__ = """The state: alpha, w (explicit features; the bias for a kernel), m = Q alpha,
the gradient G, the scratch new, step, m_new, the box U, reals = [f, L, |dw|, b, KKT] and
count = [epoch, finished, converged]."""
_F, _L, _DW, _B, _KKT = 0, 1, 2, 3, 4
_EPOCH, _FINISHED, _CONVERGED = 0, 1, 2


class State:
    """A run of projected gradient, advanced by :func:`svmlab.solvers.slices.run`."""

    unit = "epoch"

    def __init__(self, form, stop, L, buf, alpha0=None):
        n = form.y.shape[0]
        U = box(form.Ci, form.code)
        w = np.zeros(1 if form.kernel_form else primal_size(form.A))
        alpha, m, f = np.zeros(n), np.zeros(n), 0.0
        if alpha0 is not None:  # the old alpha projected onto the new feasible set
            _project(np.asarray(alpha0, dtype=float), form.hyperplane, U, alpha)
            _margins(form.A, form.y, alpha, form.B, form.kernel_form, w, m)
            f = _f(alpha, m, form.Ci, form.code)
        self.form, self.stop = form, stop
        self.arrays = Arrays(alpha, w, m, np.empty(n), np.empty(n), np.empty(n), np.empty(n), U,
                             np.array([f, L, 0.0, 0.0, np.inf]), np.zeros(3, dtype=np.int64))
        self._args = (form, stop, self.arrays, buf)  # the kernels' arguments (then a budget)
        trace.start_after(buf, (_evaluate, *self._args), (_advance, *self._args, 1))
        _evaluate(*self._args)

    def advance(self, budget):
        return _advance(*self._args, budget)

    def status(self):
        a = self.arrays
        return a.count[_EPOCH], np.sum(a.alpha > 0.0), np.nan

    def result(self):
        a = self.arrays
        return SolverResult(a.alpha, None if self.form.kernel_form else a.w, a.reals[_B], int(a.count[_EPOCH]),
                            bool(a.count[_CONVERGED]))


def start_linear(problem, stop, buf, rng, alpha0=None):
    """Explicit features, no bias or a regularized one (no equality constraint)."""
    X, y, Ci, code, B = problem
    L = _positive(spectral_norm_sq(X, B) + _max_diag(Ci, code))
    return State(Form(X, y, Ci, code, B, False, None), stop, L, trace.used(buf), alpha0)


def start_kernel(problem, stop, buf, rng, alpha0=None):
    """A kernel: builds Q_ij = y_i y_j K(x_i, x_j) (n x n, stored); ``free`` adds the free bias."""
    X, kernel, y, Ci, code, free = problem
    Q = y[:, None] * kernel_matrix(kernel, X, X) * y[None, :]
    # lambda_max(Q) is the root of lambda_max(Q' Q = Q^2); power iteration's Q^2 overflows to inf
    # for a Q past 1e154, which _positive refuses with a clear error
    L = _positive(np.sqrt(power_iteration(Q, 0.0)) + _max_diag(Ci, code))
    return State(Form(Q, y, Ci, code, 0.0, True, y if free else None), stop, L, trace.used(buf), alpha0)


def _positive(L):
    """L for the step 1/L: 1 where the data are all zero (f is then linear in alpha, and any
    step reaches the box's corner; the monotone check guards it), a ValueError if not finite."""
    if not np.isfinite(L):
        raise ValueError("X is so large that the Lipschitz constant of the dual gradient overflows float64; "
                         "rescale X (e.g. standardize its columns).")
    return L if L > 0.0 else 1.0


def _max_diag(Ci, code):
    return 0.5 / Ci.min() if code == obj.SQUARED_HINGE else 0.0


@njit(cache=True, inline="always")
def _margins(A, y, alpha, B, kernel_form, w, out):
    """(Q alpha)_i = y_i w(alpha).x_i; for explicit features also refreshes w = X'(alpha y)."""
    if kernel_form:
        return matvec(A, alpha, 0.0, out)
    multiply(out, alpha, y)
    rmatvec(A, out, B, w)
    matvec(A, w, B, out)
    multiply(out, out, y)
    return out


@njit(cache=True, inline="always")
def _f(alpha, m, Ci, code):
    return -obj.dual_value(alpha, dot(alpha, m), Ci, code)


@njit(cache=True)
def _project(v, y, U, out):
    """Euclidean projection of v onto the box [0, U] (and the hyperplane y'alpha = 0 unless y
    is None)."""
    if y is None:
        for i in range(v.shape[0]):
            out[i] = min(max(v[i], 0.0), U[i])
        return out
    lo, hi = -1.0, 1.0
    for _ in range(MAX_DOUBLINGS):  # h(mu) = y'clip(v - mu y) falls from >= 0 to <= 0 as mu grows
        if _y_dot_clip(v, y, U, lo, out) >= 0.0:
            break
        lo *= 2.0
    for _ in range(MAX_DOUBLINGS):
        if _y_dot_clip(v, y, U, hi, out) <= 0.0:
            break
        hi *= 2.0
    for _ in range(200):  # h(mu) = y'clip(v - mu y) falls with mu: bisect for its zero
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        if _y_dot_clip(v, y, U, mid, out) > 0.0:
            lo = mid
        else:
            hi = mid
    _y_dot_clip(v, y, U, 0.5 * (lo + hi), out)
    return out


@njit(cache=True)
def _free_bias(alpha, G, Ci, code, y):
    """The free bias (objective.free_bias); 0 when y is None (no free bias)."""
    return 0.0 if y is None else obj.free_bias(alpha, G, Ci, code, y)


@njit(cache=True, inline="always")
def _y_dot_clip(v, y, U, mu, out):
    s = 0.0
    for i in range(v.shape[0]):
        out[i] = min(max(v[i] - mu * y[i], 0.0), U[i])
        s += y[i] * out[i]
    return s


MAX_DOUBLINGS = 1100  # of the bisection's bracket: 2^1100 is beyond every float64
MAX_HALVINGS = 64  # of the step 1/L: past 2^-64 of the step from the power iteration, f does not fall


@njit(cache=True, inline="always")
def _descent_step(p, s, f, L):
    """The projected step from alpha with step 1/L, L doubled until f does not rise; returns
    (f at the new point, the L used), or (f, inf) when MAX_HALVINGS doublings did not do (f
    not finite, or the problem unbounded: an indefinite kernel with the squared hinge)."""
    for _ in range(MAX_HALVINGS):
        assign(s.step, s.alpha)
        axpy(-1.0 / L, s.G, s.step)
        _project(s.step, p.hyperplane, s.U, s.new)
        _margins(p.A, p.y, s.new, p.B, p.kernel_form, s.w, s.m_new)
        f_new = _f(s.new, s.m_new, p.Ci, p.code)
        if f_new <= f + 1e-12 * abs(f):
            return f_new, L
        L *= 2.0
    return f, np.inf


@njit(cache=True)
def _evaluate(p, stop, s, buf):
    """The gradient, the KKT violation, the bias, the stopping test and the trace at alpha;
    returns whether the run is over."""
    alpha, m, G, y, Ci, code = s.alpha, s.m, s.G, p.y, p.Ci, p.code
    epoch = s.count[_EPOCH]
    obj.gradient(alpha, m, Ci, code, G)
    kkt = obj.kkt_violation(alpha, G, Ci, code, y, p.hyperplane is not None)
    done = kkt <= stop.tol or epoch >= stop.max_iter
    b = _free_bias(alpha, G, Ci, code, p.hyperplane)
    s.reals[_B], s.reals[_KKT] = b, kkt
    if trace.due(buf, epoch, done):
        t = trace.pause(buf)
        wnorm2 = dot(alpha, m)
        axpy(b, y, m)  # margins with the free bias, for P
        primal = obj.primal_value(wnorm2, m, Ci, code)
        axpy(-b, y, m)
        if p.kernel_form:
            s.w[0] = b  # a kernel solver's snapshot "w" is its bias
        else:
            b = p.B * s.w[-1]  # the weight of the bias feature, in units of b
        row = trace.Row(epoch, primal, -s.reals[_F], kkt, np.sum(alpha > 0.0), s.reals[_DW], t, b)
        trace.append(buf, row, alpha, s.w, done)
    s.count[_FINISHED] = done
    s.count[_CONVERGED] = kkt <= stop.tol
    return done


@njit(cache=True)
def _advance(p, stop, s, buf, budget):
    """At most ``budget`` epochs of Algorithm 2.1; returns (epochs run, finished)."""
    if s.count[_FINISHED]:
        return 0, True
    for done in range(1, budget + 1):
        s.count[_EPOCH] += 1
        f_new, L = _descent_step(p, s, s.reals[_F], s.reals[_L])
        s.reals[_L] = L
        if L == np.inf:  # no step lowers f: stop uncertified, w back at w(alpha)
            _margins(p.A, p.y, s.alpha, p.B, p.kernel_form, s.w, s.m)
            s.count[_FINISHED], s.count[_CONVERGED] = 1, 0
            return done, True
        dw2 = dot(s.new, s.m_new) - 2.0 * dot(s.alpha, s.m_new) + dot(s.alpha, s.m)  # |dw|^2 = d' Q d
        s.reals[_DW] = np.sqrt(max(dw2, 0.0))
        assign(s.alpha, s.new)
        assign(s.m, s.m_new)
        s.reals[_F] = f_new
        if _evaluate(p, stop, s, buf):
            return done, True
    return budget, False
