"""Animations for the chapters: a small HTML player of PNG frames.

matplotlib's ``to_jshtml`` sets its image from JavaScript, so a notebook opened before it runs
(when JupyterLab runs no JavaScript from stored outputs) shows a broken image, and it loads
its buttons' icons from a CDN. :func:`player` draws every frame once into a PNG and writes
the first one into the page itself: the animation shows frame 0 at once, with or without
JavaScript, and offline; Play starts it on the first click, the slider moves through it.

    fig, ax = plt.subplots(figsize=(6, 4.5))
    player(fig, lambda k: draw(ax, k), frames=range(20))   # the last line of a cell

The frames are drawn by the caller's function from stored states (a trace's snapshots):
an animation never re-runs a solver. The player keeps the frames as ``data:image/png``
URIs in the HTML, so a static build of the book can pick the first and the last of them.
"""

import base64
import io
import itertools

import matplotlib.pyplot as plt

__all__ = ["player", "Player"]

_ids = itertools.count()

_SCRIPT = """<script>
(function () {{
  var frames = [{frames}];
  var img = document.getElementById("{uid}-img"), slider = document.getElementById("{uid}-slider");
  var button = document.getElementById("{uid}-play"), label = document.getElementById("{uid}-label");
  var k = 0, timer = null;
  function show(i) {{ k = i; img.src = frames[k]; slider.value = k; label.textContent = (k + 1) + " / " + frames.length; }}
  function stop() {{ clearInterval(timer); timer = null; button.textContent = "\\u25b6 Play"; }}
  function play() {{
    if (timer) {{ stop(); return; }}
    if (k === frames.length - 1) {{ show(0); }}
    button.textContent = "\\u275a\\u275a Pause";
    timer = setInterval(function () {{ if (k < frames.length - 1) {{ show(k + 1); }} else {{ stop(); }} }}, {interval});
  }}
  button.onclick = play;
  slider.oninput = function () {{ stop(); show(parseInt(slider.value, 10)); }};
  document.getElementById("{uid}-first").onclick = function () {{ stop(); show(0); }};
  document.getElementById("{uid}-last").onclick = function () {{ stop(); show(frames.length - 1); }};
}})();
</script>"""


def _png(fig, dpi):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class Player:
    """An animation as PNG frames; shown by Jupyter as an HTML player (:func:`player`)."""

    def __init__(self, frames, interval, width):
        self.frames = frames
        self.interval = int(interval)
        self.width = int(width)

    def __len__(self):
        return len(self.frames)

    def _repr_html_(self):
        uid = f"svmlab-anim-{next(_ids)}"
        n = len(self.frames)
        controls = (f'<button id="{uid}-first">&#x23ee;</button> <button id="{uid}-play">&#x25b6; Play</button> '
                    f'<button id="{uid}-last">&#x23ed;</button> '
                    f'<input id="{uid}-slider" type="range" min="0" max="{n - 1}" value="0" style="width:50%"> '
                    f'<span id="{uid}-label">1 / {n}</span>')
        frames = ",\n".join(f'"{f}"' for f in self.frames)
        return (f'<div class="svmlab-animation" style="max-width:{self.width}px">'
                f'<img id="{uid}-img" src="{self.frames[0]}" style="width:100%" alt="frame 1 of {n}">'
                f"<div>{controls}</div></div>"
                + _SCRIPT.format(frames=frames, uid=uid, interval=self.interval))

    def __repr__(self):
        return f"Animation of {len(self.frames)} frames (run the notebook to play it)."


def player(fig, draw, frames, interval=400, dpi=100):
    """Draw ``draw(k)`` into ``fig`` for each k in ``frames``, keep each as a PNG, close the
    figure, and return a :class:`Player` (the last line of a cell shows it).

    ``interval`` is the milliseconds between frames when playing; the player is as wide as
    the figure at ``dpi``, so it reads at the size the figure was made for.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("An animation needs at least one frame.")
    images = []
    for k in frames:
        draw(k)
        images.append(_png(fig, dpi))
    width = fig.get_figwidth() * dpi
    plt.close(fig)
    return Player(images, interval, width)
