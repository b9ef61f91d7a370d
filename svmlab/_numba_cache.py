"""Where numba keeps svmlab's compiled kernels: a folder keyed on a hash of svmlab's sources.

The kernels are ``@njit(cache=True)``. numba checks a cached kernel against its own source
file only, so an edit in a function it calls from another module (``rows.py``,
``objective.py``, ...) would leave a stale kernel in the cache. svmlab therefore caches in
``<base>/svmlab-<hash>``, where the hash covers every source file of the package: any edit
gives a new, empty folder, and a folder once filled never goes stale. ``<base>`` is
``NUMBA_CACHE_DIR`` when set (the README's commands and ``.ci/run`` use ``.venv/numba-cache``,
so the tests, the warm-up and the book share one cache), else the user's cache folder
(``~/.cache/svmlab-numba``). Where neither is writable (a read-only install with an unwritable
home), svmlab points numba at a temporary folder for this process, with one warning naming
NUMBA_CACHE_DIR. This runs at ``import svmlab`` without importing numba: it hashes the sources
(about 200 kB) and checks a folder.

Several processes fill one cache at once: the warm-up's workers, pytest's workers, two notebooks.
numba writes a function's cache without a lock between processes: it reads the function's index
(signature -> data file), adds its signature under the first free file name and writes both back.
Two processes that compile the same function for different signatures at the same moment can
both take the same file name; the index then keeps one signature, pointing at the other one's
machine code, and a later fit that loads it crashes the interpreter (it happened in a warm-up on 2
processes: 397 files instead of 399, and a segmentation fault at the next fit of LinearSVM's
dual_gradient; numba's issue 10128 reports the same race for GUFuncs). :func:`lock_index_files`
makes each save and load of an index and its data one step under a file lock (``fcntl.flock``,
POSIX; elsewhere nothing changes), held for the milliseconds of the file operations only.
"""

import functools
import hashlib
import os
import re
import sys
import tempfile
import warnings

PACKAGE = os.path.dirname(os.path.abspath(__file__))
KEYED = re.compile(r"svmlab-[0-9a-f]{16}")  # the name of a keyed folder


def source_hash(package=PACKAGE):
    """A hash of every ``.py`` file under ``package`` (names and contents), 16 hex digits."""
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, package).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read() + b"\0")
    return digest.hexdigest()[:16]


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
    return os.path.join(base, "svmlab-numba")


def cache_folder(base, key):
    """``base/svmlab-<key>``; a base that is already an svmlab folder (a child process inherits
    the parent's NUMBA_CACHE_DIR) is replaced by its sibling of this key, never nested."""
    base = os.path.normpath(base)
    if KEYED.fullmatch(os.path.basename(base)):
        base = os.path.dirname(base)
    return os.path.join(base, "svmlab-" + key)


def _use(folder):
    os.environ["NUMBA_CACHE_DIR"] = folder  # read by numba when it is imported, and by child processes
    if "numba" in sys.modules:  # numba read its configuration already
        sys.modules["numba"].config.CACHE_DIR = folder


def ensure_cache():
    """Point numba at ``<base>/svmlab-<hash of the sources>``, or at a temporary folder, with a
    warning, when no base is writable. Returns the folder."""
    key = source_hash()
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    for base in ([chosen] if chosen else []) + [_user_wide()]:
        folder = cache_folder(base, key)
        if _writable(folder):
            _use(folder)
            return folder
    folder = tempfile.mkdtemp(prefix="svmlab-numba-")
    _use(folder)
    warnings.warn(f"numba cannot write its cache (NUMBA_CACHE_DIR and the user's cache folder are not writable); "
                  f"svmlab's kernels are compiled into {folder} for this session only. Set "
                  "NUMBA_CACHE_DIR to a writable folder to keep them.", RuntimeWarning, stacklevel=3)
    return folder


def lock_index_files():
    """Make numba's cache-file save and load hold a lock on the folder of the index (a file
    ``.lock`` there), so that concurrent processes never interleave an index's read, update and
    write (see the module's notes). Called when svmlab's kernels are defined (:mod:`svmlab.jit`);
    does nothing a second time, or where ``fcntl`` is missing."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        return
    from numba.core.caching import IndexDataCacheFile

    if getattr(IndexDataCacheFile, "locked_by_svmlab", False):
        return

    def locked(method):
        @functools.wraps(method)
        def under_lock(self, *args):
            # numba makes the folder when it defines the function and again before each save; made
            # here too, a folder deleted since then fails neither a load nor the lock (a stat call)
            os.makedirs(self._cache_path, exist_ok=True)
            with open(os.path.join(self._cache_path, ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
                return method(self, *args)
        return under_lock

    IndexDataCacheFile.save = locked(IndexDataCacheFile.save)
    IndexDataCacheFile.load = locked(IndexDataCacheFile.load)
    IndexDataCacheFile.locked_by_svmlab = True
