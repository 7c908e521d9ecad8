"""The Where it fails tab's handlers: what a reviewer sees, what a blind one does not, bad input."""

from __future__ import annotations

import inspect
from typing import Any

import gradio as gr
import pandas as pd
import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query.flips import paired_rows, verdict_rows
from components import failures

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


def _value(update: Any) -> Any:
    return update.get("value") if isinstance(update, dict) else update


def test_a_reviewer_sees_the_slices_the_flip_table_and_the_differences(cat: Catalog) -> None:
    out = failures.show(cat, "cdh-bench", "commonsense-prior", "yes-biased", blind=False)
    model, other, line, slices, flips, diffs, losses, group = out
    assert (_value(model), _value(other)) == ("commonsense-prior", "yes-biased")
    assert "commonsense-prior" in line and "tested" in line
    assert "side = counterfactual" in list(slices["slice"])
    hand = paired_rows(cat.table[cat.table["benchmark"] == "cdh-bench"], "commonsense-prior", "yes-biased")
    assert int(flips["items"].sum()) == len(hand)
    assert list(diffs.columns[:4]) == ["board", "metric", "commonsense-prior", "yes-biased"]
    assert "-0.000" not in diffs.to_string()  # the boards' format: no negative zero
    assert "loses to **yes-biased**" in losses
    assert _value(group) == "slice\x1fside = counterfactual"
    assert "corrected" not in line  # no corrections: nothing to tell apart


def test_the_tab_counts_against_the_corrected_gold_the_items_tab_shows(cat: Catalog, tmp_path: Any) -> None:
    # Seen in a walkthrough: a flip cell's count (official gold) opened items shown with their
    # corrected gold and other verdicts. The tab now counts what the Items tab shows.
    import app
    from analysis.review.corrected import corrected_view
    from analysis.store import Identity, open_store, relabel
    from components.review.context import ReviewContext

    store = open_store(tmp_path / "labels.db")
    ctx = ReviewContext(cat, store, ("alice",))
    assert app._corrected_rows(ctx, "cmm") is None  # nothing corrected: the catalog's own rows
    rows = cat.table[cat.table["benchmark"] == "cmm"]
    pairs = paired_rows(rows, "balanced", "yes-biased")
    both_right = pairs[pairs["cell"] == "both right"].iloc[0]  # correcting its gold: both wrong
    row = rows[rows["item_id"] == both_right["item_id"]].iloc[0]
    flipped = "yes" if str(row["gold"]).lower() == "no" else "no"
    relabel(store, row, "gold", flipped, Identity("alice"), "heard")
    fixed = app._corrected_rows(ctx, "cmm")
    assert fixed is not None and app._corrected_rows(ctx, "cdh-bench") is None
    out = failures.show(cat, "cmm", "balanced", "yes-biased", blind=False, corrected=fixed)
    line, flips = out[2], out[4].set_index("cell")["items"]
    assert "Counted against the **corrected** gold, as the Items tab shows it: 1 item(s) of cmm" in line
    official = failures.show(cat, "cmm", "balanced", "yes-biased", blind=False)[4].set_index("cell")["items"]
    assert flips["both right"] == official["both right"] - 1
    assert flips["both wrong"] == official["both wrong"] + 1
    expected = paired_rows(corrected_view(rows, store), "balanced", "yes-biased")["cell"].value_counts()
    named = {k.replace("A", "balanced").replace("B", "yes-biased"): v for k, v in expected.items()}
    assert flips[flips > 0].to_dict() == named
    items, _ = failures.group_items(
        cat, "cmm", "balanced", "yes-biased", "cell\x1fboth wrong", blind=False, corrected=fixed
    )
    assert both_right["item_id"] in [c if isinstance(c, str) else c[1] for c in items["choices"]]
    # set back to the official gold (an adjudication, say): no correction any more
    relabel(store, row, "gold", str(row["gold"]).lower(), Identity("bob"), "heard it again")
    again = app._corrected_rows(ctx, "cmm")
    assert (
        "corrected"
        not in failures.show(cat, "cmm", "balanced", "yes-biased", blind=False, corrected=again)[2]
    )
    store.close()


def test_a_blind_reviewer_gets_one_line_and_no_numbers(cat: Catalog) -> None:
    out = failures.show(cat, "cdh-bench", "commonsense-prior", "yes-biased", blind=True)
    assert out[2] == failures.BLIND_LINE
    assert all(isinstance(f, pd.DataFrame) and f.empty for f in out[3:6])
    assert out[6] == "" and out[0]["choices"] == [] and out[1]["choices"] == []
    items, button = failures.group_items(
        cat, "cdh-bench", "commonsense-prior", "yes-biased", "slice\x1fside = counterfactual", blind=True
    )
    assert items["choices"] == [] and button["interactive"] is False


def test_a_slice_lists_its_items_wrong_first_and_a_cell_its_items(cat: Catalog) -> None:
    table = cat.table
    items, button = failures.group_items(
        cat, "cdh-bench", "commonsense-prior", None, "slice\x1fside = counterfactual", blind=False
    )
    ids = [c if isinstance(c, str) else c[1] for c in items["choices"]]
    rows = table[(table["benchmark"] == "cdh-bench") & (table["model"] == "commonsense-prior")]
    cf = rows[rows["side"] == "counterfactual"]
    assert set(ids) == set(cf["item_id"].astype(str)) and button["interactive"] is True
    first = cf[cf["item_id"].astype(str) == ids[0]]
    assert not bool(first["correct"].iloc[0])
    items, _ = failures.group_items(
        cat, "cdh-bench", "commonsense-prior", "yes-biased", "cell\x1fonly A wrong", blind=False
    )
    pairs = paired_rows(table[table["benchmark"] == "cdh-bench"], "commonsense-prior", "yes-biased")
    expected = set(pairs.loc[pairs["cell"] == "only A wrong", "item_id"])
    assert {c if isinstance(c, str) else c[1] for c in items["choices"]} == expected


@pytest.mark.parametrize(
    "group", ["<img src=x onerror=alert(1)>", "slice\x1fnot = a column", "cell\x1fnope", None]
)
def test_a_hostile_or_unknown_group_lists_nothing(cat: Catalog, group: str | None) -> None:
    items, button = failures.group_items(cat, "cmm", "balanced", "yes-biased", group, blind=False)
    assert items["choices"] == [] and button["interactive"] is False


def test_an_unknown_model_or_benchmark_falls_back_without_an_error(cat: Catalog) -> None:
    out = failures.show(cat, "cmm", "nobody", "nobody either", blind=False)
    assert _value(out[0]) == "balanced" and _value(out[1]) != "balanced"
    assert (
        failures.show(cat, "no-such-benchmark", None, None, blind=False)[2]
        == "Pick a benchmark with model answers."
    )


def test_a_benchmark_change_computes_nothing_while_the_tab_is_closed(cat: Catalog) -> None:
    """The tab's figures cost a slice search and a bootstrap: none for a tab nobody opened.

    Not for a session that has opened no tab either (the tab is not filled at load), unlike the
    tabs filled at load, which follow for such a session.
    """
    import warnings

    import gradio as gr

    import app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        demo = app.build_app(cat)
    follows = [
        f.fn
        for f in demo.fns.values()
        if getattr(f.fn, "__qualname__", "") == "ShownTabs.follow.<locals>.followed"
    ]
    mine = [fn for fn in follows if _closure(fn)["label"] == failures.TAB]
    assert len(mine) == 1
    (follow,) = mine
    memory = _closure(follow)["self"]
    request = gr.Request(username=None, session_hash="s1")
    closed = follow(request, None, "vidhalluc", None, None, None)
    assert all(isinstance(u, dict) and u.get("__type__") == "update" and len(u) == 1 for u in closed)
    memory.opened(request, failures.TAB)
    line = follow(request, None, "cmm", None, None, None)[2]
    assert "on cmm" in line
    memory.opened(request, "Items")
    assert all(u.get("__type__") == "update" for u in follow(request, None, "vidhalluc", None, None, None))


def test_an_opening_counts_again_only_when_the_corrected_gold_moved(cat: Catalog, tmp_path: Any) -> None:
    """Another reviewer's save moves the gold the tab counts: the next opening sees it, with the
    models on screen; an opening with nothing moved sends nothing (a slice search and a bootstrap)."""
    import warnings

    import gradio as gr

    import app
    from analysis.store import Identity, open_store, relabel
    from components.review.context import ReviewContext

    store = open_store(tmp_path / "labels.db")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        demo = app.build_app(cat, ReviewContext(cat, store, ("alice", "bob")))
    (follow,) = [
        f.fn
        for f in demo.fns.values()
        if getattr(f.fn, "__qualname__", "") == "ShownTabs.follow.<locals>.followed"
        and _closure(f.fn)["label"] == failures.TAB
    ]
    compute = _closure(follow)["compute"]
    alice = gr.Request(username="alice", session_hash="a1")
    first = compute(alice, None, "cmm", None, None, None)
    counted = first[-1]
    assert counted[0] == "cmm" and "corrected" not in first[2]
    # opened again with nothing moved: nothing sent, whatever the pickers say
    assert all(u == gr.skip() for u in compute(alice, None, "cmm", "yes-biased", "balanced", counted))
    row = cat.table[cat.table["benchmark"] == "cmm"].iloc[0]
    flipped = "yes" if str(row["gold"]).lower() == "no" else "no"
    relabel(store, row, "gold", flipped, Identity("bob"), "heard")  # bob's save, in his own session
    again = compute(alice, None, "cmm", "yes-biased", "balanced", counted)
    assert again[-1][0] == "cmm" and again[-1][1] != counted[1]
    assert again[0]["value"] == "yes-biased" and again[1]["value"] == "balanced"  # the models shown
    assert "1 item(s) of cmm have one" in again[2]
    # another benchmark: its own default models, counted afresh
    other = compute(alice, None, "cdh-bench", "yes-biased", "balanced", again[-1])
    assert other[-1][0] == "cdh-bench" and "on cdh-bench" in other[2]
    store.close()


def _closure(fn: Any) -> dict[str, Any]:
    """The variables a nested handler closes over, by name (under Gradio's wrapper)."""
    fn = inspect.unwrap(fn)
    return dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ()), strict=True))


def test_the_slices_carry_the_benchmarks_own_metric_by_its_scorer(cat: Catalog) -> None:
    from analysis.benchmarks import get

    rows = cat.table[cat.table["benchmark"] == "cdh-bench"]
    slices = failures.show(cat, "cdh-bench", "yes-biased", None, blind=False)[3]
    assert list(slices.columns) == ["slice", "n", "accuracy", "rest", "CFAD", "CFAD rest", "q"]
    mine = rows[rows["model"].astype(str) == "yes-biased"]
    by_slice = slices.set_index("slice")
    # gold = no: CFAD over the pooled tasks, by hand from the scorer's per-task numbers
    tasks = get("cdh-bench").score(mine[mine["gold"].str.lower() == "no"])["groups"]["task"]
    n_cf = sum(t["n_cf"] for t in tasks.values())
    n_cs = sum(t["n_cs"] for t in tasks.values())
    cf = sum(t["cf_acc"] * t["n_cf"] for t in tasks.values() if t["n_cf"]) / n_cf
    cs = sum(t["cs_acc"] * t["n_cs"] for t in tasks.values() if t["n_cs"]) / n_cs
    assert by_slice.loc["gold = no", "CFAD"] == f"{cs - cf:.3f}"
    # one side only: CFAD is undefined there, and says so
    assert by_slice.loc["side = counterfactual", "CFAD"] == "–"
    cmm = failures.show(cat, "cmm", "yes-biased", None, blind=False)[3].set_index("slice")
    cmm_rows = cat.table[(cat.table["benchmark"] == "cmm") & (cat.table["model"].astype(str) == "yes-biased")]
    hr = get("cmm").score(cmm_rows[cmm_rows["gold"].str.lower() == "no"])["overall"]["hr"]
    assert cmm.loc["gold = no", "HR"] == f"{hr:.3f}" and cmm.loc["gold = no", "HR rest"] == "–"
    # accuracy is AVHBench's headline: no extra columns
    avh = failures.show(cat, "avhbench", None, None, blind=False)[3]
    assert list(avh.columns) == failures.SLICE_COLUMNS


def test_a_clicked_slice_becomes_the_items_tabs_filter(cat: Catalog) -> None:
    from analysis.query import ALL, filter_rows
    from components.browse.page import filters_from

    out = failures.slice_in_items("cdh-bench", "yes-biased", ["side = counterfactual", 24], blind=False)
    models, task, category, wrong, dependent, flagged, search, cut, flip, _tab = out
    assert _value(models) == ["yes-biased"] and (task, category, cut) == (ALL, ALL, "side = counterfactual")
    assert not (wrong or dependent or flagged or search or flip)
    values = ("cdh-bench", ["yes-biased"], ALL, ALL, False, False, False, "", cut, flip)
    rows = filter_rows(cat.table, filters_from(*values))
    picked = cat.table.iloc[rows]
    # the slice's n counts the scored items; the Items tab also lists the unscored ones in it
    assert len(verdict_rows(picked)) == 24 and set(picked["side"]) == {"counterfactual"}
    assert set(picked["model"].astype(str)) == {"yes-biased"}
    # a blind reviewer's click changes nothing
    blind = failures.slice_in_items("cdh-bench", "yes-biased", ["side = counterfactual"], blind=True)
    assert len(blind) == len(out) and all(u == gr.skip() for u in blind)


def test_a_clicked_flip_cell_becomes_the_items_tabs_filter(cat: Catalog) -> None:
    from analysis.query import ALL, filter_rows
    from components.browse.page import filters_from

    rows = cat.table[cat.table["benchmark"] == "cdh-bench"]
    hand = paired_rows(rows, "commonsense-prior", "yes-biased")
    for index, cell in enumerate(failures.CELLS):
        out = failures.cell_in_items("cdh-bench", "commonsense-prior", "yes-biased", index, blind=False)
        models, *_, cut, flip, _tab = out
        assert _value(models) == ["commonsense-prior", "yes-biased"] and cut == ""
        assert flip == f"{cell} · A = commonsense-prior · B = yes-biased"
        values = ("cdh-bench", _value(models), ALL, ALL, False, False, False, "", cut, flip)
        picked = cat.table.iloc[filter_rows(cat.table, filters_from(*values))]
        # each item of the cell, by hand, with both models' answers to it
        want = set(hand.loc[hand["cell"] == cell, "item_id"])
        assert set(picked["item_id"]) == want, cell
        assert len(verdict_rows(picked)) == 2 * len(want), cell
    assert all(u == gr.skip() for u in failures.cell_in_items("cdh-bench", "a", "b", 9, blind=False))
    assert all(u == gr.skip() for u in failures.cell_in_items("cdh-bench", "a", "b", 0, blind=True))
