"""Code run in a process of its own, forked from a server that has imported svmlab and started
numba once (multiprocessing's forkserver).

A test runs code in another process when it may hang inside a numba kernel, where no signal
reaches it, or when the process must be sent SIGINT. A new interpreter takes over a second to get
there: importing numba and scipy, and numba's start-up at its first compilation or cache load
(loading its typing and lowering registries). A child forked from the server starts with all of
that done, in a tenth of a second; it still loads the kernels it calls from the numba cache, as a
new interpreter would, and it has Python's own signal handlers.
"""

import io
import multiprocessing
import sys
import traceback

import numba
import numpy as np

import svmlab.estimators  # noqa: F401  (the estimators, the solvers' modules and scipy.sparse)

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload([__name__])


@numba.njit
def _first(x):
    return x + 1


_first(np.float64(0.0))  # numba's start-up, done once in the server (and in each importer)


class _Lines(io.TextIOBase):
    """The child's stdout: each complete line goes to the parent as it is written."""

    def __init__(self, conn):
        self._conn, self._held = conn, ""

    def writable(self):
        return True

    def write(self, text):
        self._held += text
        *lines, self._held = self._held.split("\n")
        for line in lines:
            self._conn.send(("line", line))
        return len(text)

    def flush(self):
        pass


def _main(code, conn):
    sys.stdout = _Lines(conn)
    try:
        exec(compile(code, "<child>", "exec"), {"__name__": "__main__"})
    except BaseException:
        conn.send(("error", traceback.format_exc()))
        return
    conn.send(("done", None))


class Child:
    """``code`` running in a forked child; its printed lines are read with :meth:`readline`."""

    def __init__(self, code):
        self._conn, end = _CONTEXT.Pipe(duplex=False)
        self.process = _CONTEXT.Process(target=_main, args=(code, end), daemon=True)
        self.process.start()
        end.close()
        self.error = None

    def readline(self, timeout):
        """The next printed line; None once the code has finished (or raised: see ``error``).
        Raises TimeoutError when nothing comes within ``timeout`` seconds."""
        if not self._conn.poll(timeout):
            raise TimeoutError(f"the child printed nothing for {timeout} s")
        try:
            kind, value = self._conn.recv()
        except EOFError:
            self.process.join(5)
            self.error = f"the child died with exit code {self.process.exitcode}"
            return None
        if kind == "line":
            return value
        self.error = value if kind == "error" else None
        return None

    def output(self, timeout):
        """Every line printed until the code finished, or TimeoutError after ``timeout`` seconds
        without a line (the child is then killed)."""
        lines = []
        try:
            while (line := self.readline(timeout)) is not None:
                lines.append(line)
        finally:
            self.stop()
        return "\n".join(lines)

    def stop(self):
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self._conn.close()


def run(code, timeout=60):
    """What ``code`` printed; AssertionError with its traceback when it raised or died,
    TimeoutError when it printed nothing for ``timeout`` seconds (it is killed)."""
    child = Child(code)
    out = child.output(timeout)
    assert child.error is None, child.error[-2000:]
    return out
