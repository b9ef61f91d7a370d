"""svmlab's numba cache folder is keyed on its sources, so that a cached kernel never goes stale."""

import multiprocessing
import os
import re
import shutil
import subprocess
import sys

import pytest
from numba.core.caching import IndexDataCacheFile

import svmlab.jit  # noqa: F401  (defining svmlab's kernels locks numba's cache files)
from svmlab import _numba_cache


def test_an_edit_anywhere_in_the_sources_changes_the_cache_folder(tmp_path):
    package = tmp_path / "svmlab"
    shutil.copytree(_numba_cache.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = _numba_cache.source_hash(str(package))
    assert before == _numba_cache.source_hash(_numba_cache.PACKAGE)
    rows = package / "rows.py"  # a module other kernels call: numba's own check misses its edits
    rows.write_text(rows.read_text() + "\n# an edit\n")
    assert _numba_cache.source_hash(str(package)) != before


def test_a_keyed_folder_is_never_nested(tmp_path):
    folder = _numba_cache.cache_folder(str(tmp_path), "0123456789abcdef")
    assert folder == str(tmp_path / "svmlab-0123456789abcdef")
    assert _numba_cache.cache_folder(folder, "0123456789abcdef") == folder
    assert _numba_cache.cache_folder(folder, "fedcba9876543210") == str(tmp_path / "svmlab-fedcba9876543210")


def test_import_points_numba_and_child_processes_at_the_keyed_folder(tmp_path):
    code = ("import os, svmlab, numba; print(os.environ['NUMBA_CACHE_DIR']); print(numba.config.CACHE_DIR); "
            "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import os, svmlab; "
            "print(os.environ[\"NUMBA_CACHE_DIR\"])'], check=True)")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    expected = str(tmp_path / ("svmlab-" + _numba_cache.source_hash()))
    assert out.split() == [expected] * 3


def _quick_start_cache_dirs():
    """The NUMBA_CACHE_DIR of the README's two Quick start lines (set up and warm up; open the book)."""
    readme = open(os.path.join(os.path.dirname(_numba_cache.PACKAGE), "README.md")).read()
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2 and "svmlab.warmup" in lines[0] and "jupyter lab" in lines[1]
    return [re.search(r"NUMBA_CACHE_DIR=(\S+)", line).group(1) for line in lines]


def test_the_readme_opens_the_book_on_the_cache_its_warmup_filled():
    """The warm-up runs from the repository root; JupyterLab starts a chapter's kernel in the
    notebook's folder. Both must reach the same cache, or every chapter compiles again (a relative
    NUMBA_CACHE_DIR did that: the kernels used notebooks/.venv/numba-cache)."""
    root = os.path.dirname(_numba_cache.PACKAGE)
    code = "import os, svmlab; print(os.path.abspath(os.environ['NUMBA_CACHE_DIR']))"
    folders = []
    for value, cwd in zip(_quick_start_cache_dirs(), [root, os.path.join(root, "notebooks")]):
        env = dict(os.environ, NUMBA_CACHE_DIR=value.replace("$PWD", root))  # the shell expands $PWD at the root
        folders.append(subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True,
                                      capture_output=True, text=True).stdout.strip())
    assert folders[0] == folders[1] == os.path.join(root, ".venv", "numba-cache",
                                                    "svmlab-" + _numba_cache.source_hash())


def _cache_files(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, files in os.walk(folder) for f in files)


@pytest.fixture(scope="module")
def warmed():
    """The keyed folder after the README's warm-up (a few seconds when the set-up or .ci/run has
    filled it already; a full compile otherwise). ``import svmlab`` pointed NUMBA_CACHE_DIR at it."""
    subprocess.run([sys.executable, "-m", "svmlab.warmup"], check=True, capture_output=True)
    return os.environ["NUMBA_CACHE_DIR"]


def _compiles_nothing_after_the_warmup(warmed, tmp_path, code):
    """Run ``code`` on a copy of the warmed cache: a kernel the warm-up left out would be compiled
    and saved there as a new file."""
    copy = tmp_path / os.path.basename(warmed)
    shutil.copytree(warmed, copy)
    filled = _cache_files(copy)
    assert any(f.endswith(".nbi") for f in filled)
    subprocess.run([sys.executable, "-c", code], env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)), check=True)
    assert _cache_files(copy) == filled


def test_after_the_warmup_a_notebook_style_fit_compiles_nothing(warmed, tmp_path):
    """What the set-up command's warm-up compiled is all a later fit needs: a fit on other data, C,
    loss and epsilon, with a trace, adds no file to the cache."""
    _compiles_nothing_after_the_warmup(warmed, tmp_path, (
        "import numpy as np, svmlab; from svmlab import datasets; x, z = datasets.make_noisy_line(); "
        "m = svmlab.LinearSVR(C=3.0, epsilon=0.2, loss='squared_epsilon_insensitive', trace=True)"
        ".fit(x[:, None], z); m.predict(x[:, None]); m.score(x[:, None], z)"))


def test_after_the_warmup_the_books_calls_from_python_compile_nothing(warmed, tmp_path):
    """The solvers inline the objective's small kernels and SMO's pair step (CONTRIBUTING.md), so a
    fit does not compile them apart; the book calls them from Python, directly and through
    SVMProblem and SVRProblem, and the warm-up makes those calls too (book_calls, evaluate_problem)."""
    _compiles_nothing_after_the_warmup(warmed, tmp_path, (
        "import numpy as np, svmlab; from svmlab import datasets; X, y = datasets.make_toy(50); a = np.full(50, 0.3); "
        "[(p.primal(np.ones(2), 0.5), p.dual(a), p.gap(a), p.gradient(a), p.projected_gradient(a), p.kkt_violation(a)) "
        "for p in (svmlab.SVMProblem(X, y, 2.0, 'squared_hinge', 'regularized'), "
        "svmlab.SVRProblem(X, X[:, 1], 2.0, 0.2, 'squared_epsilon_insensitive', 'none'))]; "
        "from svmlab import objective as o; from svmlab.solvers import smo; "
        "[(o.loss(m, o.SQUARED_HINGE), o.diag(2.0, o.HINGE), o.upper(2.0, o.SQUARED_HINGE)) for m in X[:, 0]]; "
        "smo.pair_step(0.0, 1.0, -1.0, -1.0, 2.0, 2.0, 0.3, -0.2, 1.5)"))


def test_after_the_warmup_the_options_that_compile_other_code_compile_nothing(warmed, tmp_path):
    """The warm-up also fits the options whose code a default fit does not compile (VARIANTS):
    SDCA's averaged output and ASDCA, each with and without a trace, as chapter 6 fits them."""
    _compiles_nothing_after_the_warmup(warmed, tmp_path, (
        "import warnings, svmlab; from svmlab import datasets; X, y = datasets.make_toy(300); "
        "warnings.simplefilter('ignore'); "
        "[svmlab.LinearSVM(solver='sdca', C=2.0, max_iter=3, trace=t, **o).fit(X, y) for t in (True, False) "
        "for o in (dict(output='average'), dict(accelerated=True, smoothing=0.5))]"))


def test_the_warmup_compiles_the_threaded_loops_of_every_solver_that_has_them():
    """A fit with n_jobs compiles parallel loops that a default fit does not (the thread count is
    None for one thread); the warm-up fits each solver that takes n_jobs with it too."""
    from svmlab import warmup
    from svmlab.solvers import N_JOBS

    threaded = [(estimator, name) for estimator, table in warmup.TABLES.items() for name, solver in table.items()
                if N_JOBS in solver.options]
    assert threaded, "no solver takes n_jobs"
    for job in threaded:
        assert any(variant.get("n_jobs", 1) != 1 for variant in warmup.variants(*job)), job


def _save_entries(args):
    """One process's share of the concurrent saves: its own signatures (keys) of one function."""
    folder, worker, count = args
    index = IndexDataCacheFile(folder, "function", "stamp")
    for k in range(count):
        index.save((worker, k), ("machine code of", worker, k))


def test_processes_saving_one_function_at_once_keep_every_signature(tmp_path):
    """Four processes save 25 signatures each of one function into the same cache at once, as the
    warm-up's workers do. Every signature must load its own data afterwards: without the lock of
    _numba_cache.lock_index_files, numba's read-update-write of the index loses or swaps most of
    them (76 and 84 of 100 in two runs on a 2-core machine)."""
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.map(_save_entries, [(str(tmp_path), worker, 25) for worker in range(4)])
    index = IndexDataCacheFile(str(tmp_path), "function", "stamp")
    for worker in range(4):
        for k in range(25):
            assert index.load((worker, k)) == ("machine code of", worker, k)
