"""Re-execute chapters in place, the way their saved outputs are made; strip widget state and timestamps.

    .venv/bin/python .ci/execute_notebooks.py notebooks/03_dcd.ipynb [more.ipynb ...]

Saved widget state breaks rendering on GitHub, so it is removed from the metadata. Without
that state a widget's stored output would show its repr (``interactive(children=...``) when
the notebook is opened before it runs: that text becomes one line saying how to get the
slider. A cell that runs longer than the time-out fails the run instead of hanging it.
"""

import sys

import nbformat
from nbclient import NotebookClient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}  # as JupyterLab writes it
WIDGET_NOTE = "Run this cell in Jupyter to use the slider; a static figure above draws the same kind of plot."


def execute(path, timeout=300):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}
                   ).execute()
    notebook.metadata.pop("widgets", None)
    notebook.metadata["kernelspec"] = KERNELSPEC
    for cell in notebook.cells:  # run timestamps: noise in every diff
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            if WIDGET_VIEW in output.get("data", {}):
                output["data"]["text/plain"] = WIDGET_NOTE
    nbformat.write(notebook, path)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        execute(name)
        print("executed", name)
