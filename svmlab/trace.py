"""What a solver records while it runs, for convergence plots and animations.

A solver kernel receives :class:`Buffers` and appends a :data:`Row` every ``every`` steps
(:func:`append`); with ``every == 0`` the buffers are
empty and the kernel computes nothing extra. Plots and animations read the resulting
:class:`Trace`; they never run a solver.
"""

import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import objmode

from .jit import njit, ready

FIELDS = ("epoch", "primal", "dual", "gap", "kkt", "n_active", "dw_norm", "time", "intercept")
MAX_SNAPSHOTS = 64
MAX_ROWS = 2048  # a trace keeps at most this many records, thinned as it fills (not sized by max_iter)
MAX_SNAPSHOT_FLOATS = 4_000_000

Buffers = namedtuple("Buffers", "every rows state clock snap_epoch snap_alpha snap_w snap_b")
Buffers.__doc__ = """Trace buffers a numba kernel writes into.

every: record every k steps (0: off); rows: (R, 9) float64, one row per record, columns
FIELDS, R <= MAX_ROWS; state: int64 [records, snapshots, snapshot stride, record stride] (records
are kept every ``every * record stride`` steps; the stride doubles, dropping every other row,
when the rows fill); clock: float64 [start, time spent recording, start of the current record];
snap_*: bounded snapshots of alpha, w (empty for kernel solvers) and the intercept.
"""

Row = namedtuple("Row", "epoch primal dual kkt n_active dw_norm time intercept")
Row.__doc__ = """One record as a solver kernel appends it (:func:`append`): the step count, P, D, the KKT
violation, the active set size, |w_k - w_(k-1)|, the solver's seconds and the intercept b (for
the linear solvers B times the weight of the bias feature; 0 without a bias)."""


@dataclass
class Trace:
    """A solver's record, one entry per recorded step.

    ``epoch`` counts the solver's steps in units of ``unit``: "epoch", passes over the data,
    for every solver but SMO, whose steps are single pair updates ("pair update"), and
    coordinate descent with shrinking, whose epochs pass over the active set only ("active-set
    epoch");
    ``primal``, ``dual`` and ``gap`` are P(w), D(alpha) and P - D of the book's C-form
    problem; ``kkt`` the KKT violation (see :func:`svmlab.objective.kkt_violation`);
    ``n_active`` the samples the solver still works on: the active set with shrinking; without it
    all n for coordinate descent (linear and kernel DCD, DCD-SVR: the variables an epoch visits), the
    support vectors for SMO and the other dual solvers, the margin violators for the primal
    subgradient; ``dw_norm`` is
    |w_k - w_(k-1)| between records; ``time`` the solver's seconds since it started, without the
    cost of recording (it starts after the run's set-up: arrays made, warm start applied, code
    loaded: :func:`start_after`); ``intercept`` the bias b at each record (the free bias of the kernel solvers,
    B times the bias feature's weight for the linear ones, 0 without a bias).

    ``snapshot_*`` hold at most ``MAX_SNAPSHOTS`` states (alpha, coef, intercept) spread evenly
    over the run, the last state always among them: the frames of an animation.
    """

    solver: str
    epoch: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    gap: np.ndarray
    kkt: np.ndarray
    n_active: np.ndarray
    dw_norm: np.ndarray
    time: np.ndarray
    snapshot_epoch: np.ndarray
    snapshot_alpha: np.ndarray
    snapshot_coef: np.ndarray
    snapshot_intercept: np.ndarray
    intercept: np.ndarray = None
    unit: str = "epoch"

    def __post_init__(self):
        if self.intercept is None:  # a trace made by hand, without intercepts
            self.intercept = np.full(len(self.epoch), np.nan)

    def __len__(self):
        return len(self.epoch)

    def __repr__(self):
        if not len(self):
            return f"Trace({self.solver!r}, empty)"
        return (f"Trace({self.solver!r}, {len(self)} records, {self.unit}s {self.epoch[0]}..{self.epoch[-1]}, "
                f"final gap {self.gap[-1]:.3e}, {len(self.snapshot_epoch)} snapshots)")


class Recorder:
    """Allocates the buffers for one solve and turns them into a :class:`Trace` afterwards."""

    def __init__(self, every, max_epochs, n_samples, w_size):
        self.every = int(every)
        on = self.every > 0
        n_rows = min(max_epochs // self.every + 2, MAX_ROWS) if on else 0
        n_snap = min(MAX_SNAPSHOTS, MAX_SNAPSHOT_FLOATS // max(n_samples + w_size, 1)) if on else 0
        self.buffers = Buffers(
            np.int64(self.every),
            np.zeros((n_rows, len(FIELDS))),
            np.array([0, 0, 1, 1], dtype=np.int64),
            np.zeros(3),
            np.zeros(n_snap, dtype=np.int64),
            np.zeros((n_snap, n_samples if on else 0)),
            np.zeros((n_snap, w_size if on else 0)),
            np.zeros(n_snap),
        )

    def to_trace(self, solver, coef_of, unit="epoch"):
        """The :class:`Trace`, or None when nothing was recorded.

        ``coef_of`` maps a solver's w vector to the coef in user units; the intercepts are the
        ones the solver recorded (:func:`append`). ``unit`` names the solver's
        step (its state's ``unit``).
        """
        if self.every == 0:
            return None
        b = self.buffers
        rows = b.rows[: b.state[0]]
        k = b.state[1]
        coef = np.array([coef_of(w) for w in b.snap_w[:k]]) if k else np.zeros((0, 0))
        columns = {name: rows[:, j].copy() for j, name in enumerate(FIELDS)}
        columns["epoch"] = columns["epoch"].astype(np.int64)
        columns["n_active"] = columns["n_active"].astype(np.int64)
        return Trace(solver, **columns, snapshot_epoch=b.snap_epoch[:k].copy(),
                     snapshot_alpha=b.snap_alpha[:k].copy(), snapshot_coef=coef,
                     snapshot_intercept=b.snap_b[:k].copy(), unit=unit)


def used(buf):
    """The buffers as a solver kernel takes them: ``buf`` when recording, None when not. A kernel
    compiled for None has no recording code: numba drops a branch under ``buf is not None``
    when it compiles for None, so a fit without a trace never compiles the trace's code."""
    return buf if buf.every > 0 else None


@njit(cache=True)
def now():
    """Wall-clock seconds, readable inside a numba kernel."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


def start_after(buf, *calls):
    """Start a traced run's clock once the kernels it will call are in memory: each ``(kernel,
    *args)`` of ``calls`` is loaded for those arguments first (:func:`svmlab.jit.ready`). numba
    loads a kernel at its first call in a process, 11-15 ms on the project's machine, more than
    the epochs of a short run: a clock started before would count that as the solver's time.
    Nothing without a trace (``buf`` None, or recording every 0 steps)."""
    if buf is None or buf.every == 0:
        return
    for kernel, *args in calls:
        ready(kernel, *args)
    start(buf)


@njit(cache=True)
def start(buf):
    """Start the solver's clock (only when recording); a run whose clock starts in Python calls
    :func:`start_after`, a kernel calls this after its set-up."""
    if buf.every > 0:
        buf.clock[0] = now()
        buf.clock[1] = 0.0


@njit(cache=True, inline="always")
def due(buf, epoch, done):
    """Whether this epoch is recorded: every ``every`` epochs (times the record stride, once the
    rows have been thinned), and the last one; never without a trace (``buf`` None, :func:`used`:
    inlined into a kernel compiled for None, the branch it guards is dropped)."""
    return buf is not None and buf.every > 0 and (done or epoch % (buf.every * buf.state[3]) == 0)


@njit(cache=True, inline="always")
def pause(buf):
    """Stop the solver's clock for a record; returns the solver time so far."""
    t = now()
    buf.clock[2] = t
    return t - buf.clock[0] - buf.clock[1]


@njit(cache=True)
def append(buf, row, alpha, w, last):
    """Append one :data:`Row`, keep a snapshot (alpha, w, intercept) when due, and restart the
    solver's clock. When the rows are full but for the last, every other record is dropped and
    the record stride doubles, so that the trace spans the whole run in a bounded buffer."""
    if not last and buf.state[0] >= buf.rows.shape[0] - 1:
        _thin(buf)
        if row.epoch % (buf.every * buf.state[3]) != 0:
            buf.clock[1] += now() - buf.clock[2]
            return
    k = buf.state[0]
    if k < buf.rows.shape[0]:
        out = buf.rows[k]
        out[0] = row.epoch
        out[1] = row.primal
        out[2] = row.dual
        out[3] = row.primal - row.dual
        out[4] = row.kkt
        out[5] = row.n_active
        out[6] = row.dw_norm
        out[7] = row.time
        out[8] = row.intercept
        buf.state[0] = k + 1
        _snapshot(buf, k, row.epoch, alpha, w, row.intercept, last)
    buf.clock[1] += now() - buf.clock[2]


@njit(cache=True, inline="always")
def _thin(buf):
    """Keep rows 0, 2, 4, ... and double the record stride."""
    kept = 0
    for r in range(0, buf.state[0], 2):
        for c in range(buf.rows.shape[1]):
            buf.rows[kept, c] = buf.rows[r, c]
        kept += 1
    buf.state[0] = kept
    buf.state[3] *= 2


@njit(cache=True, inline="always")
def _snapshot(buf, k, epoch, alpha, w, b, last):
    """Keep records 0, s, 2s, ... with s doubling whenever the buffer fills; always the last."""
    cap = buf.snap_epoch.shape[0]
    stride = buf.state[2]
    s = buf.state[1]
    if cap == 0 or (k % stride != 0 and not last):
        return
    if s == cap:
        for j in range(cap // 2):
            _store(buf, j, buf.snap_epoch[2 * j], buf.snap_alpha[2 * j], buf.snap_w[2 * j], buf.snap_b[2 * j])
        s = cap // 2
        stride *= 2
        buf.state[2] = stride
        if k % stride != 0 and not last:
            buf.state[1] = s
            return
    _store(buf, s, epoch, alpha, w, b)
    buf.state[1] = s + 1


@njit(cache=True, inline="always")
def _store(buf, s, epoch, alpha, w, b):
    # element loops: numba compiles slice assignment between arrays far more slowly
    buf.snap_epoch[s] = epoch
    buf.snap_b[s] = b
    for j in range(alpha.shape[0]):
        buf.snap_alpha[s, j] = alpha[j]
    for j in range(w.shape[0]):
        buf.snap_w[s, j] = w[j]
