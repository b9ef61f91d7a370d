"""Distributed dual coordinate ascent (CoCoA+) on Dask: :class:`LinearSVM`.

The data are split into K blocks of rows, each kept by a worker with its dual variables;
each round the workers solve their local subproblems and send back changes of w (d + 1
numbers), which the client adds; the duality gap, summed from the blocks, is the stopping
rule. Importing this subpackage imports Dask (``dask`` and ``distributed`` from PyPI);
``import svmlab`` does not.
"""

from .estimator import LinearSVM

__all__ = ["LinearSVM"]
