r"""The book's math is written so that MathJax renders it both in JupyterLab and on the website.

Sphinx wraps a display equation that holds a line break (``\\``) in ``split``, where ``\tag`` is
an error, so the rows of a tagged ``cases`` or ``array`` end with ``\cr``; and ``\*`` is not TeX
(MathJax shows it in red), so a star inside math is a plain ``*``. `tests/browser/test_website.py`
looks for MathJax's errors on the pages it opens; this test reads every chapter's source.
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PAGES = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("*.md"))
MATH = re.compile(r"\$\$(.*?)\$\$|\$([^$]+)\$", re.S)


def _markdown(path):
    """(cell index, text) of each markdown cell, or (0, the page) for a .md page."""
    if path.suffix == ".md":
        return [(0, path.read_text())]
    cells = json.loads(path.read_text())["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def _faults(text):
    for match in MATH.finditer(text):
        display, tex = match.group(1) is not None, match.group(1) or match.group(2)
        if display and "\\tag" in tex and "\\\\" in tex:
            yield "a \\tag with \\\\ rows (end them with \\cr)", tex
        if "\\*" in tex:
            yield "\\* (write *)", tex


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_math_is_written_as_mathjax_renders_it_on_the_website(path):
    faults = [(index, why, tex.strip()[:60]) for index, text in _markdown(path) for why, tex in _faults(text)]
    assert not faults, f"{path.name}: {faults}"


def test_the_check_finds_both_faults():
    found = [why for why, _ in _faults("$$\\begin{cases} a \\\\ b \\end{cases} \\tag{1.1}$$ and $P^\\*$")]
    assert len(found) == 2
    assert not list(_faults("$$\\begin{cases} a \\cr b \\end{cases} \\tag{1.1}$$ and $P^*$"))
