"""Chapter 9's epsilon slider, moved in a real JupyterLab page by headless Chromium.

Reuses the server and browser fixtures of :mod:`tests.browser.test_jupyterlab_slider` (read
its docstring): a copy of ``notebooks/10_svr.ipynb`` is served and run down to its first widget,
and in the ``svr_explorer`` box (an ``interactive`` with a ``FloatSlider(description="epsilon")``)
ArrowRight is pressed on the epsilon handle; the printed ``support vectors = ...`` line and the
figure (the tube) must change.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.test_jupyterlab_slider import (  # noqa: F401 - fixtures used by name
    EXPECT_MS, IDLE_RE, OVERALL_S, REPO, WIDGET_ERRORS, _serve, _tail, chromium_page, pytestmark,
    run_down_to_the_first_widget)

SVR_NOTEBOOK = REPO / "notebooks" / "10_svr.ipynb"
SUPPORT_RE = re.compile(r"support vectors = (\d+) of")


@pytest.fixture
def jupyterlab_svr(tmp_path):
    yield from _serve(tmp_path, SVR_NOTEBOOK)


def _support(text: str) -> int:
    m = SUPPORT_RE.search(text)
    assert m, f"no 'support vectors = <n> of' line in the widget output: {text!r}"
    return int(m.group(1))


def test_epsilon_slider_redraws_the_tube(jupyterlab_svr, chromium_page):
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_MS)
    base, token, name, log = jupyterlab_svr
    page = chromium_page
    started = time.monotonic()
    try:
        page.goto(f"{base}/lab/tree/{name}?token={token}", wait_until="domcontentloaded")
        expect(page.locator(".jp-NotebookPanel .jp-Notebook")).to_be_visible()
        idle = page.locator("#jp-main-statusbar .jp-StatusBar-TextItem[title^='Change kernel']")
        expect(idle).to_have_text(IDLE_RE)
        run_down_to_the_first_widget(page, SVR_NOTEBOOK)

        label = page.locator(".widget-label", has_text=re.compile(r"^epsilon$"))
        box = page.locator(".widget-interact").filter(has=label).first
        expect(box).to_be_visible()
        out = box.locator(".widget-output")
        expect(out).to_contain_text("support vectors =")
        img = out.locator("img").first
        expect(img).to_be_visible()
        expect(idle).to_have_text(IDLE_RE)
        before_count, before_src = _support(out.inner_text()), img.get_attribute("src")
        assert before_src, "the figure <img> has no src"

        slider = box.locator(".widget-slider").filter(has=label).first
        handle = slider.locator(".noUi-handle").first
        handle.scroll_into_view_if_needed()
        handle.focus()
        for _ in range(4):  # epsilon 0.1 -> 0.3: a wider tube, fewer support vectors
            handle.press("ArrowRight")
            page.wait_for_timeout(150)

        expect(out.locator("img").first).not_to_have_attribute("src", before_src)
        expect(out).not_to_have_text(re.compile(rf"support vectors = {before_count} of"))
        expect(idle).to_have_text(IDLE_RE)
        assert _support(out.inner_text()) < before_count
        for message in WIDGET_ERRORS:
            expect(page.get_by_text(message)).to_have_count(0)
        assert time.monotonic() - started < OVERALL_S, "the browser session took over 3 minutes"
    except BaseException:
        print(f"--- JupyterLab log ---\n{_tail(log)}")
        raise
