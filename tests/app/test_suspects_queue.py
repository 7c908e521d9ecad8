"""The Suspects queue in the app: the ranking with its reasons, a blind reviewer's rank-only view,
the "gold is right" verdict, and the precision the team's verdicts measure (docs/suspects.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_data import builds_the_app, close_gradio_loop

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.review import suspects
from analysis.store import Identity, events_frame, open_store
from analysis.store.values import SUSPECT_FIELD
from components.review.context import Refused, ReviewContext
from components.review.extra import (
    gold_change_html,
    queue_frame,
    queue_update,
    suspect_precision,
    suspect_summary,
)
from components.review.panel import confirm_gold, panel, save

ALICE, BOB = Identity("alice"), Identity("bob")
QUEUE = "Suspected wrong gold"

__all__ = ["close_gradio_loop"]  # a fixture: pytest finds it by name


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def ctx(catalog: Catalog, tmp_path: Path) -> ReviewContext:
    return ReviewContext(
        catalog, open_store(tmp_path / "labels.db"), ("alice", "bob"), blind=frozenset({"bob"})
    )


def _row(ctx: ReviewContext, item_id: str) -> int:
    table = ctx.catalog.table
    return int(table.index[table["item_id"] == item_id][0])


def test_the_queue_lists_the_ranking_with_its_reasons(ctx: ReviewContext) -> None:
    frame = queue_frame(ctx, QUEUE, "cmm", ALICE)
    found = ctx.suspects("cmm")
    # the ranking while its evidence is against the gold: items the answers support are no suspects
    listed = [s.item_id for s in found[: suspects.SHOWN] if s.score > 0]
    assert list(frame["item_id"]) == listed and 0 < len(listed) < len(found)
    assert frame["detail"].iloc[0].startswith("#1 · score ")
    assert found[0].reasons[0] in frame["detail"].iloc[0]
    # a visitor sees it too (public data), without the team's verdicts
    assert queue_frame(ctx, QUEUE, "cmm", None)["detail"].iloc[0] == frame["detail"].iloc[0]


def test_a_blind_reviewer_gets_the_queue_without_scores_gold_or_answers(ctx: ReviewContext) -> None:
    frame = queue_frame(ctx, QUEUE, "cmm", BOB)
    assert list(frame["detail"]) == [f"#{i}" for i in range(1, len(frame) + 1)]
    text = frame.to_json()
    top = ctx.suspects("cmm")[0]
    assert "score" not in text and top.reasons[0] not in text
    assert suspect_precision(ctx, "cmm", BOB) == "" and suspect_summary(ctx, "cmm", BOB) == ""
    # nor is the queue's label told which gold it is ranked against (a reviewer's is)
    assert "official" not in queue_update(ctx, QUEUE, "cmm", BOB)["label"]
    assert "against the official gold" in queue_update(ctx, QUEUE, "cmm", ALICE)["label"]


def test_verdicts_measure_the_rankings_precision(ctx: ReviewContext) -> None:
    found = ctx.suspects("cdh-bench")
    first, second = found[0], found[1]
    assert "none checked yet" in suspect_precision(ctx, "cdh-bench", ALICE)
    row = _row(ctx, first.item_id)
    assert "confirmed as right" in confirm_gold(ctx, row, ALICE)
    assert "Already confirmed" in confirm_gold(ctx, row, ALICE)  # not a second event
    events = events_frame(ctx.store)  # type: ignore[arg-type]
    assert (events["field"] == SUSPECT_FIELD).sum() == 1
    other = _row(ctx, second.item_id)
    value = second.alternative or ("yes" if second.gold.lower() == "no" else "A")
    save(ctx, other, ALICE, value, "", [], "", "the image shows it")
    judged = suspects.verdicts(ctx.store, "cdh-bench")
    assert judged == {first.item_id: "confirmed", second.item_id: "corrected"}
    top10 = suspects.precision(found, judged)[0]
    assert (top10.k, top10.checked, top10.wrong) == (10, 2, 1)
    low, high = top10.interval
    assert low < 0.5 < high
    line = suspect_precision(ctx, "cdh-bench", ALICE)
    assert "top 10: 1 of 2 checked had wrong gold (50%" in line
    marked = queue_frame(ctx, QUEUE, "cdh-bench", ALICE).set_index("item_id")["detail"]
    assert " · confirmed · " in marked[first.item_id] and " · corrected · " in marked[second.item_id]


def test_a_blind_reviewer_cannot_confirm_a_gold_they_cannot_see(ctx: ReviewContext) -> None:
    row = _row(ctx, ctx.suspects("cmm")[0].item_id)
    with pytest.raises(Refused, match="review blind"):
        confirm_gold(ctx, row, BOB)
    assert panel(ctx, row, BOB)[-2]["visible"] is False  # the button is not shown to them
    assert panel(ctx, row, ALICE)[-2]["visible"] is True
    with pytest.raises(Refused):
        confirm_gold(ctx, row, None)  # a visitor writes nothing


def test_the_overview_says_how_many_items_are_suspect(ctx: ReviewContext) -> None:
    line = suspect_summary(ctx, "cmm", None)
    n = suspects.suspect_count(ctx.suspects("cmm"))
    assert line.startswith(f"**Suspected wrong gold**: {n} of {len(ctx.suspects('cmm'))} cmm items")
    # tagged captions are ranked by their suspect spans
    assert suspect_summary(ctx, "detailverifybench", None).startswith("**Suspected wrong gold**: ")


def test_a_suspect_captions_view_lists_its_suspect_spans(ctx: ReviewContext) -> None:
    from components.review.gold import ReviewerView

    top = ctx.suspects("detailverifybench")[0]
    assert top.score > 0 and "as hallucinated" in top.reasons[0]
    row = _row(ctx, top.item_id)
    spans = ReviewerView(ctx, ALICE).inspect(row)[3]
    assert "Suspect spans" in spans["value"] and "rank 1 of" in spans["value"]
    assert top.reasons[0].split("“")[0] in spans["value"]
    blind = ReviewerView(ctx, BOB).inspect(row)[3]
    assert "Suspect spans" not in str(blind)


def test_the_three_gold_table_follows_each_correction_though_it_is_remembered(ctx: ReviewContext) -> None:
    """The overview's table is kept per benchmark for the corrections it was made for: a switch back
    reuses it, and a correction (from this process or any other writer) gives a new one."""
    before = gold_change_html(ctx, "cdh-bench", ALICE)
    assert "<details class='hs-gold-changes'>" in before  # folded: nothing corrected yet
    assert gold_change_html(ctx, "cmm", ALICE) != before
    assert gold_change_html(ctx, "cdh-bench", ALICE) == before
    top = ctx.suspects("cdh-bench")[0]
    value = top.alternative or ("yes" if top.gold.lower() == "no" else "A")
    save(ctx, _row(ctx, top.item_id), ALICE, value, "", [], "", "the image shows it")
    after = gold_change_html(ctx, "cdh-bench", ALICE)
    assert "<details class='hs-gold-changes' open>" in after and after != before
    assert gold_change_html(ctx, "cdh-bench", BOB) == ""  # blind: no metric, remembered or not


@builds_the_app
def test_a_queue_fill_that_finishes_after_a_newer_one_stands_down(
    ctx: ReviewContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Review tab's catch-up fill (its default queue) runs; meanwhile the reviewer asks for
    Disagreements and gets them; the catch-up then finishes: the Disagreements stay (issue 20)."""
    import inspect
    import warnings
    from typing import Any

    import gradio as gr

    import app
    from components.review import extra

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        demo = app.build_app(ctx.catalog, ctx)

    def closure(fn: Any) -> dict[str, Any]:
        fn = inspect.unwrap(fn)
        return dict(
            zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ()), strict=True)
        )

    named = [(getattr(inspect.unwrap(f.fn), "__qualname__", ""), f.fn) for f in demo.fns.values() if f.fn]
    loads = [fn for name, fn in named if name == "_wire_tab.<locals>.queue"]  # Show queue, and a pick
    assert len(loads) == 2 and loads[0] is loads[1], loads
    load = loads[0]
    follows = [fn for name, fn in named if name == "ShownTabs.follow.<locals>.followed"]
    (catch_up,) = [closure(fn)["compute"] for fn in follows if closure(fn)["label"] == "Review"]
    request = gr.Request(username="alice", session_hash="alice-1")
    real = extra.queue_update
    asked: list[str] = []

    def slow_then_newer(c: ReviewContext, kind: str, benchmark: Any, who: Any) -> Any:
        asked.append(kind)
        if len(asked) == 1:  # the catch-up is still computing when the reviewer's load comes
            newer = load(request, None, "Disagreements", "cmm")
            assert "Disagreements" in str(newer.get("label", ""))
        return real(c, kind, benchmark, who)

    monkeypatch.setattr(extra, "queue_update", slow_then_newer)
    items, _, message = catch_up(request, None, "cmm", QUEUE)
    assert asked == [QUEUE, "Disagreements"]
    assert items == gr.skip() and message == ""  # it stands down: the newer queue stays shown
    # alone, a fill answers as before
    monkeypatch.setattr(extra, "queue_update", real)
    alone = load(request, None, "Disagreements", "cmm")
    assert "Disagreements" in str(alone.get("label", ""))


def test_the_precision_names_no_rank_past_the_rankings_end() -> None:
    from analysis.review.suspects import precision

    class _S:  # a ranked item: only its id matters here
        def __init__(self, item_id: str) -> None:
            self.item_id = item_id

    found = [_S(f"i{n}") for n in range(43)]  # a helper's session: 43 ranked items, "top 100" shown
    lines = [p.line() for p in precision(found, {"i0": "corrected", "i20": "confirmed"})]  # type: ignore[arg-type]
    assert [line.split(":")[0] for line in lines] == ["top 10", "top 43"]
    assert lines[1].startswith("top 43: 1 of 2 checked had wrong gold")
    assert precision([], {}) == []
