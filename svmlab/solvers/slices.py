"""The driver that runs a solver in bounded slices of work, returning to Python between them.

A fit that is one long numba call cannot be interrupted (Ctrl-C waits for the call to end, then
surfaces as a ``SystemError``), cannot show progress and cannot be continued. So every solver
keeps its state in an object and advances it a slice at a time; :func:`run` loops the slices.

The contract a solver state keeps (stable: SMO and kernel DCD follow it too):

``state.advance(budget) -> (done, finished)``
    Run at most ``budget`` (an int >= 1) units of work, a numba call that returns; ``done`` is
    the units actually run (0 <= done <= budget: fewer when the units grow costlier within the
    slice, as DCD's epochs do when every shrunk variable comes back), ``finished`` True once the
    solver has stopped (its rule met, or its unit limit reached). Once finished, ``advance`` is
    not called again. Slicing must not change the result: any number of slices of any sizes
    gives the same iterates, bit for bit, as one call with the whole budget (the RNG
    stream is part of the state: numba's global generator, seeded once when the state is made,
    persists between calls in a thread).

``state.status() -> (units, n_active, gap)``
    Cheap, read after each slice: the units run so far, the size of the active set (or the
    support vectors), and the duality gap when the state has it at no extra pass (else nan).

``state.unit``
    The name of a unit of work ("epoch", "pair update", ...), for messages.

How the estimators make a state: the solver's registered "start..." function is called as ``start(problem, stop, buffers, rng, alpha0, **options)``,
with ``problem`` a ``coordinate.Problem`` (linear), ``solvers.KernelProblem`` (kernel) or
``solvers.KernelRegressionProblem`` (kernel SVR), ``stop`` a ``coordinate.Stop(tol, max_iter)``,
``alpha0`` None or warm_start's previous alpha (to clip to the new box), and the state also has
``result() -> SolverResult``.

:func:`run` sizes each slice from the measured time of the previous one, so that a slice lasts
about ``target`` seconds on whatever machine runs it (nothing tuned here): the first slice is
one unit, then the budget follows the measured rate, growing at most fourfold a slice. Between
slices Python runs, so a Ctrl-C raises a plain ``KeyboardInterrupt`` within about one slice,
and ``progress(Progress)`` is called when given. (A Ctrl-C that lands inside a kernel's
object-mode block, the trace's clock, surfaces as a SystemError; the driver raises it as the
KeyboardInterrupt it is.)

The kernels are written so that a first fit compiles in seconds (CONTRIBUTING.md lists the
rules). numba compiles every function a kernel may call, whatever branch runs, so a part that an
option turns off is passed as None (the trace buffers, :func:`svmlab.trace.used`; a warm start's
alpha0; DCD's w of the last epoch, for the dw rule and the trace; ASDCA's v in SDCA; the free
bias' hyperplane in the dual gradient; the regression targets in the kernel solvers' dual state):
numba drops a branch under ``x is None`` when it compiles for None. A part that takes the
state's named tuples and is called from one place is inlined into it (``inline="always"``): a
function of its own costs a module of its own and wrappers that unbox every array of the tuples.
"""

import time
from collections import namedtuple

TARGET_SECONDS = 0.03  # a slice lasts about this long: short enough for Ctrl-C, long enough to be free
GROWTH = 4  # the budget grows at most this many times from one slice to the next

Progress = namedtuple("Progress", "solver unit units n_active gap seconds finished")
Progress.__doc__ = """What a progress callback receives after each slice: the solver's name, the
name of its unit, the units run so far, the active set size, the duality gap (nan when not
cheaply available), the seconds since the run began, and whether the solver has stopped."""


def next_budget(done, seconds, budget, target=TARGET_SECONDS):
    """The next slice's budget: the units that should take ``target`` seconds at the rate of
    the last slice (``done`` units in ``seconds``), at least 1, at most GROWTH * budget."""
    if done <= 0 or seconds <= 0.0:
        return max(1, GROWTH * budget)
    return int(max(1, min(GROWTH * budget, done * target / seconds)))


def run(state, solver="", progress=None, target=TARGET_SECONDS):
    """Advance ``state`` slice by slice until it finishes; calls ``progress(Progress(...))``
    after each slice when given. Returns the state."""
    budget = 1
    begin = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        done, finished = _advance(state, budget)
        t1 = time.perf_counter()
        if progress is not None:
            units, n_active, gap = state.status()
            progress(Progress(solver, state.unit, int(units), int(n_active), float(gap), t1 - begin,
                              bool(finished)))
        if finished:
            return state
        budget = next_budget(done, t1 - t0, budget, target)


def _advance(state, budget):
    """state.advance(budget); a Ctrl-C that lands in a kernel's object-mode block (the trace's
    clock runs Python inside numba) surfaces there as a SystemError caused by the
    KeyboardInterrupt: it is raised as the plain KeyboardInterrupt it is."""
    try:
        return state.advance(budget)
    except SystemError as error:
        if isinstance(error.__cause__, KeyboardInterrupt) or isinstance(error.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise


def describe(p):
    """One line for ``verbose=True``: units, gap and active set after a slice."""
    gap = "" if p.gap != p.gap else f"  gap {p.gap:.3e}"
    return f"[{p.solver}] {p.unit}s {p.units}{gap}  active {p.n_active}  {p.seconds:.2f} s"
