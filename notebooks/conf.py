"""Sphinx configuration of the book's website: the notebooks as stored, rendered by MyST-NB.

    .venv/bin/python -m sphinx -n -W -b html notebooks notebooks/_build/html

builds it from the saved outputs (nothing is executed) into notebooks/_build/html; open
notebooks/_build/html/index.html, with or without a network: MathJax comes from the
sphinx-mathjax-offline package and is copied into the build, and no page loads anything
from elsewhere.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))  # this folder's build extension (not the library)

project = "svmlab: how Support Vector Machines are actually solved"
author = "the svmlab authors"
copyright = "the svmlab authors"

extensions = ["myst_nb", "sphinx-mathjax-offline", "svmlab_book"]
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "README.md"]
root_doc = "index"

nb_execution_mode = "off"  # the stored outputs, as the notebooks were saved
nb_ipywidgets_js = {}  # no widget JavaScript from a CDN: widgets become one line (_ext/svmlab_book.py)
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True  # a $$...$$ display inside a paragraph, as the chapters write them and JupyterLab reads them
myst_heading_anchors = 3
nb_merge_streams = True

html_theme = "sphinx_book_theme"
html_title = "svmlab"
html_theme_options = {
    "use_download_button": True,  # each page offers its .ipynb
    "show_toc_level": 2,
}
html_sourcelink_suffix = ""
# Inherent to notebooks: a chapter's cells may skip a heading level (a "###" right after the
# title cell); nothing here silences a broken reference.
suppress_warnings = ["myst.header"]
