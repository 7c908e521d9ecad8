"""The app's handlers are plain functions of the catalog and widget values: tested without a server."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import gradio as gr
import pytest
from app_data import GRADIO_LOOP_WARNINGS, PAYLOAD, catalog, close_gradio_loop

import app
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query import ALL
from components import media_route
from components.browse import charts, navigate, render
from components.browse import page as browse
from components.browse.inspector import inspect_row
from components.keys import HEAD, NEXT_ID, PREV_ID, TYPING_JS

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]

NO_FILTER = [None, [], ALL, ALL, False, False, False, "", "", ""]


def _filters(**kw: object) -> list[object]:
    names = [
        "benchmark",
        "models",
        "task",
        "category",
        "wrong",
        "dependent",
        "flagged",
        "search",
        "slice",
        "flip",
    ]
    values = dict(zip(names, NO_FILTER, strict=True))
    values.update(kw)
    return [values[n] for n in names]


@pytest.fixture
def cat(tmp_path: Path) -> Catalog:
    return catalog(tmp_path)


def _row(cat: Catalog, item_id: str, model: str = "m1") -> int:
    t = cat.table
    return int(t.index[(t["item_id"] == item_id) & (t["model"] == model)][0])


def test_show_page_pages_and_clamps(cat: Catalog) -> None:
    frame, page, info = browse.show_page(cat, browse.filters_from(*_filters(benchmark="cmm")), 7)
    assert page == 1 and len(frame) == 6
    assert info == "rows 1–6 of 6 · page 1 of 1"
    frame, page, info = browse.show_page(cat, browse.filters_from(*_filters(search="zzz")), 1)
    assert frame.empty and info == "No rows in this view: loosen the filters."  # was "rows 0–-1 of 0"


def test_benchmark_change_offers_its_own_choices(cat: Catalog) -> None:
    models, task, category, cut, flip = browse.on_benchmark(cat, "avhbench")
    assert cut == flip == ""  # another benchmark's slice would name columns this one may not have
    assert models["choices"] == [("m1", "m1"), ("m2", "m2")] or models["choices"] == ["m1", "m2"]
    assert task["value"] == ALL and category["value"] == ALL
    assert "Video-driven Audio Hallucination" in str(task["choices"])


def test_a_benchmark_switch_keeps_the_choices_the_new_benchmark_also_has(cat: Catalog) -> None:
    models, task, category, _, _ = browse.on_benchmark(cat, "avhbench", ["m2", "ghost"], "qa", "nope")
    assert models["value"] == ["m2"]  # ghost is no model of avhbench: dropped, m2 kept
    assert task["value"] == ALL and category["value"] == ALL  # not avhbench's: reset
    task_name = "Video-driven Audio Hallucination"
    _, kept, _, _, _ = browse.on_benchmark(cat, "avhbench", [], task_name, None)
    assert kept["value"] == task_name


def test_selection_reads_the_row_from_its_values_not_its_position(cat: Catalog) -> None:
    row = _row(cat, "cmm-1", "m2")
    frame, _, _ = browse.show_page(cat, browse.filters_from(*_filters(benchmark="cmm")), 1)
    values = frame[frame["row"] == row].iloc[0].tolist()  # as if the user sorted: any position works
    current, status, _, item, _, others = navigate.select_row(cat, values, _filters(benchmark="cmm"))
    assert current == row
    assert "nothing there" in item and "m1" in others
    assert status.startswith("item ") and f"row {row}" in status
    assert browse.row_from_values(None) is None and browse.row_from_values(["x"]) is None


def test_next_and_previous_follow_the_view_and_its_page(cat: Catalog) -> None:
    f = _filters(benchmark="cmm", wrong=True)
    first = navigate.step_item(cat, 1, None, 1, f)
    rows = [first[0]]
    for _ in range(3):
        rows.append(navigate.step_item(cat, 1, rows[-1], 1, f)[0])
    wrong = cat.table.index[(cat.table["benchmark"] == "cmm") & (cat.table["correct"] == False)].tolist()  # noqa: E712
    assert len(wrong) == 2 and rows == [wrong[0], wrong[1], wrong[1], wrong[1]]  # clamps at the end
    back = navigate.step_item(cat, -1, rows[1], 1, f)
    assert back[0] == rows[0]
    assert back[-3] is not None  # table output present (skip or a page)


def test_an_item_opened_by_id_pages_the_table_to_it() -> None:
    # the table follows "Go to item id" as it follows next and previous: the page holding the row,
    # nothing sent when that page is shown already or when no item opened
    cat = load_manifest(SAMPLE_MANIFEST)  # the samples: a view of several pages
    f = _filters(benchmark="cdh-bench")
    rows = cat.rows_for(browse.filters_from(*f))
    far = int(rows[-1])  # on the view's last page
    last = -(-len(rows) // 50)
    assert last > 1
    frame, number, info = navigate.page_to_row(cat, far, 1, f)
    assert number == last and far in frame["row"].tolist() and f"page {last} of {last}" in info
    assert all(isinstance(x, dict) for x in navigate.page_to_row(cat, far, last, f))  # shown: skipped
    assert all(isinstance(x, dict) for x in navigate.page_to_row(cat, None, 1, f))


def test_find_item_by_id(cat: Catalog) -> None:
    current, status, *_ = navigate.find_item(cat, "tsh-0", _filters())
    assert current == _row(cat, "tsh-0")
    current, status, *_ = navigate.find_item(cat, "nope", _filters())
    assert current is None and "No item with id <code>nope</code>" in status


def test_inspector_escapes_answers_and_marks_the_reading(cat: Catalog) -> None:
    _, _, item, _, others = inspect_row(cat, _row(cat, "cmm-2", "m2"))
    assert "<img src=x" not in item and "<script>" not in item
    assert html.escape(PAYLOAD) in item
    _, _, item, _, others = inspect_row(cat, _row(cat, "cmm-2", "m1"))
    assert "<script>" not in others and html.escape(PAYLOAD)[:30] in others
    _, _, item, _, _ = inspect_row(cat, _row(cat, "cmm-0"))
    assert '<mark class="hs-parsed">Yes</mark>, a river.' in item


def test_media_served_only_when_found_inside_a_root(cat: Catalog) -> None:
    _, media, *_ = inspect_row(cat, _row(cat, "cmm-0"))
    # CMM visual+audio: the silent video and its wav play together (same sync group)
    assert media.count('data-sync="hs-sync-0"') == 2
    # (the media lie outside the tests' folder: named by token, which maps back to the file)
    src = media.split('src="')[1].split('"')[0]
    assert src.startswith("gradio_api/file=hs:media/") and src.endswith("/v0.mp4")
    assert str(media_route.aliased(src.split("/")[-2])).endswith("cmm/reorg_raw_files/v0.mp4")
    _, media, *_ = inspect_row(cat, _row(cat, "cmm-2"))
    assert (
        "Not found under the media roots" in media and "gradio_api/file=" not in media.split("hs-missing")[1]
    )


def test_pair_media_side_by_side(cat: Catalog) -> None:
    _, media, item, *_ = inspect_row(cat, _row(cat, "cdh-1-counterfactual"))
    assert media.index("commonsense.png") < media.index("counterfactual.png")
    assert media.count("<img ") == 2 and "Other side of the pair" in item


def test_span_view_only_for_span_benchmarks(cat: Catalog) -> None:
    _, _, item, spans, _ = inspect_row(cat, _row(cat, "dvb-1"))
    assert spans["visible"] is True
    assert "hs-question" not in item  # the caption is shown once, coloured, in the span view
    assert 'class="hs-hit" title="hit: Object Color Hallucination"' in spans["value"]
    assert 'class="hs-fa"' in spans["value"] and 'class="hs-miss"' in spans["value"]
    assert "token P 0.667" in spans["value"]
    _, _, _, spans, _ = inspect_row(cat, _row(cat, "dvb-2"))
    assert "Not scored: Tag counts differ" in spans["value"]
    _, _, _, spans, _ = inspect_row(cat, _row(cat, "cmm-0"))
    assert spans["visible"] is False


def test_task_facts_for_tsh(cat: Catalog) -> None:
    _, _, item, _, _ = inspect_row(cat, _row(cat, "tsh-0"))
    assert "B: sit down → A: open the door" in item and "A: open the door → B: sit down" in item


def test_charts_follow_the_filters_and_hide_empty_ones(cat: Catalog) -> None:
    note, acc, yes, cf, spans = charts.chart_updates(
        cat, browse.filters_from(*_filters(benchmark="cdh-bench"))
    )
    assert "4 rows" in note
    assert acc["visible"] and cf["visible"] and yes["visible"] and not spans["visible"]
    _, acc2, *_ = charts.chart_updates(cat, browse.filters_from(*_filters(benchmark="cdh-bench", wrong=True)))
    assert [list(t.y) for t in acc["value"].data] != [list(t.y) for t in acc2["value"].data]


def test_empty_inspector_and_out_of_range_rows(cat: Catalog) -> None:
    status, media, item, spans, others = inspect_row(cat, None)
    assert "Select a row" in item and spans["visible"] is False
    assert status == "" and media == "" and others == ""
    assert inspect_row(cat, 10_000)[2] == item


def test_build_app_is_a_factory_with_named_endpoints(cat: Catalog) -> None:
    demo = app.build_app(cat)
    assert isinstance(demo, gr.Blocks)
    names = {d.api_name for d in demo.fns.values() if d.api_name}
    assert {"view", "page", "next_item", "previous_item", "item"} <= names
    kwargs = app.launch_kwargs(cat)
    assert kwargs["allowed_paths"] == cat.allowed_paths() and kwargs["head"].startswith(HEAD)
    assert "popstate" in kwargs["head"]  # Back restores the previous view (components/url_state.py)
    # the key script clicks the app's own buttons and ignores typing in fields
    assert NEXT_ID in HEAD and PREV_ID in HEAD and TYPING_JS in HEAD


def test_load_errors_are_shown_escaped(tmp_path: Path) -> None:
    cat = catalog(tmp_path, errors=["bad<b>.json: line 3: field 'pred': expected a string"])
    text = app._errors_html(cat.errors)
    assert "bad&lt;b&gt;.json: line 3" in text
    assert "1 file problem" in app._summary(cat)


def test_render_media_url_quotes_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # under the server's folder: named relative to it
    assert render.media_url(tmp_path / "v" / "a b.mp4") == "gradio_api/file=v/a%20b.mp4"
    # outside it: a token and the file's name, never the folder (the route maps the token back)
    outside = Path("/m/a b#c.mp4")
    url = render.media_url(outside)
    assert url == f"gradio_api/file=hs:media/{media_route.token(outside)}/a%20b%23c.mp4"
    assert media_route.aliased(media_route.token(outside)) == outside
    # a first folder with a colon would read as a URL's scheme (refused by the route), and as the
    # alias: a token as well
    odd = tmp_path / "hs:media" / "a.mp4"
    assert render.media_url(odd) == f"gradio_api/file=hs:media/{media_route.token(odd)}/a.mp4"


SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "manifest.json"


@pytest.fixture(scope="module")
def samples() -> Catalog:
    if not SAMPLES.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    from analysis.load.catalog import load_manifest

    return load_manifest(SAMPLES)


def _first(cat: Catalog, **where: str) -> int:
    mask = True
    for column, value in where.items():
        mask = mask & (cat.table[column].astype(str) == value)
    return int(cat.table.index[mask][0])


def test_samples_task_facts_and_pairs(samples: Catalog) -> None:
    _, _, item, _, _ = inspect_row(samples, _first(samples, benchmark="vidhalluc", task="sth"))
    assert "scene change" in item and "from " in item  # parsed locations against gold
    _, _, item, _, _ = inspect_row(samples, _first(samples, benchmark="vidhalluc", task="tsh"))
    # gold is AB or BA: the gold order names both actions by their text
    assert "model order" in item and re.search(r"gold order</th><td>[AB]: The person .* → [AB]: ", item)
    _, media, item, _, _ = inspect_row(samples, _first(samples, benchmark="vidhalluc", task="bqa"))
    assert media.count("<video") == 2 and "Other side of the pair" in item
    _, _, item, _, _ = inspect_row(samples, _first(samples, benchmark="vidhalluc", task="mcq"))
    assert '<ul class="hs-options"><li>A. ' in item  # choices kept in extra are listed


def test_samples_cmm_visual_audio_plays_two_files_together(samples: Catalog) -> None:
    t = samples.table
    rows = t.index[(t["benchmark"] == "cmm") & t["extra"].str.contains('"visual+audio"', regex=False)]
    _, media, *_ = inspect_row(samples, int(rows[0]))
    assert media.count('data-sync="hs-sync-0"') == 2 and "<audio" in media and "<video" in media


def test_an_empty_view_or_another_benchmark_clears_the_inspector(cat: Catalog) -> None:
    row = int((cat.table["benchmark"] == "cmm").to_numpy().nonzero()[0][0])
    same = navigate.clear_stale(cat, row, _filters(benchmark="cmm"))
    # the item is in the view: kept, only its place in the new view told again
    assert same[0] == gr.skip() and same[2:] == tuple(gr.skip() for _ in same[2:])
    assert same[1] == f"item 1 of {int((cat.table['benchmark'] == 'cmm').sum())} in view · row {row}"
    outside = navigate.clear_stale(cat, row, _filters(benchmark="cmm", models=["m2"]))
    assert outside[0] == gr.skip() and outside[1] == f"item outside the current view · row {row}"
    empty = navigate.clear_stale(cat, row, _filters(benchmark="cmm", search="zzz-nothing"))
    assert empty[0] is None and empty[1] == "No item in this view."
    other = navigate.clear_stale(cat, row, _filters(benchmark="avhbench"))
    assert other[0] is None and "Select a row" in other[3]


def test_an_item_id_opens_its_row_in_the_view(cat: Catalog) -> None:
    """A shared URL with a model filter showed another model's answer (the item's first row)."""
    ids = cat.table["item_id"].astype(str)
    shared = ids[ids.duplicated(keep=False)].iloc[0]
    rows = cat.rows_of(shared)
    last_model = str(cat.table.at[int(rows[-1]), "model"])
    found = navigate.find_item(cat, shared, _filters(models=[last_model]))
    assert found[0] == int(rows[-1]) and found[1].startswith("item 1 of")
    assert navigate.find_item(cat, shared, _filters())[0] == int(rows[0])


def _handler(demo: gr.Blocks, qualname: str) -> Any:
    """The app's registered handler with this qualified name (``_wire.<locals>.find``...)."""
    (fn,) = {d.fn for d in demo.fns.values() if getattr(d.fn, "__qualname__", "") == qualname}
    return fn


CDH_ITEM = "cdh-1-counterfactual"


def _openers(demo: gr.Blocks, cat: Catalog, filters: list[object]) -> dict[str, Any]:
    """Every handler that sets the inspected item, each opening a CDH-Bench item for a session."""
    find = _handler(demo, "_wire.<locals>.find")
    select = _handler(demo, "_wire.<locals>.on_select")
    queue = _handler(demo, "_wire_tab.<locals>.open_item")
    save_next = _handler(demo, "wire_review.<locals>.next_if_saved")
    (step,) = [d.fn for d in demo.fns.values() if d.api_name == "next_item"]
    row = _row(cat, CDH_ITEM)
    values = [row, *[""] * 9]  # the table row's values: ``row`` first (DISPLAY_COLUMNS)
    return {
        "jump": lambda r: find(r, None, CDH_ITEM, *filters),
        "table row": lambda r: select(
            gr.SelectData(None, {"index": [0, 0], "value": row, "row_value": values}), r, None, *filters
        ),
        "review queue": lambda r: queue(
            gr.SelectData(None, {"index": [0, 0], "value": CDH_ITEM, "row_value": [CDH_ITEM]}),
            r,
            None,
            *filters,
        ),
        "save and next": lambda r: save_next(r, None, True, row, 1, *filters),
        "next item": lambda r: step(r, None, row, 1, *filters),
    }


@pytest.mark.parametrize("opener", ["jump", "table row", "review queue", "save and next", "next item"])
def test_an_item_opened_while_a_filter_change_judges_the_old_one_is_not_cleared(
    cat: Catalog, monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    # The filter change's handler judges the item it was triggered with (a CMM row, stale under
    # cdh-bench); an item opened by another handler lands while it runs. Its answer must not clear it.
    demo = app.build_app(cat)
    clear = _handler(demo, "_wire.<locals>.clear_stale")
    request = gr.Request(session_hash="reviewer-1")
    stale = _row(cat, "cmm-1")
    filters = _filters(benchmark="cdh-bench")
    open_one = _openers(demo, cat, filters)[opener]
    alone = clear(request, None, stale, 0, *filters)
    assert alone[0] is None  # on its own, the stale item is cleared
    real = navigate.clear_stale
    opened: list[Any] = []

    def judged_while(session: gr.Request) -> Any:
        def judged(*args: Any) -> Any:
            opened.append(open_one(session))
            return real(*args)

        return judged

    monkeypatch.setattr(navigate, "clear_stale", judged_while(request))
    raced = clear(request, None, stale, 0, *filters)
    assert opened and opened[-1][0] is not None  # the other handler did open an item
    assert all(
        isinstance(out, dict) and out.get("__type__") == "update" and len(out) == 1 for out in raced
    ), raced  # every output skipped: the opened item stands
    # another session's opening does not hold this one's clearing back
    monkeypatch.setattr(navigate, "clear_stale", judged_while(gr.Request(session_hash="reviewer-2")))
    assert clear(request, None, stale, 0, *filters)[0] is None


def _put_back(cat: Catalog, session: str) -> tuple[gr.Blocks, gr.Request, int, tuple[Any, ...]]:
    """An app whose page ``session`` pressed Back to a CMM view with a row open: the app, the
    request, the row and the answer (its last value: the count of views put back)."""
    demo = app.build_app(cat)
    went_back = _handler(demo, "_wire.<locals>.went_back")
    request = gr.Request(session_hash=session)
    row = _row(cat, "cmm-1")
    out = went_back(request, None, f"?benchmark=cmm&item={cat.table.at[row, 'item_id']}")
    return demo, request, row, tuple(out)


def test_a_filter_change_made_before_a_view_was_put_back_leaves_that_view_s_row(cat: Catalog) -> None:
    # Back puts a CMM view and its row in place; a benchmark change the page sent before that view
    # landed (its answer comes after) judges with cdh-bench and would close the row just put back.
    demo, request, row, out = _put_back(cat, "reviewer-3")
    clear = _handler(demo, "_wire.<locals>.clear_stale")
    seen = out[-1]  # the count of views put back, which the page now holds
    assert seen >= 1 and isinstance(out[-8], int) and out[-8] == row
    stale = clear(request, None, row, seen - 1, *_filters(benchmark="cdh-bench"))
    assert all(isinstance(o, dict) and o.get("__type__") == "update" and len(o) == 1 for o in stale)
    # a change made on the view that was put back is judged as always
    assert clear(request, None, row, seen, *_filters(benchmark="cdh-bench"))[0] is None


def test_the_address_of_a_row_closed_before_a_view_was_put_back_is_not_written(cat: Catalog) -> None:
    # Seen under load: another benchmark closed the row; the address of that empty row was still
    # on its way when Back put the earlier view (with its row) in place. Landing after it, the empty
    # address rewrote that step of history without its row, and the row then came back as a new
    # step, so a second Back stayed on the same view.
    demo, request, row, out = _put_back(cat, "reviewer-4")
    address = _handler(demo, "_wire.<locals>.address")
    item, seen = str(cat.table.at[row, "item_id"]), out[-1]
    assert address(request, None, seen) == ""  # on the view the page holds: the row is closed
    assert address(request, row, seen).startswith(item)
    stale = address(request, None, seen - 1)  # asked before the view was put back
    assert isinstance(stale, dict) and stale.get("__type__") == "update" and len(stale) == 1, stale
    # another session's views put back do not hold this one's address back
    assert address(gr.Request(session_hash="reviewer-5"), None, 0) == ""


def test_item_changes_are_counted_per_session_and_forget_the_oldest() -> None:
    from components.browse.item_changes import ItemChanges

    changes = ItemChanges(keep=2)
    a, b, c = (gr.Request(session_hash=s) for s in "abc")
    changes.bump(a)
    changes.bump(a)
    changes.bump(b)
    assert (changes.count(a), changes.count(b), changes.count(c)) == (2, 1, 0)
    changes.bump(c)  # a third session: the least recently set one (a) is forgotten
    assert (changes.count(a), changes.count(b), changes.count(c)) == (0, 1, 1)


def test_an_item_opened_outside_the_queue_still_moves_what_follows_the_open_item(cat: Catalog) -> None:
    """Open and step answer outside the queue, whose answers fire no gr.State change event.

    A queued step after each bumps a count; everything that follows ``current``'s change also
    follows that count's, with the same handler and inputs. Without the bump (or the second
    listener) the review panel and the address stay on the last item: the browser tests show it.
    """
    demo = app.build_app(cat)
    fns = list(demo.fns.values())
    select = [d for d in fns if getattr(d.fn, "__qualname__", "") == "_wire.<locals>.on_select"]
    steps = [d for d in fns if d.api_name in ("next_item", "previous_item")]
    assert len(select) == 1 and len(steps) == 2
    state = next(b for b in (select[0].outputs or []) if isinstance(b, gr.State))  # ``current``
    bumps = []
    for fast in (*select, *steps):
        assert fast.queue is False
        (after,) = [d for d in fns if d.trigger_after == fast._id]
        assert after.queue is not False and len(after.outputs) == 1 and isinstance(after.outputs[0], gr.State)
        bumps.append(after.outputs[0])
    moved = bumps[0]
    assert all(b is moved for b in bumps) and moved is not state

    def listeners(block: gr.State) -> list[tuple[Any, list[int]]]:
        return [
            (d.fn, [i._id for i in d.inputs])
            for d in fns
            if any(t[0] == block._id and t[1] == "change" for t in d.targets)
        ]

    on_current = listeners(state)
    assert len(on_current) >= 3  # the address, the review panel, the adjudication target
    assert sorted(map(repr, on_current)) == sorted(map(repr, listeners(moved)))


def test_a_switch_and_a_filter_answer_outside_the_queue_and_set_no_state(cat: Catalog) -> None:
    """Safe outside the queue only while no output is a gr.State (its change event would be lost)."""
    demo = app.build_app(cat)
    names = {"_wire.<locals>.switch", "_wire.<locals>.refresh"}
    fast = [d for d in demo.fns.values() if getattr(d.fn, "__qualname__", "") in names and d.queue is False]
    assert {d.fn.__qualname__ for d in fast} == names
    assert len(fast) == 7  # the benchmark switch and the six filter widgets
    assert not [b for d in fast for b in d.outputs if isinstance(b, gr.State)]
