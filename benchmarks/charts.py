"""PNG charts for the benchmark reports (matplotlib, headless)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt


def grouped_bars(
    path: Path,
    title: str,
    series: Mapping[str, Mapping[str, float | None]],
    ylabel: str,
    ylim: tuple[float, float] | None = None,
) -> Path:
    """One group of bars per x label, one bar per series (e.g. system); None is drawn as 0."""
    labels = list(dict.fromkeys(k for values in series.values() for k in values))
    width = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(labels) + 2), 4))
    for i, (name, values) in enumerate(series.items()):
        xs = [j + i * width for j in range(len(labels))]
        ys = [values.get(label) or 0.0 for label in labels]
        ax.bar(xs, ys, width, label=name)
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.legend(fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
