"""What the test files share: matplotlib without a screen, and no figure left open after a test."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def pytest_collection_modifyitems(items):
    """The longest files first: the browser tests, then the notebooks, then the library tests (each
    group in its own order). With one pytest-xdist worker a core taking a whole file at a time
    (``--dist loadfile``), a long file started last keeps one worker busy while the others idle;
    the many short library files fill the end instead."""
    def group(item):
        if item.get_closest_marker("browser"):
            return 0
        return 1 if ".ipynb::" in item.nodeid else 2

    items.sort(key=group)
