"""``audit --db``: each finding says whether the team's labels fixed, corrected or confirmed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST
from analysis.store import ItemRef, identity_from, open_store, relabel
from analysis.store.values import SUSPECT_FIELD

GOLD = SAMPLE_MANIFEST.parent / "cdh-bench" / "benchmark.jsonl"


def _audit(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, dict[str, object]]:
    assert main(["audit", "cdh-bench", str(GOLD), "--json", *extra]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    return {str(f["where"]).split(":")[0]: f for f in findings}


def test_each_finding_says_where_the_labels_leave_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not GOLD.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    plain = _audit(capsys)
    assert set(plain) == {"Pair 11", "Pair 8", "Pair 6"}  # the samples' three planted problems
    assert all("reviewed" not in f for f in plain.values())  # without --db: the keys as before
    db = tmp_path / "labels.db"
    open_store(db).close()
    assert {k: f["reviewed"] for k, f in _audit(capsys, "--db", str(db)).items()} == dict.fromkeys(plain)

    # Pair 11: its suggested gold swap imported, as `--fixes` writes it
    fixes = tmp_path / "fixes.jsonl"
    assert main(["audit", "cdh-bench", str(GOLD), "--fixes", str(fixes)]) == 0
    rows = [json.loads(line) for line in fixes.read_text().splitlines()]
    swap = tmp_path / "swap.jsonl"
    swap.write_text("".join(json.dumps(r) + "\n" for r in rows if r["reason"].startswith("audit inverted")))
    assert main(["import", "cdh-bench", str(swap), "--db", str(db), "--reviewer", "alice"]) == 0
    capsys.readouterr()
    store = open_store(db)
    try:
        alice = identity_from("alice")
        # Pair 8: one side's gold corrected to another letter than any fix (it suggests a flag)
        eight = plain["Pair 8"]["item_ids"]
        assert isinstance(eight, list)
        relabel(
            store, ItemRef("cdh-bench", str(eight[0]), "mc", "A"), "gold", "B", alice, "the image shows B"
        )
        # Pair 6: a reviewer judged its gold right, and flagged one of its two items only
        six = plain["Pair 6"]["item_ids"]
        assert isinstance(six, list) and len(six) == 2
        relabel(store, ItemRef("cdh-bench", str(six[0]), "mc"), SUSPECT_FIELD, "right", alice, "C is right")
        relabel(store, ItemRef("cdh-bench", str(six[0]), "mc"), "flag", "wrong-options", alice, "twice brown")
    finally:
        store.close()
    states = {k: f["reviewed"] for k, f in _audit(capsys, "--db", str(db)).items()}
    assert states == {"Pair 11": "fixed", "Pair 8": "corrected", "Pair 6": "confirmed"}

    # the readable lines say it, and --fixes leaves out the rows already in force
    assert main(["audit", "cdh-bench", str(GOLD), "--db", str(db), "--fixes", str(fixes)]) == 0
    out = capsys.readouterr().out
    assert "Pair 11" in out and out.count("[fixed]") == 1 and out.count("[corrected]") == 1
    left = [json.loads(line) for line in fixes.read_text().splitlines()]
    assert left == [r for r in rows if not r["reason"].startswith("audit inverted")] and left


def test_a_viewer_who_does_not_see_the_team_gets_blank_states(tmp_path: Path) -> None:
    from analysis.benchmarks.base import Finding, Fix
    from analysis.review.findings import seen_states

    finding = Finding("x", "a", "d", "error", ("cdh-a",), (Fix("cdh-a", "flag", "ambiguous"),))
    store = open_store(tmp_path / "labels.db")
    try:
        relabel(
            store, ItemRef("cdh-bench", "cdh-a", "qa"), "flag", "ambiguous", identity_from("alice"), "both"
        )
        assert seen_states(store, "cdh-bench", [finding], sees_team=True) == ["fixed"]
        assert seen_states(store, "cdh-bench", [finding], sees_team=False) == [None]  # a visitor
        assert seen_states(None, "cdh-bench", [finding], sees_team=True) == [None]  # no store
    finally:
        store.close()


def test_a_store_that_does_not_exist_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not GOLD.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    assert main(["audit", "cdh-bench", str(GOLD), "--db", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert "no such database file" in err and len(err.strip().splitlines()) == 1


def test_the_flagged_queue_lists_open_findings_first_and_says_each_items_state() -> None:
    from analysis.benchmarks.base import Finding
    from analysis.review.findings import flagged_queue

    findings = [
        Finding("inverted-polarity", "Pair 1", "swap", "warning", ("a", "b")),
        Finding("duplicate-options", "Pair 2", "twice", "error", ("c",)),
        Finding("same-gold-both-sides", "Pair 3", "A twice", "error", ("d", "b")),
    ]
    queue = flagged_queue(findings, ["fixed", None, "confirmed"])
    # b is named by a fixed finding and a confirmed one: as open as the more open of them
    assert queue == [
        ("c", "named by an audit finding: duplicate-options"),
        ("b", "named by an audit finding: inverted-polarity, same-gold-both-sides · confirmed"),
        ("d", "named by an audit finding: same-gold-both-sides · confirmed"),
        ("a", "named by an audit finding: inverted-polarity · fixed"),
    ]
    assert flagged_queue(findings, [None, None, None])[0] == (
        "a",
        "named by an audit finding: inverted-polarity",
    )


def test_the_review_tabs_flagged_queue_puts_a_fixed_finding_last(tmp_path: Path) -> None:
    if not GOLD.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    from analysis.load.catalog import load_manifest
    from components.review.context import ReviewContext
    from components.review.extra import QUEUES, queue_frame

    catalog = load_manifest(SAMPLE_MANIFEST)
    store = open_store(tmp_path / "labels.db")
    try:
        ctx = ReviewContext(catalog, store, ("alice",))
        alice = identity_from("alice")
        before = queue_frame(ctx, QUEUES[0], "cdh-bench", alice)
        pair_11 = next(f for f in catalog.findings["cdh-bench"] if f.where.startswith("Pair 11"))
        assert set(before["item_id"][:2]) == set(pair_11.item_ids)  # the first finding's items first
        for fix in pair_11.fix:
            relabel(store, ItemRef("cdh-bench", fix.item_id, "qa"), fix.field, fix.value, alice, "swapped")
        after = queue_frame(ctx, QUEUES[0], "cdh-bench", alice)
        assert sorted(after["item_id"]) == sorted(before["item_id"])  # none lost, none doubled
        assert set(after["item_id"][-2:]) == set(pair_11.item_ids)
        assert all(d.endswith("· fixed") for d in after["detail"][-2:])
        assert not any("fixed" in d for d in after["detail"][:-2])
        # a visitor is offered the queue, not the team's labels: the findings' order, no state
        seen = queue_frame(ctx, QUEUES[0], "cdh-bench", None)
        assert list(seen["item_id"]) == list(before["item_id"]) and list(seen["detail"]) == list(
            before["detail"]
        )
    finally:
        store.close()
