"""The charts tab: one plot per chart of :func:`analysis.charts.common.chart_list`, following the filters.

A chart with nothing to show in the view is hidden (the first, accuracy, always shows).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np
import numpy.typing as npt

from analysis.charts.common import chart_list, draw_all, view_data
from analysis.files.csv_cells import frame_csv
from analysis.load.catalog import Catalog
from analysis.query import Filters


@dataclass
class ChartWidgets:
    """The note and the chart plots, in the order :func:`chart_updates` fills them."""

    note: gr.Markdown
    plots: list[gr.Plot]
    """One per chart of :func:`analysis.charts.common.chart_list`, in its order."""

    def outputs(self) -> list[Any]:
        """Widgets :func:`chart_updates` fills."""
        return [self.note, *self.plots]


def build_charts() -> ChartWidgets:
    """Plots, one per row so each gets the full width."""
    note = gr.Markdown("Charts follow the filters on the left (a chart with no data in the view is hidden).")
    plots = [
        gr.Plot(label=chart.title, elem_id=f"chart-{chart.name}", show_label=False)
        for _, chart in chart_list()
    ]
    return ChartWidgets(note, plots)


def build_csv_export() -> tuple[gr.Button, gr.DownloadButton]:
    """A button preparing the charts' numbers as CSV, and the download it then offers."""
    with gr.Row(equal_height=True):
        prepare = gr.Button("Chart numbers of this view (CSV)", size="sm", elem_id="charts-csv-make")
        download = gr.DownloadButton("Download CSV", size="sm", visible=False, elem_id="charts-csv")
    return prepare, download


def chart_csv(catalog: Catalog, filters: Filters, folder: Path, gold: str = "official") -> Any:
    """Write the numbers behind the charts of the view to ``folder`` and offer them for download.

    ``gold``: which gold ``catalog`` scores against (``official``, ``corrected``), said in a
    column and in the file's name, so a file read later says which numbers it holds.
    """
    view = catalog.chart_rows(catalog.rows_for(filters))
    data = view_data(view)
    data.insert(1, "gold", gold)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"charts-{filters.benchmark or 'all'}-{gold}.csv"
    path.write_text(frame_csv(data), encoding="utf-8")  # model names are text from file names
    return gr.update(value=str(path), visible=True)


def chart_updates(
    catalog: Catalog, filters: Filters, rows: npt.NDArray[np.intp] | None = None
) -> tuple[Any, ...]:
    """Every chart for the rows passing ``filters`` (or ``rows``); charts without traces are hidden."""
    rows = catalog.rows_for(filters) if rows is None else rows
    view = catalog.chart_view(rows)  # pre-grouped counts: the cost does not grow with the view
    figures = draw_all(view)
    note = f"Charts over the {len(rows):,} rows of the current view."
    if filters.wrong_only:
        note += " *Wrong only* is on: every verdict in view is wrong, so accuracies read 0."
    updates = [
        gr.update(value=fig, visible=index == 0 or bool(fig.data)) for index, fig in enumerate(figures)
    ]
    return (note, *updates)
