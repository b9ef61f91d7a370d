"""What the website shows where a notebook has a slider or an animation.

A stored widget output (``application/vnd.jupyter.widget-view+json``) has no life without a
kernel: it becomes one line saying that the notebook has the slider. A stored animation (the
HTML player of ``svmlab.animation``, or matplotlib's ``to_jshtml``) becomes its first and last
frames side by side, as plain images, without the player's script or its CDN stylesheet. Both
are rewritten when Sphinx reads a notebook (the ``source-read`` event); the .ipynb files are not
touched.
"""

import json
import re

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = "The notebook version of this figure has a slider: download the notebook and run this cell."
FRAME = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=\\\n]+")


def _frames(html):
    return [f.replace("\\\n", "").replace("\\", "").replace("\n", "") for f in FRAME.findall(html)]


def _is_animation(html):
    return "svmlab-animation" in html or "Animation(frames" in html


def _still(frames):
    """The first and last frames as an HTML figure that needs nothing but the page."""
    first, last = frames[0], frames[-1]
    images = "".join(f'<img src="{src}" alt="{what} frame" style="max-width:49%;height:auto">'
                     for src, what in ((first, "first"), (last, "last")))
    note = f"The first and the last of {len(frames)} frames; the notebook plays the animation."
    return f'<div class="svmlab-frames">{images}<p><em>{note}</em></p></div>'


def _rewrite(output):
    data = output.get("data", {})
    if WIDGET_VIEW in data:
        output["data"] = {"text/plain": WIDGET_NOTE}
        return
    html = data.get("text/html")
    html = "".join(html) if isinstance(html, list) else html
    if html and _is_animation(html):
        frames = _frames(html)
        output["data"] = {"text/html": _still(frames)} if frames else {"text/plain": "(an animation)"}


def rewrite_notebook(app, docname, source):
    """source-read: rewrite widget and animation outputs of a notebook before MyST-NB reads it."""
    if not app.env.doc2path(docname).suffix == ".ipynb":
        return
    notebook = json.loads(source[0])
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            _rewrite(output)
    source[0] = json.dumps(notebook)


def setup(app):
    app.connect("source-read", rewrite_notebook)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
