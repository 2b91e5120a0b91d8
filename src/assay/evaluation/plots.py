"""The eval report's plots as inline SVG (matplotlib, the ``eval`` extra; imported here only).

Each function returns one ``<svg>`` string; the report embeds it, so the page needs no CDN
and no files beside it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # the XML prologue is not allowed inside HTML


def _figure(title: str) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.2, 3.0))
    axes.set_title(title, fontsize=10)
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


def histogram(values: Sequence[float], title: str, xlabel: str) -> str:
    figure, axes = _figure(title)
    axes.hist(list(values), bins=10, range=(0.0, 1.0), color="#4c78a8", edgecolor="white")
    axes.set_xlabel(xlabel)
    axes.set_ylabel("items")
    return _svg(figure)


def grouped_bars(groups: dict[str, dict[str, float]], title: str, ylabel: str) -> str:
    """``groups``: {group name: {series name: value}}, one cluster of bars per group."""
    figure, axes = _figure(title)
    names = list(groups)
    series = sorted({s for values in groups.values() for s in values})
    width = 0.8 / max(len(series), 1)
    for n, name in enumerate(series):
        xs = [i + n * width for i in range(len(names))]
        axes.bar(xs, [groups[g].get(name, 0.0) for g in names], width, label=name)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(names))], names, fontsize=8)
    axes.set_ylabel(ylabel)
    axes.legend(fontsize=7, frameon=False)
    return _svg(figure)


def per_item(values: Sequence[float], title: str, ylabel: str) -> str:
    figure, axes = _figure(title)
    from matplotlib.ticker import MaxNLocator

    axes.bar(range(1, len(values) + 1), list(values), color="#f58518")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("item")
    axes.set_ylabel(ylabel)
    return _svg(figure)
