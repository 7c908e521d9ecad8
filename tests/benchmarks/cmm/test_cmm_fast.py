"""``score cmm`` read by DuckDB without the item table: the same report as ``load`` then ``score``.

The fast path may decline (None) but must never give another number: every test compares it with
the validating path on the same file, and checks it did not simply decline everything.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.benchmarks import REGISTRY, cmm
from analysis.benchmarks.cmm import early, fast
from analysis.cli import main as cli
from analysis.errors import InputError

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "cmm" / "predictions"
CASES = Path(__file__).resolve().parents[2] / "cases" / "cmm.jsonl"


def _row(i: int, answer: str, pred: Any, **more: Any) -> dict[str, Any]:
    return {
        "category": "inter-modality_spurious_correlation",
        "sub_category": ["visual-language", "audio-language", "overrely_visual_ignore_audio"][i % 3],
        "modality": "visual",
        "granularity": ["object-level", "event-level", "scene-level"][i % 3],
        "correlation_type": "global_frequency",
        "video_path": f"./raw_files/v/{i // 2}.mp4",
        "audio_path": None,
        "question": f"Did you see thing {i}?",
        "answer": answer,
        "pred": pred,
        **more,
    }


def _write(path: Path, rows: list[dict[str, Any]], *, ensure_ascii: bool = True) -> Path:
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=ensure_ascii) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def _both(path: Path, parser: str | None = None) -> tuple[Any, Any]:
    return cmm.score_file(path, parser=parser), cmm.score(cmm.load(path), parser=parser)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.jsonl")), ids=lambda p: p.name)
@pytest.mark.parametrize("parser", cmm.PARSERS)
def test_sample_files_score_the_same(path: Path, parser: str) -> None:
    fast, slow = _both(path, parser)
    assert fast is not None and fast == slow


def test_every_case_file_answer_scores_the_same(tmp_path: Path) -> None:
    # The case file's raw answers and golds, as rows of one file (official parser cases only).
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [_row(i, c["gold"], c["raw"]) for i, c in enumerate(cases) if isinstance(c.get("raw"), str)]
    path = _write(tmp_path / "cases.jsonl", rows, ensure_ascii=False)
    for parser in cmm.PARSERS:
        fast, slow = _both(path, parser)
        assert fast is not None and fast == slow


_TEXT = st.text(
    alphabet=st.sampled_from([*'yesnoYESNO ,.!/\t\n\r\x0b\x1c"\\:{}İıΣσςß\u00a0\u3000好不', "\x00", "é"]),
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    preds=st.lists(_TEXT, min_size=1, max_size=30),
    golds=st.lists(st.sampled_from(["yes", "no", "Yes ", "NO", "maybe"]), min_size=1, max_size=30),
    ascii_only=st.booleans(),
)
def test_random_answers_score_the_same(
    tmp_path: Path, preds: list[str], golds: list[str], ascii_only: bool
) -> None:
    rows = [_row(i, golds[i % len(golds)], p) for i, p in enumerate(preds)]
    path = _write(tmp_path / "random.jsonl", rows, ensure_ascii=ascii_only)
    for parser in cmm.PARSERS:
        fast, slow = _both(path, parser)
        assert fast is None or fast == slow


def test_a_large_random_file_takes_the_fast_path(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = ["Yes", "no", " yes.", "No, none", "Nothing", "Sure, yes", "yes/no", "I know", "noyes", "É yes"]
    rows = [
        _row(i, rng.choice(["yes", "no"]), rng.choice(words) + rng.choice(["", " x", "\t", "İ"]))
        for i in range(5000)
    ]
    path = _write(tmp_path / "big.jsonl", rows, ensure_ascii=False)
    fast, slow = _both(path)
    assert fast is not None and fast == slow and fast["n_scored"] == 5000


@pytest.mark.parametrize("late_at", [3, early._PREFIX_ROWS + 20], ids=["in the first records", "past them"])
@pytest.mark.parametrize("direction", ["ASC", "DESC"])
def test_sub_categories_keep_the_order_of_their_first_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, late_at: int, direction: str
) -> None:
    # The official tables list sub-categories as first seen (not sorted): the fast path reads that
    # order from the first records, and reads the file again when one first shows up after them.
    # DuckDB's groups come in no set order: here sorted either way, so no order passes by luck.
    grouped = early._query
    monkeypatch.setattr(
        early, "_query", lambda keys: f"SELECT * FROM ({grouped(keys)}) ORDER BY sub {direction}"
    )
    subs = ["visual-language", "audio-language", "overrely_visual_ignore_audio", "a"]
    n = early._PREFIX_ROWS + 40
    rows = [_row(i, "yes" if i % 2 else "no", "yes", sub_category=subs[i % 2]) for i in range(n)]
    rows[late_at]["sub_category"] = subs[2]
    rows[late_at + 5]["sub_category"] = subs[3]
    path = _write(tmp_path / "late.jsonl", rows)
    quick, slow = _both(path)
    assert quick is not None and json.dumps(quick) == json.dumps(slow)
    assert list(quick["groups"]["sub_category"]) == subs


_HEAD = '{"sub_category": "a", "granularity": "object-level", "question": "q", '


@pytest.mark.parametrize(
    "line",
    [
        _HEAD + '"answer": 1, "pred": "yes"}',
        _HEAD + '"answer": "yes", "pred": ["yes"]}',
        _HEAD + '"answer": "yes", "pred": "yes", "pred": "no"}',
        _HEAD + '"answer": "yes", "pred": "yes", "\\u0070red": "no"}',
        _HEAD + '"answer": "yes"}',
        '{"sub_category": "a", "granularity": "object-level", "answer": "yes", "pred": "yes"}',
        _HEAD + '"answer": "yes", "pred": null}',
        _HEAD + '"answer": "yes", "pred": "yes"}{}',
        _HEAD + '"answer": "yes", "pred": "yes"',
        _HEAD + '"answer": "yes",\n "pred": "yes"}',
        '["not", "an", "object"]',
        # keys the score does not read: a repeated one makes the record ambiguous to the
        # validating reader; a value that is not text would be cast by DuckDB
        _HEAD + '"answer": "yes", "pred": "yes", "run": "a", "run": "b"}',
        _HEAD + '"answer": "yes", "pred": "yes", "run": {"id": 1, "id": 2}}',
        "5",
        "null",
    ],
)
def test_lines_the_fast_reader_cannot_vouch_for_are_declined(tmp_path: Path, line: str) -> None:
    good = json.dumps(_row(0, "yes", "yes"))
    path = tmp_path / "odd.jsonl"
    path.write_text(good + "\n" + line + "\n", encoding="utf-8")
    assert cmm.score_file(path) is None


def test_json_list_and_blank_lines_score_the_same(tmp_path: Path) -> None:
    rows = [_row(i, "yes" if i % 2 else "no", "Yes" if i % 3 else "no", latency_ms=i) for i in range(20)]
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(rows), encoding="utf-8")
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n \t\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    # both readers skip blank lines, and a number in a field the template lacks is read alike
    assert cmm.score_file(blank) is not None
    for path in (listed, blank):
        report = cli.run_score(cli.build_parser().parse_args(["score", "cmm", str(path)]))
        assert report == cmm.score(cmm.load(path))


def test_bad_input_still_names_line_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(_row(0, "yes", "yes")), json.dumps(_row(1, "no", 5))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli.main(["score", "cmm", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "pred" in err and len(err.splitlines()) == 1


def test_the_command_line_reads_early_and_reports_what_the_slow_path_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `halluscope score cmm` starts early.read (the module loaded by its path) before it imports
    # the package, hands its result to score_file, and skips the check of the file's kind: the
    # report must still be the one load + score give, and the early read must be the one used.
    rng = random.Random(3)
    answers = ["Yes.", "no", "maybe", "YES"]
    rows = [_row(i, rng.choice(["yes", "no"]), rng.choice(answers)) for i in range(300)]
    path = _write(tmp_path / "run.jsonl", rows)
    module = REGISTRY.early("cmm")
    assert module is not None and module is not early  # loaded alone, not as the package's module
    calls: list[Path] = []
    real = module.read
    monkeypatch.setattr(module, "read", lambda p: calls.append(p) or real(p))
    monkeypatch.setattr(fast, "read", lambda p: pytest.fail("the early read was not used"))
    report = cli.run_score(cli.build_parser().parse_args(["score", "cmm", str(path)]))
    assert calls == [path]
    assert report == cmm.score(cmm.load(path))


def test_a_file_the_early_read_declines_is_checked_for_its_kind(tmp_path: Path) -> None:
    # a CMM gold file (no pred) is declined by the early read; the kind check then names it
    gold = [{k: v for k, v in _row(i, "yes", "yes").items() if k != "pred"} for i in range(5)]
    path = _write(tmp_path / "gold.jsonl", gold)
    assert REGISTRY.early("cmm").read(path) is None and cmm.score_file(path) is None
    with pytest.raises(InputError, match="this is cmm gold"):
        cli.run_score(cli.build_parser().parse_args(["score", "cmm", str(path)]))
