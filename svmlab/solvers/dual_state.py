"""The state of a kernel dual that SMO and kernel DCD share, its warm start and its recording.

Both solvers minimise f(alpha) = 1/2 alpha' Q-bar alpha + p' alpha over the box
0 <= alpha_i <= U_i (SMO also keeps y' alpha = 0, a free bias), Q-bar = Q + D, with Q a
:data:`svmlab.solvers.qmatrix.QMatrix` of signs y (the labels for classification, where
p = -e; +1 for alpha and -1 for alpha^* in epsilon-SVR). The state holds alpha, the gradient
G = Q-bar alpha + p, LIBSVM's G_bar (the part of G from the variables at their upper bound, for
rebuilding G after shrinking), the box, the diagonals and the active set ``order``. A trace row
is computed afresh from alpha, by the problem's own definitions (:mod:`svmlab.objective`;
:mod:`svmlab.regression` for SVR). A run is a :class:`DualRun`, which holds the kernel cache's
memory from its start to its end.
"""

import math
from collections import namedtuple
from contextlib import ExitStack

import numpy as np

from .. import objective as obj
from .. import regression as reg
from .. import trace
from ..jit import REFCOUNTS, inner, njit
from ..kernel_rows import column, work_vector
from ..rows import dot
from .kernel_cache import HITS, MISSES, opened
from .qmatrix import diagonal, q_full_column

State = namedtuple("State", "alpha status G G_bar U D QD order p")
Scratch = namedtuple("Scratch", "work col grad margins prev_margins prev_alpha everyone stride stats")
Problem = namedtuple("Problem", "Q p Ci code free z epsilon")
Problem.__doc__ = """min 1/2 alpha' (Q + D) alpha + p' alpha over 0 <= alpha <= U(Ci, code), and y' alpha = 0
when ``free`` (y = Q.s; LIBSVM's Solver); z and epsilon are the regression's targets and tube
for its trace rows (z None for classification, so that a classifier compiles no regression row:
:func:`record_row`)."""

UP, LOW = 1, 2  # the bits of State.status: i in I_up, i in I_low (eq. 5.9)


class DualRun:
    """What the states of SMO and kernel DCD share (the contract of :mod:`svmlab.solvers.slices`):
    ``advance`` runs the solver's ``_slice`` and, once the run has finished, gives the kernel
    cache's memory back for the next run (:func:`held_cache`; a run dropped unfinished, as by
    Ctrl-C, gives it back when it is garbage-collected)."""

    def __init__(self, hold):
        self._hold = hold

    def advance(self, budget):
        done, finished = self._slice(budget)
        if finished:
            self._hold.close()
        return done, finished


def held_cache(m, cache_size):
    """(hold, cache): a kernel cache of ``cache_size`` MB for columns of length m, on the pool the
    last run left (:func:`svmlab.solvers.kernel_cache.opened`), held until ``hold.close()``."""
    hold = ExitStack()
    return hold, hold.enter_context(opened(m, cache_size))


@njit(cache=True, inline="always")
def set_alpha(st, y, i, a):
    """alpha_i = a, and its status: in I_up = {y = +1, alpha < U or y = -1, alpha > 0}, in
    I_low = {y = +1, alpha > 0 or y = -1, alpha < U}. The selection loops then read one
    byte per sample instead of alpha, y and U (LIBSVM keeps an alpha_status likewise)."""
    st.alpha[i] = a
    below, above = a < st.U[i], a > 0.0
    up, low = (below, above) if y[i] > 0.0 else (above, below)
    st.status[i] = (UP if up else 0) | (LOW if low else 0)


def new_state(prob):
    """The arrays of a state of ``prob`` (a :data:`Problem`) with G = p and QD = Q_jj, to be filled in
    by :func:`begin` when the run begins (made in NumPy: a kernel that returned them would compile
    the boxing of every array; and Q_jj from NumPy spares each solver's loop the kernel's code)."""
    n = prob.p.shape[0]
    return State(np.zeros(n), np.zeros(n, dtype=np.int8), prob.p.copy(), np.zeros(n), np.empty(n), np.empty(n),
                 diagonal(prob.Q), np.arange(n), prob.p)


@njit(cache=True, inline="always")
def begin(st, prob, seed, alpha0, work):
    """A run's start, in its first slice: numba's generator seeded; alpha = 0, G = p, G_bar = 0, the
    box U, the diagonal D and Q-bar_ii = Q_ii + D_ii (QD holds Q_ii from :func:`new_state`), all
    active; and the state moved to alpha0 (warm start) unless that is None (then no warm start is
    compiled). The trace's clock starts after it: set-up is not the solver's time, as for the
    linear solvers (:func:`svmlab.trace.start_after`)."""
    np.random.seed(seed)
    y = prob.Q.s
    for i in range(y.shape[0]):
        st.U[i] = obj.upper(prob.Ci[i], prob.code)
        st.D[i] = obj.diag(prob.Ci[i], prob.code)
        st.QD[i] += st.D[i]
        set_alpha(st, y, i, 0.0)
    if alpha0 is not None:
        start_from(st, prob, alpha0, work)


@njit(cache=True)
def start_from(st, prob, alpha0, work):
    """warm_start: the state at alpha0 (a previous run's alpha) instead of 0. alpha0 is clipped
    to this problem's box [0, U_i]; when that moved a variable of a problem with y'alpha = 0,
    :func:`rebalance` makes it hold again. Then G = Q-bar alpha + p and G_bar from the columns of
    the non-zero alpha_j, as LIBSVM's Solver::Solve starts from a given alpha."""
    y, n = prob.Q.s, st.alpha.shape[0]
    clipped = False
    for i in range(n):
        a = min(max(alpha0[i], 0.0), st.U[i])
        clipped |= a != alpha0[i]
        set_alpha(st, y, i, a)
    if clipped and prob.free:
        rebalance(st, y)
    for j in range(n):
        a = st.alpha[j]
        if a > 0.0:
            Qj = q_full_column(prob.Q, j, st.order, work)
            for k in range(n):
                st.G[k] += a * Qj[k]
            st.G[j] += st.D[j] * a
            if a >= st.U[j]:
                for k in range(n):
                    st.G_bar[k] += st.U[j] * Qj[k]


@njit(cache=True)
def rebalance(st, y):
    """Restore y'alpha = 0 inside the box after clipping. With A+ and A- the sums of alpha over
    y = +1 and over y = -1, the variables of the larger sum are scaled by min(A+, A-) / max(A+, A-):
    scaling down stays in [0, U_i] and leaves every zero at zero (no new support vector). When C
    is lowered, every variable at the old bound is clipped to the new one and the free ones below
    it are kept, so the start keeps the old solution's shape; DeCoste and Wagstaff's "alpha
    seeding" (2000) scales every alpha by C / C_old instead. SMO then runs from a feasible point,
    and its pairs keep y'alpha = 0 from there."""
    plus = minus = 0.0
    for i in range(y.shape[0]):
        if y[i] > 0.0:
            plus += st.alpha[i]
        else:
            minus += st.alpha[i]
    if plus == minus:
        return
    larger = 1.0 if plus > minus else -1.0
    ratio = min(plus, minus) / max(plus, minus)
    for i in range(y.shape[0]):
        if y[i] == larger:
            set_alpha(st, y, i, st.alpha[i] * ratio)


def new_scratch(kr, n, buf):
    """Work vectors: :func:`svmlab.kernel_rows.work_vector`, n-vectors for records, the index 0..n-1, and
    the factor by which records have been thinned (see :func:`row_due`), the SMOInfo.record_stats
    (none without a trace, ``buf`` None)."""
    n_records = 0 if buf is None else buf.rows.shape[0]
    return Scratch(work_vector(kr), np.empty(n), np.empty(n), np.zeros(n), np.zeros(n), np.zeros(n), np.arange(n),
                   np.ones(1, dtype=np.int64), np.zeros((n_records, 4), dtype=np.int64))


@njit(cache=True, inline="always")  # one call in kernel DCD; SMO calls it through smo._reconstruct
def reconstruct_gradient(st, Q, active_size, work):
    """G on the inactive set from G_bar and the free variables (LIBSVM's reconstruction)."""
    order, G, alpha = st.order, st.G, st.alpha
    n = G.shape[0]
    for t in range(active_size, n):
        k = order[t]
        G[k] = st.G_bar[k] + st.p[k] + st.D[k] * alpha[k]
    for t in range(active_size):
        j = order[t]
        if 0.0 < alpha[j] < st.U[j]:
            Qj = q_full_column(Q, j, order, work)
            for s in range(active_size, n):
                k = np.uint64(order[s])  # unsigned: no test for a negative index (CONTRIBUTING.md)
                G[k] += alpha[j] * Qj[k]


@inner
def row_due(buf, t, done, sc):
    """Whether step t takes a trace row: every k steps (``trace=k``) times the thinning factor,
    and the last. When the rows are full, every other row (and its record_stats) is dropped and
    the factor doubles, so the trace always spans the whole run (at most max_iter // k + 2 rows)."""
    if not trace.due(buf, t, done):
        return False
    if done:
        return True
    if buf.state[0] >= buf.rows.shape[0] - 1:  # keep the last row for the final state
        kept = 0
        for r in range(0, buf.state[0], 2):
            for c in range(buf.rows.shape[1]):
                buf.rows[kept, c] = buf.rows[r, c]
            for c in range(sc.stats.shape[1]):
                sc.stats[kept, c] = sc.stats[r, c]
            kept += 1
        buf.state[0] = kept
        sc.stride[0] *= 2
    return t % (buf.every * sc.stride[0]) == 0


@inner(**REFCOUNTS)  # allocates the row's vectors
def record_row(buf, t, done, st, prob, n_active, sc):
    """The trace row of step t: of epsilon-SVR when ``prob`` has targets z, else of classification.
    A solver calls it (and :func:`row_due`) under ``buf is not None``: without a trace (``buf``
    None, :func:`svmlab.trace.used`) numba then compiles no recording code."""
    _record(buf, t, done, st, prob, prob.z, n_active, sc)


@inner
def _record(buf, t, done, st, prob, z, n_active, sc):
    # z an argument of a function of its own (not inlined): numba drops the branch that z None rules out
    if z is not None:
        _regression_row(buf, t, done, st, prob, n_active, sc)
    else:
        _classification_row(buf, t, done, st, prob, n_active, sc)


@inner
def _classification_row(buf, t, done, st, prob, n_active, sc):
    """A trace row of the classification dual from the exact gradient (computed afresh, outside
    the cache), with the free bias by LIBSVM's rule, or b = 0 without one."""
    kr, y, Ci, code = prob.Q.kr, prob.Q.s, prob.Ci, prob.code
    elapsed = trace.pause(buf)
    alpha, n = st.alpha, y.shape[0]
    G, m = sc.grad, sc.margins
    for k in range(n):
        m[k] = 0.0
    for j in range(n):
        if alpha[j] > 0.0:
            column(kr, j, sc.everyone, 0, n, sc.work, sc.col)
            for k in range(n):
                m[k] += alpha[j] * y[j] * y[k] * sc.col[k]
    obj.gradient(alpha, m, Ci, code, G)
    b = obj.free_bias(alpha, G, Ci, code, y) if prob.free else 0.0
    wnorm2 = dot(alpha, m)
    dw2 = wnorm2 - 2.0 * dot(sc.prev_alpha, m) + dot(sc.prev_alpha, sc.prev_margins)
    for k in range(n):
        sc.prev_alpha[k] = alpha[k]
        sc.prev_margins[k] = m[k]
        m[k] += y[k] * b
    p = obj.primal_value(wnorm2, m, Ci, code)
    kkt = obj.kkt_violation(alpha, G, Ci, code, y, prob.free)
    _stats_row(sc.stats[buf.state[0]], alpha, st.U, prob.Q.cache)
    row = trace.Row(t, p, obj.dual_value(alpha, wnorm2, Ci, code), kkt, n_active, math.sqrt(max(dw2, 0.0)),
                    elapsed, b)
    trace.append(buf, row, alpha, np.empty(0), done)  # no w: a kernel solver's model is alpha and b


@inner
def _regression_row(buf, t, done, st, prob, n_active, sc):
    """A trace row of epsilon-SVR (L1 loss, free bias) at beta = alpha - alpha^*, by the
    definitions of :mod:`svmlab.regression`."""
    elapsed = trace.pause(buf)
    z, epsilon = prob.z, prob.epsilon
    kr, n = prob.Q.kr, z.shape[0]
    Ci = prob.Ci[:n]
    f, G = sc.margins, sc.grad
    beta = np.empty(n)
    for i in range(n):
        beta[i] = st.alpha[i] - st.alpha[n + i]
        f[i] = 0.0
    for j in range(n):
        if beta[j] != 0.0:
            column(kr, j, sc.everyone, 0, n, sc.work, sc.col)
            for k in range(n):
                f[k] += beta[j] * sc.col[k]
    reg.gradient(beta, f, z, Ci, reg.EPSILON_INSENSITIVE, G)
    b = reg.free_bias(beta, G, Ci, epsilon, reg.EPSILON_INSENSITIVE)
    wnorm2 = dot(beta, f)
    dw2 = wnorm2 - 2.0 * dot(sc.prev_alpha, f) + dot(sc.prev_alpha, sc.prev_margins)
    r = np.empty(n)
    for k in range(n):
        sc.prev_alpha[k] = beta[k]
        sc.prev_margins[k] = f[k]
        r[k] = z[k] - f[k] - b
    p = reg.primal_value(wnorm2, r, Ci, epsilon, reg.EPSILON_INSENSITIVE)
    d = reg.dual_value(beta, wnorm2, z, Ci, epsilon, reg.EPSILON_INSENSITIVE)
    kkt = reg.kkt_violation(beta, G, Ci, epsilon, reg.EPSILON_INSENSITIVE, True)
    _stats_row(sc.stats[buf.state[0]], beta, Ci, prob.Q.cache)
    trace.append(buf, trace.Row(t, p, d, kkt, n_active, math.sqrt(max(dw2, 0.0)), elapsed, b), beta, np.empty(0),
                 done)


@inner
def _stats_row(row, alpha, U, cache):
    """SMOInfo.record_stats of a trace row: the free and the bounded support vectors (|alpha_i|
    against U_i, so for beta too), the cache's hits and misses."""
    row[0] = row[1] = 0
    for k in range(alpha.shape[0]):
        if abs(alpha[k]) >= U[k]:
            row[1] += 1
        elif alpha[k] != 0.0:
            row[0] += 1
    row[2] = cache.state[HITS]
    row[3] = cache.state[MISSES]


@njit(cache=True, inline="always")
def n_support(alpha):
    count = 0
    for a in alpha:
        count += a > 0.0
    return count


@njit(cache=True, inline="always")  # one call in each solver: no module of its own
def update_gradient_bar(st, Q, i, work):
    """G_bar += U_i Q_:i when alpha_i reached its upper bound, -= when it left it."""
    Qfull = q_full_column(Q, i, st.order, work)
    change = (1.0 if st.alpha[i] >= st.U[i] else -1.0) * st.U[i]
    for k in range(st.G_bar.shape[0]):
        st.G_bar[k] += change * Qfull[k]
