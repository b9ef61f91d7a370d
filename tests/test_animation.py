"""The HTML player of svmlab.animation: frame 0 without JavaScript, nothing fetched, every frame kept."""

import base64
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

from svmlab.animation import player

DATA_URI = re.compile(r'data:image/png;base64,([A-Za-z0-9+/=]+)')


def _moving_point(n):
    fig, ax = plt.subplots(figsize=(3, 2))

    def draw(k):
        ax.clear()
        ax.set_xlim(0, n)
        ax.plot([k], [0.5], "o")
    return fig, draw


def test_the_first_frame_is_in_the_page_and_every_frame_is_kept():
    fig, draw = _moving_point(5)
    anim = player(fig, draw, range(5), dpi=50)
    html = anim._repr_html_()
    img = re.search(r'<img [^>]*src="([^"]+)"', html).group(1)
    assert img == anim.frames[0]  # shown before any script runs (a notebook opened cold)
    assert len(anim) == 5 and len(set(anim.frames)) == 5  # a moving point: five different frames
    assert [m.group(0) for m in DATA_URI.finditer(html)][1:] == anim.frames  # the img, then the frames
    png = base64.b64decode(DATA_URI.match(anim.frames[0]).group(1))
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == 150  # 3 in at 50 dpi
    assert not plt.fignum_exists(fig.number)


def test_nothing_is_fetched_and_two_players_do_not_share_ids():
    fig, draw = _moving_point(2)
    anim = player(fig, draw, range(2))
    first, second = anim._repr_html_(), anim._repr_html_()
    assert "http" not in first and "<link" not in first
    ids = lambda html: set(re.findall(r'id="([^"]+)"', html))  # noqa: E731
    assert ids(first).isdisjoint(ids(second))
    assert "2 frames" in repr(anim)


def test_no_frames_is_an_error():
    fig = plt.figure()
    with pytest.raises(ValueError, match="at least one frame"):
        player(fig, lambda k: None, np.arange(0))
    plt.close(fig)
