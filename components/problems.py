"""The Data problems tab: the audit findings of the selected benchmark, read-only.

Findings quote gold ("gold is 'A' on both sides"), so they are sent per request and a blind
reviewer gets none. Paths in them are shown relative to the benchmark's media roots: the server's
folders are nobody's business. A finding's items open in the Items tab, as the overview's failure
button does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.base import Finding
from analysis.load.catalog import Catalog

TAB = "Data problems"
FINDING_COLUMNS = ["benchmark", "severity", "check", "where", "detail", "items"]
BLIND_LINE = "Audit findings are hidden in blind mode: they quote the gold."


@dataclass(frozen=True)
class ProblemsWidgets:
    """The tab's widgets: a line, the findings table, and the item opener."""

    line: gr.Markdown
    table: gr.Dataframe
    item: gr.Dropdown
    open_item: gr.Button

    def outputs(self) -> list[Any]:
        """What :func:`show` fills, in order."""
        return [self.line, self.table, self.item, self.open_item]


def build(catalog: Catalog) -> ProblemsWidgets:
    """The tab's layout; nothing in it until a request asks (see :func:`show`)."""
    line = gr.Markdown("", elem_id="findings-line")
    table = gr.Dataframe(
        pd.DataFrame(columns=FINDING_COLUMNS),
        interactive=False,
        max_height=500,
        wrap=True,
        column_widths=["10%", "9%", "15%", "22%", "36%", "8%"],
        elem_id="findings",
    )
    with gr.Row(equal_height=True):
        item = gr.Dropdown([], value=None, label="Item named by a finding", scale=4, elem_id="finding-item")
        open_item = gr.Button("Open it in Items", scale=1, interactive=False, elem_id="open-finding")
    return ProblemsWidgets(line, table, item, open_item)


def relative(text: str, roots: Sequence[Path]) -> str:
    """``text`` with every media root's absolute path dropped (``/srv/m/a.mp4`` -> ``a.mp4``).

    The longest root first, so a root nested in another is cut whole; a root's own path with no
    file after it reads "the media root".
    """
    spellings = {str(p) for r in roots for p in (Path(r), Path(r).resolve())}
    for root in sorted(spellings, key=len, reverse=True):
        text = text.replace(root.rstrip(os.sep) + os.sep, "").replace(root, "the media root")
    return text


def findings_frame(catalog: Catalog, benchmark: str | None = None) -> pd.DataFrame:
    """The audit findings of ``benchmark`` (every benchmark when None), one row each."""
    records = [
        {
            "benchmark": b,
            "severity": x.severity,
            "check": x.check,
            "where": relative(x.where, catalog.media_roots.get(b, ())),
            "detail": relative(x.detail, catalog.media_roots.get(b, ())),
            "items": len(x.item_ids),
        }
        for b, x in _findings(catalog, benchmark)
    ]
    return pd.DataFrame.from_records(records, columns=FINDING_COLUMNS)


def item_choices(catalog: Catalog, benchmark: str | None) -> list[tuple[str, str]]:
    """(label, item id) of every item a finding of ``benchmark`` names, each once, in finding order."""
    seen: dict[str, str] = {}
    for _, x in _findings(catalog, benchmark):
        for item_id in x.item_ids:
            seen.setdefault(item_id, f"{item_id} · {x.check}")
    return [(label, item_id) for item_id, label in seen.items()]


def show(catalog: Catalog, benchmark: str | None, blind: bool) -> tuple[Any, ...]:
    """Line, table, item choices and button state for a reviewer (blind: nothing quoting gold)."""
    if blind:
        return (
            BLIND_LINE,
            pd.DataFrame(columns=FINDING_COLUMNS),
            gr.update(choices=[], value=None),
            gr.update(interactive=False),
        )
    frame = findings_frame(catalog, benchmark)
    choices = item_choices(catalog, benchmark)
    where = f" in {benchmark}" if benchmark else ""
    if frame.empty:
        line = f"No audit finding{where}."
    else:
        line = (
            f"{len(frame)} audit finding(s){where}. Open an item they name below, or tick "
            "*Flagged by the audit* to browse them all."
        )
    return (
        line,
        frame,
        gr.update(choices=choices, value=choices[0][1] if choices else None),
        gr.update(interactive=bool(choices)),
    )


def _findings(catalog: Catalog, benchmark: str | None) -> list[tuple[str, Finding]]:
    return [(b, x) for b, found in catalog.findings.items() if benchmark in (None, b) for x in found]
