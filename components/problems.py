"""The Data problems tab: the audit findings of the selected benchmark, read-only.

Findings quote gold ("gold is 'A' on both sides"), so they are sent per request and a blind
reviewer gets none. Paths in them are shown relative to the benchmark's media roots: the server's
folders are nobody's business. A finding's items open in the Items tab, as the overview's failure
button does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from analysis.benchmarks.base import Finding
from analysis.errors import StoreError
from analysis.load.catalog import Catalog
from analysis.review.findings import STATES, seen_states
from analysis.store import Store

TAB = "Data problems"
FINDING_COLUMNS = ["benchmark", "severity", "check", "where", "detail", "items"]
REVIEWED = "reviewed"
"""With a label store: where its labels leave each finding (:mod:`analysis.review.findings`)."""
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


def columns(reviewed: bool) -> list[str]:
    """The table's columns: with a label store, each finding's state before its item count."""
    return [*FINDING_COLUMNS[:-1], REVIEWED, FINDING_COLUMNS[-1]] if reviewed else FINDING_COLUMNS


def build(catalog: Catalog, reviewed: bool = False) -> ProblemsWidgets:
    """The tab's layout; nothing in it until a request asks (see :func:`show`).

    ``reviewed``: the app has a label store, so the table has a column for each finding's state.
    """
    line = gr.Markdown("", elem_id="findings-line")
    widths: list[str | int] = (
        ["10%", "9%", "13%", "18%", "34%", "9%", "7%"]
        if reviewed
        else ["10%", "9%", "15%", "22%", "36%", "8%"]
    )
    table = gr.Dataframe(
        pd.DataFrame(columns=columns(reviewed)),
        interactive=False,
        max_height=500,
        wrap=True,
        column_widths=widths,
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


def findings_frame(
    catalog: Catalog, benchmark: str | None = None, states: Mapping[str, Sequence[str | None]] | None = None
) -> pd.DataFrame:
    """The audit findings of ``benchmark`` (every benchmark when None), one row each.

    ``states``: benchmark -> the state of each of its findings, in order; a column of them then.
    """
    found = _findings(catalog, benchmark)
    records = [
        {
            "benchmark": b,
            "severity": x.severity,
            "check": x.check,
            "where": relative(x.where, catalog.media_roots.get(b, ())),
            "detail": relative(x.detail, catalog.media_roots.get(b, ())),
            REVIEWED: _state(states, b, n),
            "items": len(x.item_ids),
        }
        for b, n, x in found
    ]
    return pd.DataFrame.from_records(records, columns=columns(states is not None))


def item_choices(catalog: Catalog, benchmark: str | None) -> list[tuple[str, str]]:
    """(label, item id) of every item a finding of ``benchmark`` names, each once, in finding order."""
    seen: dict[str, str] = {}
    for _, _, x in _findings(catalog, benchmark):
        for item_id in x.item_ids:
            seen.setdefault(item_id, f"{item_id} · {x.check}")
    return [(label, item_id) for item_id, label in seen.items()]


def show(
    catalog: Catalog, benchmark: str | None, blind: bool, store: Store | None = None, team: bool = True
) -> tuple[Any, ...]:
    """Line, table, item choices and button state for a reviewer (blind: nothing quoting gold).

    With a label store, each finding's state: ``fixed``, ``corrected``, ``confirmed`` or blank.
    ``team``: the viewer's ``Access.sees_team``; which states that shows is the core's rule
    (:func:`analysis.review.findings.seen_states`: a visitor's column stays blank).
    """
    if blind:
        return (
            BLIND_LINE,
            pd.DataFrame(columns=columns(store is not None)),
            gr.update(choices=[], value=None),
            gr.update(interactive=False),
        )
    states = None if store is None else _states(catalog, benchmark, store, team)
    frame = findings_frame(catalog, benchmark, states)
    choices = item_choices(catalog, benchmark)
    where = f" in {benchmark}" if benchmark else ""
    if frame.empty:
        line = f"No audit finding{where}."
    else:
        counts = frame[REVIEWED].value_counts() if REVIEWED in frame else pd.Series(dtype=int)
        settled = ", ".join(f"{counts[s]} {s}" for s in STATES if s in counts)
        line = (
            f"{len(frame)} audit finding(s){where}"
            + (f" ({settled} by the team's labels)" if settled else "")
            + ". Open an item they name below, or tick *Flagged by the audit* to browse them all."
        )
    return (
        line,
        frame,
        gr.update(choices=choices, value=choices[0][1] if choices else None),
        gr.update(interactive=bool(choices)),
    )


def _findings(catalog: Catalog, benchmark: str | None) -> list[tuple[str, int, Finding]]:
    """(benchmark, the finding's place among that benchmark's, finding) of ``benchmark`` or all."""
    return [
        (b, n, x)
        for b, found in catalog.findings.items()
        if benchmark in (None, b)
        for n, x in enumerate(found)
    ]


def _state(states: Mapping[str, Sequence[str | None]] | None, benchmark: str, n: int) -> str:
    known = (states or {}).get(benchmark)
    return (known[n] or "") if known else ""


def _states(catalog: Catalog, benchmark: str | None, store: Store, team: bool) -> dict[str, list[str | None]]:
    """Benchmark -> its findings' states; none for a store that is down (its own line says so)."""
    names = [b for b, found in catalog.findings.items() if benchmark in (None, b) and found]
    try:
        return {b: seen_states(store, b, catalog.findings[b], sees_team=team) for b in names}
    except StoreError:
        return {}
