"""CoCoA+ rounds on a Dask cluster, with a duality-gap certificate and lost workers survived.

CoCoA+ (Ma et al., ICML 2015; Smith et al., JMLR 2018). Each round:

1. every block k receives w and returns its sums at (w, alpha_[k]) and dw_k = gamma A_k Delta_[k]
   from its local subproblem (:mod:`svmlab.distributed.local`);
2. the client adds the sums into P(w) and D(alpha) (eqs. 1.3, 2.9); if the relative gap
   P - D <= tol P, the state the round started from is certified and returned;
3. otherwise w <- w + sum_k dw_k, and each block takes its new alpha_[k].

The blocks are Dask actors (:class:`svmlab.distributed.blocks.Worker`), so a round is one
message each way per block, without the scheduler. The client keeps v_k = A_k alpha_[k] for
every block (d + 1 numbers each). When a block's worker is lost, the block starts again on
another worker from alpha_[k] = 0 with w <- w - v_k, so that w = sum_k A_k alpha_[k] still holds,
and the round is run again; the trace records the event. At the end w is computed afresh from
the blocks' alpha_[k] and certified once more: the returned w is the sum of its blocks'
A_k alpha_[k].
"""

import time
from dataclasses import dataclass, field

import numpy as np
from distributed import CancelledError

MAX_RECOVERIES = 10
RETRIES = 6
LOST = (OSError, CancelledError)  # CommClosedError is an OSError


@dataclass
class RoundTrace:
    """One entry per round: the state at its start (primal, dual, gap), the bytes the
    protocol sent (w out, dw and two sums back, 8 bytes a number), the round's seconds; and
    the events (worker losses) and the cluster the fit ran on."""

    cluster: str
    round: list = field(default_factory=list)
    primal: list = field(default_factory=list)
    dual: list = field(default_factory=list)
    gap: list = field(default_factory=list)
    bytes_sent: list = field(default_factory=list)
    time: list = field(default_factory=list)
    events: list = field(default_factory=list)

    def add(self, r, primal, dual, nbytes, seconds):
        for name, value in zip(("round", "primal", "dual", "gap", "bytes_sent", "time"),
                               (r, primal, dual, primal - dual, nbytes, seconds)):
            getattr(self, name).append(value)

    def as_arrays(self):
        """The same record with NumPy arrays for the per-round columns."""
        columns = {name: np.asarray(getattr(self, name)) for name in
                   ("round", "primal", "dual", "gap", "bytes_sent", "time")}
        return RoundTrace(self.cluster, events=list(self.events), **columns)


@dataclass
class Result:
    alpha: np.ndarray
    w: np.ndarray
    n_rounds: int
    converged: bool
    trace: RoundTrace


class CoCoA:
    """The rounds of the binary problems of one fit on a cluster.

    ``blocks`` holds one actor per block; ``rebuild(k, avoid)`` returns a new actor for block k (from
    the client's copy of its rows or the Dask array's graph), on a worker other than the address
    ``avoid`` where possible, after its worker was lost.
    """

    def __init__(self, blocks, rebuild, size, cluster):
        self.blocks, self.rebuild, self.size, self.cluster = list(blocks), rebuild, size, cluster

    def run(self, key, problem, seeds, tol, max_rounds):
        """Rounds on binary problem ``key`` until its start is certified or max_rounds. A block
        lost with its worker at the start, in a round or while the result is gathered starts
        again from alpha_[k] = 0 and the rounds go on."""
        K = len(self.blocks)
        w, v = np.zeros(self.size), np.zeros((K, self.size))
        trace = RoundTrace(self.cluster)
        r = recoveries = 0
        _, lost = _gather([_send(b, "start", key, s) for b, s in zip(self.blocks, seeds)])
        take = False
        while True:
            if lost:
                recoveries += 1
                self._recover(lost, key, w, v, seeds, r, trace, recoveries)
                take = False  # the survivors drop what they computed for the old w
            begun = time.perf_counter()
            sums, lost = self._round(key, w, problem, take)
            if lost:
                continue
            primal, dual = _values(sums, w)
            trace.add(r, primal, dual, 8 * K * (2 * self.size + 2), time.perf_counter() - begun)
            if primal - dual <= tol * primal or r == max_rounds:
                result, lost = self._finish(key, problem, tol, r, trace)
                if not lost:
                    return result
                continue
            for k, (_, _, dw) in enumerate(sums):
                w += dw
                v[k] += dw
            r += 1
            take = True

    def _round(self, key, w, problem, take):
        """Every block's (loss, dual, dw), and the blocks whose worker did not answer."""
        return _gather([_send(b, "round", key, w, problem, take) for b in self.blocks])

    def _recover(self, lost, key, w, v, seeds, r, trace, recoveries):
        """Restart the lost blocks on live workers: alpha_[k] = 0, w -= v_k."""
        if recoveries > MAX_RECOVERIES:
            raise RuntimeError(f"blocks {lost} were lost {recoveries} times by round {r}; the cluster is failing.")
        for k in lost:
            w -= v[k]
            v[k] = 0.0
            self.blocks[k] = place_block(self.rebuild, k, avoid=self.blocks[k]._address)
            self.blocks[k].start(key, seeds[k] + recoveries).result()
            trace.events.append((r, f"block {k} lost with its worker; restarted from alpha = 0"))

    def _finish(self, key, problem, tol, r, trace):
        """(Result, lost): w afresh from the blocks' alpha_[k], its certificate, and alpha
        gathered; or (None, the blocks lost meanwhile)."""
        parts, lost = _gather([_send(b, "combination", key, problem, self.size) for b in self.blocks])
        if lost:
            return None, lost
        w = np.sum(parts, axis=0)
        sums, lost = _gather([_send(b, "sums", key, w, problem) for b in self.blocks])
        alphas, lost_alpha = _gather([_send(b, "alpha", key) for b in self.blocks])
        if lost or lost_alpha:
            return None, sorted(set(lost) | set(lost_alpha))
        primal, dual = _values(sums, w)
        return Result(np.concatenate(alphas), w, r, primal - dual <= tol * primal, trace.as_arrays()), []


def _send(block, method, *args):
    """The future of ``block.method(*args)``, or None when the scheduler already knows that the
    block's worker is lost: distributed's Actor then refuses the call with a RuntimeError."""
    try:
        return getattr(block, method)(*args)
    except RuntimeError:
        if block._future.status in ("finished", "pending"):
            raise  # not the loss of the actor's worker
        return None


def place_block(rebuild, k, avoid=None):
    """``rebuild(k, avoid)``: an actor for block k, on a worker other than ``avoid`` where possible.
    A worker that died and that the scheduler does not know of yet refuses the block's data, and
    one the scheduler dropped after it was chosen is unknown there (a KeyError); the block is then
    placed again, RETRIES times at most, waiting longer each time for the scheduler to hear of the
    loss."""
    for attempt in range(RETRIES):
        try:
            return rebuild(k, avoid)
        except (*LOST, KeyError):
            time.sleep(0.1 * 2 ** attempt)
    raise RuntimeError(f"block {k} could not be placed on any worker after {RETRIES} tries.")


def _gather(futures):
    """The futures' results, and the indices of those whose worker did not answer (None: known lost)."""
    results, lost = [], []
    for k, future in enumerate(futures):
        if future is None:
            lost.append(k)
            continue
        try:
            results.append(future.result())
        except LOST:
            lost.append(k)
    return results, lost


def _values(sums, w):
    """P(w) and D(alpha) from the blocks' sums, with w = sum_k A_k alpha_[k] (eqs. 1.3, 2.9)."""
    half = 0.5 * float(w @ w)
    return half + sum(s[0] for s in sums), sum(s[1] for s in sums) - half
