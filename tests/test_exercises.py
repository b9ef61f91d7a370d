"""Every exercise check passes on its worked answer and fails on wrong ones.

The worked answers are the cells of ``notebooks/solutions/*.ipynb``: each ends in
``assert check("N.k", answer)``. This test executes those cells in-process with ``check``
recording what it is given, then runs every check on the recorded worked answer (must pass)
and on its registered wrong answers (must fail, with a line that does not print the worked
answer), and checks that every chapter notebook asks each registered exercise it owns with
an unanswered placeholder that Run All reports as not answered.
"""

import contextlib
import importlib
import inspect
import io
import json
import os
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest

from svmlab import exercises
from svmlab.exercises import all_ids, check, registered

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
SOLUTIONS = sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))
ID = re.compile(r"""check\(\s*["']([0-9A-Z]+\.\d+)["']""")


def _code(path):
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _clean(source):
    """A cell's code without IPython magics (the tests run it as plain Python)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


@pytest.fixture(scope="module")
def worked():
    """exercise id -> the worked answer given to check() in the solutions notebooks."""
    answers = {}

    def recording(exercise_id, answer):
        answers[exercise_id] = answer
        return check(exercise_id, answer)

    import matplotlib

    matplotlib.use("Agg")
    here = os.getcwd()
    os.chdir(NOTEBOOKS)  # where the notebooks run
    try:
        for path in SOLUTIONS:
            namespace = {"__name__": "__solutions__"}
            with contextlib.redirect_stdout(io.StringIO()):
                for source in _code(path):
                    exec(compile(_clean(source), str(path), "exec"), namespace)
                    namespace["check"] = recording  # after the cell that imports check
    finally:
        os.chdir(here)
    return answers


def _quiet(exercise_id, answer):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ok = check(exercise_id, answer)
    return ok, out.getvalue()


def test_every_exercise_has_a_worked_answer(worked):
    assert set(all_ids()) <= set(worked), f"no worked answer for {sorted(set(all_ids()) - set(worked))}"


@pytest.mark.parametrize("exercise_id", all_ids())
def test_check_accepts_the_worked_answer_and_refuses_wrong_ones(worked, exercise_id):
    ok, line = _quiet(exercise_id, worked[exercise_id])
    assert ok and line.strip().endswith("correct."), line
    _, wrong = registered(exercise_id)
    for answer in wrong:
        ok, line = _quiet(exercise_id, answer)
        assert not ok, f"{exercise_id} accepted the wrong answer {answer!r}"
        assert line.count("\n") == 1, "a check prints one line"
        right = worked[exercise_id]
        # a number, or the floats of a tuple (9.2's pair; a tuple of counts, as 2.2's, has none)
        for value in [v for v in right if isinstance(v, float)] if isinstance(right, tuple) else [right]:
            if exercises.is_number(value) and value not in (0, 1):
                for shown in (f"{value}", f"{value:.6g}", f"{value:.4f}", f"{value:.3g}"):
                    assert shown not in line, f"{exercise_id}'s hint shows the answer: {line}"


def _computed_numbers_in(right):
    """The computed floats of a worked answer (a number, or those of a tuple, as 9.2's pair): those with
    more than 3 significant digits. A short one (0.5, 0.025) is the end of a derivation on the prompt's
    own short numbers, which the check's source must hold."""
    values = [v for v in right if isinstance(v, float)] if isinstance(right, tuple) else [right]
    return [float(v) for v in values if exercises.is_number(v) and float(f"{v:.3g}") != v]


@pytest.mark.parametrize("exercise_id", all_ids())
def test_the_checks_source_does_not_hold_the_answer(worked, exercise_id):
    """A reader may open svmlab/exercises: no number written there is a computed answer, its negative or
    that answer to 3 digits or more (a wrong answer derived from the right one is computed: ``derived=``)."""
    module = importlib.import_module(f"svmlab.exercises.{exercises._module_name(exercise_id)}")
    tokens = tokenize.generate_tokens(io.StringIO(inspect.getsource(module)).readline)
    written = [float(t.string) for t in tokens if t.type == tokenize.NUMBER and not t.string.endswith("j")]
    for value in _computed_numbers_in(worked[exercise_id]):
        near = [w for w in written if abs(abs(w) - abs(value)) <= 1e-3 * abs(value)]
        assert not near, f"{exercise_id}: the source of its check writes {near}, the answer {value:.3g} or near it"


@pytest.mark.parametrize("exercise_id", ["1.1", "2.3", "2.4", "3.1", "3.2", "5.4", "9.2", "10.1", "10.3"])
def test_a_rounded_number_is_told_to_give_more_digits(worked, exercise_id):
    right = worked[exercise_id]  # a number, or a pair of numbers (9.2)
    rounded = tuple(float(f"{v:.4g}") for v in right) if isinstance(right, tuple) else float(f"{right:.4g}")
    assert rounded != right
    ok, line = _quiet(exercise_id, rounded)
    assert not ok and exercises.ROUNDED in line


@pytest.mark.parametrize("exercise_id", all_ids())
def test_unanswered_is_not_correct(exercise_id):
    ok, line = _quiet(exercise_id, None)
    assert not ok and "not answered" in line


def test_every_chapter_asks_its_exercises_unanswered():
    asked = set()
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for source in _code(path):
            asked.update(ID.findall(source))
            assert "assert check(" not in source, f"{path.name}: worked answers belong in notebooks/solutions/"
    assert set(all_ids()) <= asked, f"exercises never asked in a chapter: {sorted(set(all_ids()) - asked)}"


def test_close_refuses_wrong_kinds():
    assert exercises.close(1.0, 1.0) and not exercises.close("1.0", 1.0) and not exercises.close(True, 1.0)
    assert not exercises.close([1.0, 2.0], [1.0]) and not exercises.close(np.nan, np.nan)
