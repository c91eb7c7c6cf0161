"""The one style every hpcab figure uses: fonts, sizes, a colour per arm, and ``save``.

Importing this module selects matplotlib's Agg backend (no display needed) before pyplot is
imported anywhere, and sets the rcParams below. ``save`` writes NAME.pdf, NAME.png and
NAME.csv (the table behind the figure) with output as deterministic as matplotlib allows:
no creation date in the PDF, no software tag in the PNG, a fixed SVG hash salt.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

# pyplot only after the backend is chosen
import matplotlib.pyplot as plt
import polars as pl
from matplotlib import colors as mcolors

DPI = 150                 # PNG resolution; a figure of W×H inches is W·DPI × H·DPI pixels
WIDTH = 7.0               # default figure width, inches
FONT_SIZE = 9.0

RC = {
    "font.family": "DejaVu Sans",          # ships with matplotlib: the same glyphs on every machine
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE + 1,
    "axes.labelsize": FONT_SIZE,
    "xtick.labelsize": FONT_SIZE - 1,
    "ytick.labelsize": FONT_SIZE - 1,
    "legend.fontsize": FONT_SIZE - 1,
    "legend.frameon": False,
    "figure.titlesize": FONT_SIZE + 2,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "pdf.fonttype": 42,                    # TrueType in the PDF: editable text
    "ps.fonttype": 42,
    "svg.hashsalt": "hpcab",               # stable ids in SVG output
    "savefig.dpi": DPI,
    "figure.dpi": DPI,
    "path.simplify": True,
}
matplotlib.rcParams.update(RC)

# Colour-blind-friendly qualitative palette (Okabe–Ito first, then a few more distinct ones).
# (Okabe-Ito's yellow and black left out, and grey: too pale on white, or the baseline's.)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#9467BD",
           "#17BECF", "#BCBD22", "#1F3A93", "#E377C2")

# Outcome colours (correctness figure), fixed.
OUTCOME_COLOURS = {
    "correct": "#009E73",
    "incorrect": "#D55E00",
    "implausible_unreviewed": "#E69F00",
    "no_submission": "#BBBBBB",
}
BASELINE_COLOUR = "#444444"


def arm_colours(arms) -> dict[str, str]:
    """A colour for each arm: the palette in order over the arms' names sorted, so arms
    drawn together are told apart as well as the palette allows. Every figure of one table
    gets its colours from all of the table's arms (hpcab.analysis.figures), so an arm has
    the same colour in each of them; beyond the palette, evenly spaced hues."""
    arms = sorted({str(a) for a in arms})
    out = {}
    for i, arm in enumerate(arms):
        if i < len(PALETTE):
            out[arm] = PALETTE[i]
        else:
            extra = len(arms) - len(PALETTE)
            h = (i - len(PALETTE) + 0.5) / extra
            out[arm] = mcolors.to_hex(mcolors.hsv_to_rgb((h, 0.7, 0.75)))
    return out


def figure(height: float, width: float = WIDTH, **kw):
    """A new figure of the house size, with constrained layout (so the saved PNG has
    exactly width·DPI × height·DPI pixels; both are rounded to whole pixels)."""
    width, height = round(width * DPI) / DPI, round(height * DPI) / DPI
    return plt.figure(figsize=(width, height), layout="constrained", **kw)


def save(fig, table: pl.DataFrame, out_dir: str | Path, name: str) -> dict[str, Path]:
    """Write NAME.pdf, NAME.png (DPI dots per inch) and NAME.csv (``table``) into ``out_dir``
    (created if missing), close the figure, and return the three paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"pdf": out / f"{name}.pdf", "png": out / f"{name}.png", "csv": out / f"{name}.csv"}
    fig.savefig(paths["pdf"], format="pdf", metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                                                      "Creator": None})
    fig.savefig(paths["png"], format="png", dpi=DPI, metadata={"Software": None})
    table.write_csv(paths["csv"])
    plt.close(fig)
    return paths
