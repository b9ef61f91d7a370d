"""Make sure numba has somewhere to write svmlab's compiled kernels.

The kernels are ``@njit(cache=True)``. numba caches in ``NUMBA_CACHE_DIR`` if set, else next to
the sources (``__pycache__``), else in the user's cache folder; where none is writable (a
read-only install with an unwritable home), it refuses to decorate the first kernel
(``RuntimeError: cannot cache function ...: no locator available``). Then svmlab points numba at
a temporary folder for this process, with one warning naming NUMBA_CACHE_DIR. This runs at
``import svmlab`` without importing numba (a few directory checks).
"""

import os
import sys
import tempfile
import warnings

PACKAGE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FOLDERS = ("", "solvers", "distributed")  # where svmlab's numba kernels live


def _writable(folder):
    """Whether a file can be created in ``folder`` (made if missing), as numba checks."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def _user_wide():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numba")


def can_cache():
    """Whether one of numba's cache locations is writable for svmlab's sources."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen and _writable(chosen):
        return True
    in_tree = all(_writable(os.path.join(PACKAGE, sub, "__pycache__")) for sub in KERNEL_FOLDERS)
    return in_tree or _writable(_user_wide())


def ensure_cache():
    """Point numba at a temporary folder, with a warning, when it could cache nowhere."""
    if can_cache():
        return
    folder = tempfile.mkdtemp(prefix="svmlab-numba-")
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # numba read its configuration already
        sys.modules["numba"].config.CACHE_DIR = folder
    warnings.warn(f"numba cannot write its cache (NUMBA_CACHE_DIR, svmlab's folder and the user's cache folder are "
                  f"not writable); svmlab's kernels are compiled into {folder} for this session only. Set "
                  "NUMBA_CACHE_DIR to a writable folder to keep them.", RuntimeWarning, stacklevel=3)
