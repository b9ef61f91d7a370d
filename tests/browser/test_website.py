"""The book's website, built from the stored notebooks and read in headless Chromium offline.

The site is built once (Sphinx with MyST-NB, as the README's command does, into a temporary
folder); three chapter pages are opened from disk with every request that is not a local file
aborted, and each must show rendered math with no formula MathJax could not typeset, load every
image, show no widget repr and link only to pages that exist. A screenshot of each page is saved
under pytest's temporary directory.
"""

import html
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from .test_jupyterlab_slider import REPO, WIDGET_REPRS, launched_chromium

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
PAGES = ("01_primal", "03_dcd", "05_smo")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The website, built with warnings as errors (-n -W) from the stored outputs."""
    pytest.importorskip("myst_nb")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-n", "-W", "-q", "-b", "html", "-d", str(out / "doctrees"),
                            str(REPO / "notebooks"), str(out / "html")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return out / "html"


@pytest.fixture(scope="module")
def browser():
    with launched_chromium() as launched:
        yield launched


def _internal_targets(page):
    """The local files the page's links point at (without #fragments)."""
    targets = set()
    for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
        url = urlparse(href)
        if url.scheme == "file":
            targets.add(Path(unquote(url.path)))
    return targets


@pytest.mark.parametrize("name", PAGES)
def test_a_chapter_page_reads_offline(site, browser, name, tmp_path):
    context = browser.new_context(viewport={"width": 1300, "height": 1000}, offline=True)
    refused = []

    def only_local(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    page.goto((site / f"{name}.html").as_uri())
    page.wait_for_selector("mjx-container", state="attached", timeout=60_000)  # MathJax has typeset the page
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=60_000)
    text = page.inner_text("main")
    assert page.locator("mjx-container").count() > 10
    errors = page.eval_on_selector_all(  # what MathJax could not typeset: an error box or red TeX
        "mjx-assistive-mml", "els => els.filter(e => e.querySelector('merror, [mathcolor=\"red\"]')).length")
    assert errors == 0, f"{errors} formulas that MathJax shows as errors"
    assert "$$" not in text, "raw display math left in the text"
    broken = page.eval_on_selector_all("img", "imgs => imgs.filter(i => i.naturalWidth === 0).map(i => i.src.slice(0, 80))")
    assert page.locator("img").count() > 0 and not broken, f"images that did not load: {broken}"
    outputs = " ".join(page.locator(".cell_output").all_inner_texts())  # code may name FloatLogSlider; outputs not
    assert outputs and not any(r in outputs for r in WIDGET_REPRS)
    missing = [str(t) for t in _internal_targets(page) if not t.exists()]
    assert not missing, f"links to pages that do not exist: {missing}"
    assert not refused, f"the page asked the network for {refused[:5]}"
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=False)
    context.close()


def test_every_formula_is_read_as_written(site):
    """Each chapter's math reaches MathJax as the chapter delimits it: no $ is left in the prose (a
    display or inline formula read as text) and no inline formula starts on a new line (text read
    as a formula between the dollars of two neighbouring displays)."""
    misread = {}
    for page in sorted(site.glob("[0-9]*.html")) + [site / "notation.html"]:
        source = page.read_text()
        inline = re.findall(r'<span class="math notranslate nohighlight">\\\((.*?)\\\)</span>', source, re.S)
        prose = re.sub(r"<pre.*?</pre>|<code.*?</code>|<(span|div) class=\"math.*?</\1>", "", source, flags=re.S)
        faults = [t[:60] for t in inline if t.startswith("\n")]
        faults += ["a $ in the text"] * html.unescape(re.sub(r"<[^>]+>", "", prose)).count("$")
        if faults:
            misread[page.name] = faults[:3]
    assert not misread, misread
