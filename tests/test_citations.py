"""Every equation and algorithm number the library cites exists in the book.

Code comments and docstrings in ``svmlab/`` point the reader at the book: "eq. 3.4",
"eqs. 5.5-5.7", "Algorithm 4.1". The chapters define those numbers in their markdown in
three ways: an equation tag ``\\tag{3.4}``, a label written after the formula,
"(eq. 5.9)" (or "(eq. 6.2; ...)") or ``\\text{(eq. 6.3)}``, and a bold algorithm box "**Algorithm 4.1**".
This test collects the definitions from every notebook and the citations from every
module, and names each citation that points nowhere.
"""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = r"[0-9A-Z]+\.\d+"
# "eq. 1.3", "eqs. 1.3, 2.9", "eqs. 1.3 and 2.9", "eqs. 5.5-5.7" (a range of one chapter)
EQ_CITE = re.compile(rf"\b[Ee]qs?\.\s+({NUMBER}(?:\s*(?:,|-|–|and)\s*{NUMBER})*)")
ALG_CITE = re.compile(rf"\bAlgorithms?\s+({NUMBER}(?:\s*(?:,|and)\s*{NUMBER})*)")
EQ_DEFINED = (re.compile(rf"\\tag\{{({NUMBER})\}}"), re.compile(rf"\((?:eq\.|Eq\.)\s*({NUMBER})[);]"))
ALG_DEFINED = re.compile(rf"\*\*Algorithm\s+({NUMBER})\*\*")


def _book_markdown():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                yield "".join(cell["source"])


def _defined():
    equations, algorithms = set(), set()
    for text in _book_markdown():
        for pattern in EQ_DEFINED:
            equations.update(pattern.findall(text))
        algorithms.update(ALG_DEFINED.findall(text))
    return equations, algorithms


def _numbers(listed):
    """The numbers a citation names; a range "5.5-5.7" names 5.5, 5.6 and 5.7."""
    numbers = []
    for part in re.split(r"\s*(?:,|and)\s*", listed):
        ends = re.split(r"\s*[-–]\s*", part)
        if len(ends) == 2:
            (chapter, first), (_, last) = (end.split(".") for end in ends)
            numbers += [f"{chapter}.{k}" for k in range(int(first), int(last) + 1)]
        else:
            numbers.append(part)
    return numbers


def _citations():
    """(file:line, kind, number) for every citation in the library's sources."""
    for path in sorted((ROOT / "svmlab").rglob("*.py")):
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{lineno}"
            for listed in EQ_CITE.findall(line):
                yield from ((where, "eq.", n) for n in _numbers(listed))
            for listed in ALG_CITE.findall(line):
                yield from ((where, "Algorithm", n) for n in _numbers(listed))


def test_the_book_defines_equations_and_algorithms():
    equations, algorithms = _defined()
    assert {"1.3", "2.9", "3.4"} <= equations
    assert {"3.1", "4.1"} <= algorithms


def test_a_range_names_every_number_in_it():
    assert _numbers("5.5-5.7") == ["5.5", "5.6", "5.7"]
    assert _numbers("1.3 and 2.9") == ["1.3", "2.9"]


def test_every_citation_in_the_library_exists_in_the_book():
    equations, algorithms = _defined()
    cited = list(_citations())
    assert len(cited) > 30  # the patterns still find the library's citations
    missing = [
        f"{where}: {kind} {number}"
        for where, kind, number in cited
        if number not in (equations if kind == "eq." else algorithms)
    ]
    assert not missing, "cited in svmlab/ but defined in no notebook:\n" + "\n".join(missing)
