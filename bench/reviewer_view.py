"""What one gold on screen costs: browse handlers through a reviewer's view beside the plain view.

The reviewer's view (``components.review.gold.ReviewerView``) reads the current labels and
rescores the shown rows against them on every page, item and *wrong only* filter; a blind
reviewer's view blanks columns instead. Same process, same 100,000 rows (the samples replicated
as in ``bench/app.py``), with ``--labels`` gold corrections in the store. No assertions: figures.

    python bench/reviewer_view.py [--rows 100000] [--labels 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.load.catalog import Catalog, load_paths  # noqa: E402
from analysis.store import Identity, ItemRef, open_store  # noqa: E402
from analysis.store.events import write_labels  # noqa: E402
from components.browse import navigate  # noqa: E402
from components.browse import page as browse  # noqa: E402
from components.browse.view import ItemView  # noqa: E402
from components.review.context import ReviewContext  # noqa: E402
from components.review.gold import ReviewerView  # noqa: E402

# bench/app.py's data and timer (loaded by path: "app" is also the project's app module)
_spec = importlib.util.spec_from_file_location("bench_app", ROOT / "bench" / "app.py")
assert _spec is not None and _spec.loader is not None
bench_app = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_app)
filters, median_ms, synthesize = bench_app.filters, bench_app.median_ms, bench_app.synthesize


def correct_some(ctx: ReviewContext, n: int) -> None:
    """Flip the gold of ``n`` CMM items (one transaction)."""
    assert ctx.store is not None
    table = ctx.catalog.table
    items = table[table["benchmark"] == "cmm"].drop_duplicates("item_id").head(n)
    flip = {"yes": "no", "no": "yes"}
    writes = [
        (
            ItemRef("cmm", str(r.item_id), str(r.task or ""), str(r.gold)),
            "gold",
            flip.get(str(r.gold).lower(), "yes"),
        )
        for r in items.itertuples()
    ]
    write_labels(ctx.store, writes, Identity("bench"), "bench", scope="final")


def figures(cat: Catalog, ctx: ReviewContext) -> None:
    views: dict[str, ItemView] = {
        "plain (official gold)": ItemView(cat),
        "reviewer (current gold)": ReviewerView(ctx, Identity("alice")),
        "blind reviewer": ReviewerView(ctx, Identity("bob")),
    }
    values = filters("cmm")
    wrong = filters("cmm", wrong=True)
    frame, _, _ = browse.show_page(cat, browse.filters_from(*values), 1)
    row = frame.iloc[7].tolist()
    current = int(row[0])
    cases: list[tuple[str, Any]] = [
        ("table page (cmm)", lambda v: browse.show_page(v, browse.filters_from(*values), 3)),
        ("select an item", lambda v: navigate.select_row(v, row, values)),
        ("next item", lambda v: navigate.step_item(v, 1, current, 1, values)),
        ("wrong only, first page", lambda v: browse.show_page(v, browse.filters_from(*wrong), 1)),
    ]
    print(f"{'handler (median ms)':28}" + "".join(f"{name:>26}" for name in views))
    for label, run in cases:
        cells = [median_ms(lambda v=v, run=run: run(v), repeat=7) for v in views.values()]
        print(f"{label:28}" + "".join(f"{ms:26.1f}" for ms in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--labels", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cat = load_paths(synthesize(Path(tmp), args.rows))
        ctx = ReviewContext(
            cat, open_store(Path(tmp) / "labels.db"), ("alice", "bob"), blind=frozenset({"bob"})
        )
        start = time.perf_counter()
        correct_some(ctx, args.labels)
        print(
            f"{len(cat.table):,} rows; {args.labels:,} gold corrections written in "
            f"{(time.perf_counter() - start) * 1000:.0f} ms"
        )
        figures(cat, ctx)


if __name__ == "__main__":
    main()
