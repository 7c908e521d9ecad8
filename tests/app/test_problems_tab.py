"""The Data problems tab: follows the benchmark, opens a finding's item, hides server paths."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gradio as gr
import pytest
from app_data import GRADIO_LOOP_WARNINGS, catalog, close_gradio_loop

from analysis.benchmarks.base import Finding
from analysis.load.catalog import Catalog
from components import problems
from components.browse.navigate import open_in_items

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]


@pytest.fixture
def cat(tmp_path: Path) -> Catalog:
    base = catalog(tmp_path)
    root = base.media_roots["cmm"][0]
    missing = Finding(
        "missing-media",
        "cmm-1",
        f"{root / 'reorg_raw_files' / 'gone.mp4'} does not exist",
        "error",
        ("cmm-1", "cmm-2"),
    )
    return dataclasses.replace(base, findings={**base.findings, "cmm": [missing]})


def test_the_tab_shows_the_selected_benchmarks_findings_only(cat: Catalog) -> None:
    line, frame, item, button = problems.show(cat, "cmm", blind=False)
    assert list(frame["benchmark"]) == ["cmm"] and list(frame["check"]) == ["missing-media"]
    assert line.startswith("1 audit finding(s) in cmm")
    assert [v for _, v in item["choices"]] == ["cmm-1", "cmm-2"] and item["value"] == "cmm-1"
    assert button["interactive"] is True
    line, frame, item, button = problems.show(cat, "cdh-bench", blind=False)
    assert frame.empty and line == "No audit finding in cdh-bench."
    assert item["choices"] == [] and button["interactive"] is False
    _, frame, _, _ = problems.show(cat, None, blind=False)
    assert sorted(frame["benchmark"]) == ["avhbench", "cmm"]


def test_paths_are_shown_relative_to_the_media_roots(cat: Catalog, tmp_path: Path) -> None:
    _, frame, _, _ = problems.show(cat, "cmm", blind=False)
    detail = frame.at[0, "detail"]
    assert detail == "reorg_raw_files/gone.mp4 does not exist"
    assert str(tmp_path) not in frame.to_csv()


def test_relative_cuts_the_longest_root_and_names_a_bare_root() -> None:
    roots = [Path("/srv/media"), Path("/srv/media/cmm")]
    assert problems.relative("no /srv/media/cmm/a.mp4 here", roots) == "no a.mp4 here"
    assert problems.relative("nothing under /srv/media", roots) == "nothing under the media root"
    assert problems.relative("/elsewhere/x.mp4", roots) == "/elsewhere/x.mp4"


def test_a_blind_reviewer_gets_no_finding_and_no_item_to_open(cat: Catalog) -> None:
    line, frame, item, button = problems.show(cat, "cmm", blind=True)
    assert line == problems.BLIND_LINE and frame.empty
    assert item["choices"] == [] and button["interactive"] is False


def test_opening_an_item_fills_the_id_box_and_switches_to_items() -> None:
    box, tabs = open_in_items("cmm-2")
    assert box == "cmm-2" and tabs.selected == "items-tab"
    with pytest.raises(gr.Error):
        open_in_items(None)


def test_the_app_wires_the_tab_to_the_selector_and_the_opener_to_the_inspector(cat: Catalog) -> None:
    import app

    config = app.build_app(cat).get_config_file()
    name = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    deps = config["dependencies"]

    def named(ids: list[int]) -> list[str | None]:
        return [name.get(i) for i in ids]

    follows = [
        d
        for d in deps
        if [(name.get(t), e) for t, e in d["targets"]] == [("f-benchmark", "change")]
        and "findings" in named(d["outputs"])
    ]
    assert len(follows) == 1 and named(follows[0]["inputs"]) == ["f-benchmark"]
    # while the tab is hidden the change sends nothing: opening it catches up (components/shown_tabs.py)
    opening = [d for d in deps if "findings" in named(d["outputs"]) and d["targets"][0][1] == "select"]
    assert len(opening) == 1  # opening the tab catches up
    (opener,) = [i for i, d in enumerate(deps) if named([t for t, _ in d["targets"]]) == ["open-finding"]]
    assert named(deps[opener]["outputs"])[0] == "jump"
    (then,) = [d for d in deps if d.get("trigger_after") == opener]
    assert then["trigger_only_on_success"] and named(then["inputs"])[0] == "jump"
    assert "item" in named(then["outputs"])  # the inspector shows the item


def test_with_a_store_each_finding_says_where_the_labels_leave_it(cat: Catalog, tmp_path: Path) -> None:
    """As ``audit --db`` says it (analysis/review/findings.py): a column, and a count in the line."""
    from analysis.benchmarks.base import Fix
    from analysis.store import ItemRef, identity_from, open_store, relabel

    conflict = Finding(
        "conflicting-duplicate",
        "00191",
        "two labels",
        "error",
        ("avh-Audio",),
        (Fix("avh-Audio", "flag", "ambiguous"),),
    )
    cat = dataclasses.replace(cat, findings={**cat.findings, "avhbench": [conflict]})
    store = open_store(tmp_path / "labels.db")
    try:
        line, frame, _, _ = problems.show(cat, None, blind=False, store=store)
        assert list(frame.columns) == problems.columns(True) and set(frame[problems.REVIEWED]) == {""}
        assert "by the team's labels" not in line
        alice = identity_from("alice")
        for fix in conflict.fix:  # the suggested flags, on every item: fixed
            relabel(store, ItemRef("avhbench", fix.item_id), fix.field, fix.value, alice, "both labels heard")
        relabel(store, ItemRef("cmm", "cmm-1", "", "yes"), "gold", "no", alice, "the clip is silent")
        line, frame, _, _ = problems.show(cat, None, blind=False, store=store)
        by_check = dict(zip(frame["check"], frame[problems.REVIEWED], strict=True))
        assert by_check[conflict.check] == "fixed" and by_check["missing-media"] == "corrected"
        assert "(1 fixed, 1 corrected by the team's labels)" in line
        line, frame, _, _ = problems.show(cat, "cmm", blind=True, store=store)  # blind: still nothing
        assert line == problems.BLIND_LINE and frame.empty
        # a visitor sees the findings, not the team's flags and verdicts their states tell of
        line, frame, _, _ = problems.show(cat, None, blind=False, store=store, team=False)
        assert len(frame) == 2 and set(frame[problems.REVIEWED]) == {""} and "team's labels" not in line
    finally:
        store.close()
