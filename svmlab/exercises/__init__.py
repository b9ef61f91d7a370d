"""Checks for the chapters' exercises: one line, right or wrong with a hint, never the answer.

An exercise cell in a chapter ends with ``check("3.2", answer)``, where ``answer`` starts as
``None``. Each chapter registers its checks in its own module of this package (``ch01.py``
... for chapters, ``appendix_a.py`` for Appendix A) with :func:`exercise`::

    @exercise("3.2", wrong=[0.0, 1.0])
    def _(answer):
        expected = ...                    # computed from the book's data, never a literal
        if not close(answer, expected):
            return "compare with the step of eq. 3.5 at alpha_i = 0"   # a hint, not the value
        return None                       # None: right

A check returns ``None`` when the answer is right and a hint otherwise; it may raise, and
:func:`check` reports that in one line too. ``wrong`` lists answers that must be refused
(each one an answer as a reader would give it: a number, an array, a function for a coding
exercise; ``derived=`` a function returning those computed from the right answer, so that the
source does not show it): ``tests/test_exercises.py`` runs every check on them and on the worked
answer, so no check can pass on anything.

Worked answers live in ``notebooks/solutions/``, one notebook per chapter, each cell ending
in ``assert check("3.2", answer)``; Run All of a chapter never executes them.
"""

import numbers
import warnings
from importlib import import_module

import numpy as np

__all__ = ["check", "exercise", "close"]

_CHECKS = {}  # id -> (check function, wrong answers, function of derived wrong answers or None)


def exercise(exercise_id, wrong, derived=None):
    """Register the decorated function as the check of ``exercise_id`` (e.g. "3.2"). ``derived``, if
    given, returns more wrong answers computed from the right one (its sign flipped, its value
    rounded, an unconverged fit's): they are not written in the source, which would give the answer away."""
    if not wrong:
        raise ValueError(f"exercise {exercise_id}: give at least one wrong answer to test the check with.")

    def register(function):
        _CHECKS[exercise_id] = (function, list(wrong), derived)
        return function
    return register


def _module_name(exercise_id):
    chapter = exercise_id.split(".")[0]
    return f"ch{int(chapter):02d}" if chapter.isdigit() else f"appendix_{chapter.lower()}"


def _entry(exercise_id):
    """The registry's entry of an exercise, importing its chapter's module on first use."""
    if exercise_id not in _CHECKS:
        try:
            import_module(f"{__name__}.{_module_name(exercise_id)}")
        except ModuleNotFoundError:
            pass
    if exercise_id not in _CHECKS:
        raise ValueError(f"There is no exercise {exercise_id!r}; check the number in the cell.")
    return _CHECKS[exercise_id]


def registered(exercise_id):
    """(check, wrong answers) of an exercise, the derived wrong answers computed and appended."""
    function, wrong, derived = _entry(exercise_id)
    return function, wrong + (list(derived()) if derived else [])


def all_ids():
    """Every registered exercise id (imports every chapter module of this package)."""
    from pkgutil import iter_modules

    for info in iter_modules(__path__):
        import_module(f"{__name__}.{info.name}")
    return sorted(_CHECKS)


def check(exercise_id, answer):
    """Print one line on ``answer`` to exercise ``exercise_id``; return whether it is right."""
    function = _entry(exercise_id)[0]
    if answer is None or answer is Ellipsis:
        print(f"Exercise {exercise_id}: not answered yet (replace None with your answer).")
        return False
    try:
        hint = function(answer)
    except Exception as error:  # the reader's code, or an answer of the wrong kind
        hint = f"checking your answer raised {type(error).__name__}: {error}"
    if hint is None:
        print(f"Exercise {exercise_id}: correct.")
        return True
    print(f"Exercise {exercise_id}: not yet. {hint}")
    return False


ROUNDED = "close: give the value as computed, not rounded"


def rounded(digits=6):
    """The hint for an answer that agrees with the value to fewer digits than the check compares:
    :data:`ROUNDED`, and how many digits that is."""
    return f"{ROUNDED} (the check compares to about {digits} digits)"


def is_rounding(answer, expected, digits=range(1, 7)):
    """Whether ``answer`` is ``expected`` rounded to k significant digits for some k in ``digits``: a
    printed value copied short, not any value nearby (an unconverged fit's is not a rounding)."""
    return is_number(answer) and any(float(f"{expected:.{k}g}") == answer for k in digits)


def close(answer, expected, rtol=1e-6, atol=1e-9):
    """Whether ``answer`` (a number or array-like) equals ``expected`` within the tolerances;
    False, not an exception, for an answer of the wrong shape or kind."""
    if isinstance(answer, (bool, np.bool_)) or isinstance(answer, str):
        return False
    try:
        a = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return False
    e = np.asarray(expected, dtype=float)
    if a.shape != e.shape and not (a.size == 1 and e.size == 1):
        return False
    return bool(np.all(np.isfinite(a)) and np.allclose(a.ravel(), e.ravel(), rtol=rtol, atol=atol))


def fit_quietly(model, X, y):
    """``model.fit(X, y)`` with ConvergenceWarning silenced: a check's budget runs stop on purpose."""
    from .. import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def toy(n=None):
    """The book's 2-D toy (datasets.make_toy), or its first n points."""
    from ..datasets import make_toy

    X, y = make_toy()
    return (X, y) if n is None else (X[:n], y[:n])


def is_number(answer):
    """Whether ``answer`` is a real number (not a bool)."""
    return isinstance(answer, numbers.Real) and not isinstance(answer, bool)
