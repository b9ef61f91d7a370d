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
"""

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
