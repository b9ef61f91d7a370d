"""benchmarks.perf_map: perf's names for numba's compiled code."""

import json
import os
import pathlib
import subprocess
import sys

from benchmarks.perf_map import readable

ROOT = pathlib.Path(__file__).resolve().parents[1]

# A kernel with a parallel loop, and a kernel that calls it (whose code then holds copies of both).
PROGRAM = """
import json, sys
import numpy as np
from numba import prange
from benchmarks.perf_map import compiled_functions, keep_object_files
keep_object_files()
from svmlab.jit import njit

@njit(cache=True, parallel=True)
def halves(x):
    out = np.zeros(2)
    for c in prange(2):
        for k in range(c, x.shape[0], 2):
            out[c] += x[k]
    return out

@njit(cache=True)
def total(x):
    h = halves(x)
    return h[0] + h[1]

assert total(np.arange(10.0)) == 45.0
json.dump(compiled_functions(), sys.stdout)
"""


def test_readable_names_undo_numbas_mangling_and_only_its_escapes():
    tags = "B3v20B50c8tJTIeFIjxB2IKSgI4CrvSCKg1MMfAwQ4s_2bsEJNAA_3d_3dE"
    assert readable("_ZN6svmlab7solvers3smo8_advance" + tags) == "svmlab.solvers.smo._advance"
    assert readable("_ZN6svmlab7solvers12kernel_cache4_get" + tags) == "svmlab.solvers.kernel_cache._get"
    assert readable("_ZN6svmlab4rows9_row_axpy12_3clocals_3e5dense" + tags) == "svmlab.rows._row_axpy.<locals>.dense"
    assert readable("_ZN13_3cdynamic_3e36__numba_parfor_gufunc_0x7f0084c6add0" + tags) == \
        "<dynamic>.__numba_parfor_gufunc_0x7f0084c6add0"
    assert readable("NRT_incref") == "NRT_incref"


def test_the_map_names_each_kernel_its_copies_and_its_parallel_loop_without_overlaps(tmp_path):
    """Run in a process of its own, on an empty cache (as the script runs), then again on the cache
    that run filled: every function has one place, and the places do not overlap. Loaded from the
    cache, the callee brings no object of its own: its code is named as the caller's copy."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    expected = {"compiled": {"__main__.halves", "__main__.total", "cpython.__main__.total",
                             "prange loop of __main__.halves", "__main__.halves [in __main__.total]",
                             "NRT_decref"},  # defined first by numba's runtime, which has no object file
                "loaded": {"__main__.total", "cpython.__main__.total", "__main__.halves [in __main__.total]"}}
    for run, names in expected.items():
        result = subprocess.run([sys.executable, str(program)], env=env, cwd=tmp_path, capture_output=True,
                                text=True)
        assert result.returncode == 0, result.stderr[-2000:]
        rows = json.loads(result.stdout)
        assert names <= {name for _, _, name in rows}, (run, rows)
        for (address, size, name), (following, _, other) in zip(rows, rows[1:]):
            assert address + size <= following, (run, name, other)
