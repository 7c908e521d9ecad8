"""cdh-bench: extraction cases, loading results.jsonl, scoring and the published reference numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest
from cdh_bench_synth import TaskCounts, record, task_records, write_jsonl

from analysis.benchmarks import cdh_bench, get
from analysis.benchmarks.cdh_bench.parse import READERS
from analysis.table.columns import item_key

CASE_FILE = Path(__file__).parents[2] / "cases" / "cdh-bench.jsonl"
CASES = [json.loads(line) for line in CASE_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
METRIC_KEYS = {"cf_acc", "cs_acc", "cfad", "ccr", "rpd", "n_cf", "n_cs"}


def test_registered_with_the_interface() -> None:
    assert get("cdh-bench") is cdh_bench
    assert cdh_bench.TASKS == ("qa", "mc") and cdh_bench.TASK_REQUIRED is False
    assert cdh_bench.PARSERS[:2] == ("official", "reparse") and cdh_bench.ALT_PARSER in cdh_bench.PARSERS
    assert cdh_bench.ALT_PARSER not in ("official", "reparse")


@pytest.mark.parametrize("case", CASES, ids=[f"{c['task']}:{c['raw']!r}:{c['gold']!r}" for c in CASES])
def test_extraction_case(case: dict[str, Any]) -> None:
    assert READERS["reparse"](case["task"], case["raw"], case["gold"]) == (
        case["expected_parse"],
        case["expected_correct"],
    ), case["why"]
    assert READERS["strict"](case["task"], case["raw"], case["gold"]) == (
        case["strict_parse"],
        case["strict_correct"],
    ), case["why"]


def test_case_file_covers_both_tasks_and_parser_disagreements() -> None:
    assert {c["task"] for c in CASES} == {"qa", "mc"}
    differ = [c for c in CASES if c["expected_correct"] != c["strict_correct"]]
    assert len(differ) >= 8  # the quirks the strict parser exists for


def _write_cases_as_results(tmp_path: Path) -> Path:
    # every case as a commonsense record whose stored verdict is what the official script writes
    rows = [
        record(i, c["task"], "commonsense", c["raw"], gt=c["gold"], correct=c["expected_correct"])
        for i, c in enumerate(CASES)
    ]
    return write_jsonl(tmp_path / "results.jsonl", rows)


def test_parsed_shows_the_official_reading_and_alt_columns_the_strict_one(tmp_path: Path) -> None:
    table = cdh_bench.load(_write_cases_as_results(tmp_path))
    for row, case in zip(table.itertuples(), CASES, strict=True):
        assert (None if row.parsed is pd.NA else row.parsed) == case["expected_parse"]
        assert bool(row.correct) == case["expected_correct"]
        assert (None if row.alt_parsed is pd.NA else row.alt_parsed) == case["strict_parse"]
        assert bool(row.alt_correct) == case["strict_correct"]
    assert set(table["alt_parser"].astype(str)) == {"strict"}


def test_official_uses_the_stored_verdict_even_when_the_text_disagrees(tmp_path: Path) -> None:
    # An edited file: the stored verdicts say right, the texts say wrong. Pair 0 qa: gold no.
    rows = [
        record(0, "qa", "commonsense", "no", correct=True),  # gold yes, text no: reparse wrong
        record(0, "qa", "counterfactual", "yes", correct=True, commonsense_error=False),
    ]
    table = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows))
    official = cdh_bench.score(table)["groups"]["task"]["qa"]
    reparse = cdh_bench.score(table, parser="reparse")["groups"]["task"]["qa"]
    assert (official["cf_acc"], official["cs_acc"], official["ccr"]) == (1.0, 1.0, None)
    # reparse: CF "yes" is wrong and equals the commonsense gold -> CCR 1/1; CS wrong
    assert (reparse["cf_acc"], reparse["cs_acc"], reparse["ccr"]) == (0.0, 0.0, 1.0)
    assert reparse["rpd"] is None  # CS-Acc 0


REFERENCE = {
    # model: {task: (counts, (CF, CS, CFAD, CCR) as published, 4 decimals)}
    "Qwen3-VL-32B-Instruct": {
        "qa": (TaskCounts(167, 280, 133), (0.5567, 0.9333, 0.3767, 1.0)),
        "mc": (TaskCounts(138, 278, 137), (0.4600, 0.9267, 0.4667, 0.8457)),
    },
    "Qwen3-VL-32B-Thinking": {
        "qa": (TaskCounts(176, 270, 97), (0.5867, 0.9000, 0.3133, 0.7823)),
        "mc": (TaskCounts(145, 233, 88), (0.4833, 0.7767, 0.2933, 0.5677)),
    },
}


def _noise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Interleave failed attempts (retried later), missing images and status-less records."""
    out: list[dict[str, Any]] = []
    for n, row in enumerate(rows):
        if n % 50 == 0:
            out.append(
                {
                    **row,
                    "status": "error",
                    "pred": "[Errno 111] Connection refused",
                    "correct": None,
                    "commonsense_error": None,
                    "raw": None,
                }
            )
        if n % 170 == 1:
            out.append(
                {
                    k: row[k]
                    for k in (
                        "ts",
                        "run",
                        "model_name",
                        "pair_id",
                        "category",
                        "subcategory",
                        "task",
                        "side",
                        "image_path",
                    )
                }
                | {"status": "missing_image"}
            )
        if n % 333 == 2:
            out.append({k: v for k, v in row.items() if k != "status"} | {"correct": False})
        out.append(row)
    return out


@pytest.mark.parametrize("model", sorted(REFERENCE))
def test_reference_numbers_reproduced(tmp_path: Path, model: str) -> None:
    spec = REFERENCE[model]
    clean = task_records("qa", spec["qa"][0]) + task_records("mc", spec["mc"][0])
    noisy = _noise(clean)
    n_noise = len(noisy) - len(clean)
    (tmp_path / model).mkdir()
    path = write_jsonl(tmp_path / model / "results.jsonl", [dict(r, model_name=model) for r in noisy])
    table = cdh_bench.load(path)
    assert set(table["model"].astype(str)) == {model}
    for parser in cdh_bench.PARSERS:  # the synthetic answers are plain: every parser agrees
        report = cdh_bench.score(table, parser=parser)
        assert (report["n_scored"], report["n_skipped"]) == (1200, n_noise)
        assert report["overall"] == {}
        for task, (counts, published) in spec.items():
            m = report["groups"]["task"][task]
            assert set(m) == METRIC_KEYS
            assert (m["n_cf"], m["n_cs"]) == (300, 300)
            got = tuple(round(float(m[k] or 0), 4) for k in ("cf_acc", "cs_acc", "cfad", "ccr"))
            assert got == published, (parser, task)
            assert m["cf_acc"] == counts.cf_correct / 300  # full precision, not rounded
            assert m["rpd"] == pytest.approx(m["cfad"] / m["cs_acc"])


def test_instruct_counts_exactly(tmp_path: Path) -> None:
    rows = task_records("qa", TaskCounts(167, 280, 133)) + task_records("mc", TaskCounts(138, 278, 137))
    report = cdh_bench.score(cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows)))
    mc = report["groups"]["task"]["mc"]
    # mc: 162 CF errors, 137 of them the commonsense letter -> CCR = 137/162
    assert mc["ccr"] == 137 / 162 and mc["cfad"] == pytest.approx(278 / 300 - 138 / 300)
    assert report["groups"]["task"]["qa"]["ccr"] == 1.0  # 133/133


def test_reparse_agrees_with_stored_verdicts_on_a_consistent_file(tmp_path: Path) -> None:
    rows = task_records("qa", TaskCounts(176, 270, 97)) + task_records("mc", TaskCounts(145, 233, 88))
    table = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows))
    for parser in ("reparse", "official"):
        correct, cs_error = cdh_bench.verdicts(table, parser)
        assert correct.tolist() == [r["correct"] for r in rows]
        assert cs_error.tolist() == [r["commonsense_error"] is True for r in rows]
    assert table["parsed"].notna().sum() == 1200 - 27  # the 27 "I cannot tell." answers


def test_every_ok_record_counts_no_deduplication(tmp_path: Path) -> None:
    # Pair 0 mc CF asked three times: an error, then two ok answers (one right, one wrong).
    # CF: 2 ok records, 1 correct -> CF-Acc 1/2; the wrong one is the CS letter B -> CCR 1/1.
    # CS: 1 ok record, correct -> CS-Acc 1. CFAD = 1 - 1/2 = 1/2; RPD = (1/2)/1.
    rows = [
        record(0, "mc", "counterfactual", "x", status="error", correct=None),
        record(0, "mc", "counterfactual", "A", correct=True, commonsense_error=False),
        record(0, "mc", "counterfactual", "B", correct=False, commonsense_error=True),
        record(0, "mc", "commonsense", "B", correct=True),
    ]
    table = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows))
    assert table["item_id"].nunique() == 2 and len(table) == 4
    report = cdh_bench.score(table)
    assert report["groups"]["task"]["mc"] == {
        "cf_acc": 0.5,
        "cs_acc": 1.0,
        "cfad": 0.5,
        "ccr": 1.0,
        "rpd": 0.5,
        "n_cf": 2,
        "n_cs": 1,
    }
    assert (report["n_scored"], report["n_skipped"]) == (3, 1)


def test_failed_record_is_skipped_even_when_it_succeeds_later(tmp_path: Path) -> None:
    rows = [
        record(0, "qa", "commonsense", "[Errno 111] Connection refused", status="error", correct=None),
        {
            "pair_id": "Pair 1",
            "task": "qa",
            "side": "commonsense",
            "status": "missing_image",
            "image_path": "/x/commonsense.png",
        },
        record(0, "qa", "commonsense", "yes", correct=True),
    ]
    table = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows))
    assert table["scored"].tolist() == [False, False, True]
    assert table["skip_reason"][0].startswith("status 'error'") and table["skip_reason"][2] == ""
    assert table["correct"].isna().tolist() == [True, True, False]
    assert table["raw_answer"][0] == "[Errno 111] Connection refused"
    assert len(set(table["item_id"])) == 1
    report = cdh_bench.score(table)
    assert (report["n_scored"], report["n_skipped"]) == (1, 2)
    assert report["groups"]["task"]["qa"]["cs_acc"] == 1.0


def test_groups_task_category_and_task_option(tmp_path: Path) -> None:
    rows = [
        record(0, "qa", "commonsense", "yes", correct=True),
        record(0, "qa", "counterfactual", "yes", correct=False, commonsense_error=True),
        record(1, "qa", "commonsense", "no", correct=False, category=None),
        record(2, "qa", "commonsense", "x", status="error", category="Only Failed"),
        record(3, "mc", "commonsense", "B", correct=True),
    ]
    table = cdh_bench.load(write_jsonl(tmp_path / "results.jsonl", rows))
    report = cdh_bench.score(table)
    assert list(report["groups"]) == ["task", "task/category"]
    assert list(report["groups"]["task"]) == ["qa", "mc"]
    cats = report["groups"]["task/category"]
    assert set(cats) == {"qa/Counting Anomalies", "qa/Unknown", "qa/Only Failed", "mc/Counting Anomalies"}
    assert cats["qa/Only Failed"] == dict.fromkeys(METRIC_KEYS - {"n_cf", "n_cs"}) | {"n_cf": 0, "n_cs": 0}
    # qa/Unknown: one CS record, wrong -> CS-Acc 0; no CF record -> CF-Acc, CFAD, CCR, RPD null
    assert cats["qa/Unknown"] == {
        "cf_acc": None,
        "cs_acc": 0.0,
        "cfad": None,
        "ccr": None,
        "rpd": None,
        "n_cf": 0,
        "n_cs": 1,
    }
    # qa/Counting: CF 0/1, CS 1/1 -> CFAD 1, CCR 1/1, RPD 1
    assert cats["qa/Counting Anomalies"]["cfad"] == 1.0 and cats["qa/Counting Anomalies"]["ccr"] == 1.0
    only_qa = cdh_bench.score(table, task="qa")
    assert list(only_qa["groups"]["task"]) == ["qa"] and only_qa["task"] == "qa"
    assert not any(k.startswith("mc/") for k in only_qa["groups"]["task/category"])
    assert (only_qa["n_scored"], only_qa["n_skipped"]) == (3, 1)
    loaded_qa = cdh_bench.load(tmp_path / "results.jsonl", task="qa")
    assert set(loaded_qa["task"].astype(str)) == {"qa"} and len(loaded_qa) == 4


def test_unknown_parser_or_task_is_refused(tmp_path: Path) -> None:
    table = cdh_bench.load(write_jsonl(tmp_path / "r.jsonl", [record(0, "qa", "commonsense", "yes")]))
    with pytest.raises(ValueError, match="parser"):
        cdh_bench.score(table, parser="first-word")
    with pytest.raises(ValueError, match="task"):
        cdh_bench.score(table, task="vqa")


def test_item_table_columns(tmp_path: Path) -> None:
    rows = [
        record(
            4,
            "mc",
            "counterfactual",
            "C",
            correct=False,
            commonsense_error=False,
            options=["A. x", "B. y", "C. z", "D. w"],
        )
    ]
    path = write_jsonl(tmp_path / "results.jsonl", rows)
    row = cdh_bench.load(path).iloc[0]
    assert row["benchmark"] == "cdh-bench" and row["model"] == "Qwen3-VL-32B-Instruct"
    assert (row["pair_id"], row["task"], row["side"]) == ("Pair 5", "mc", "counterfactual")
    assert row["gold"] == "A" and row["category"] == "Counting Anomalies" and row["subcategory"] == "Sub/4 x"
    assert json.loads(row["options"]) == ["A. x", "B. y", "C. z", "D. w"]
    assert json.loads(row["media"]) == [
        {"kind": "image", "role": "counterfactual", "path": "/data/images/Sub/4 x/Pair 5/counterfactual.png"}
    ]
    assert row["source"] == "results.jsonl:line 1"
    extra = json.loads(row["extra"])
    assert {"run", "ts", "latency_ms", "prompt", "raw", "cs_gt", "cf_gt", "status"} <= set(extra)
    assert "pred" not in extra and "pair_id" not in extra
    assert row["item_id"] == "cdh-" + item_key("Pair 5", "mc", "counterfactual")


def test_item_ids_are_stable_across_models_and_runs(tmp_path: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [record(i, "qa", "commonsense", "yes") for i in range(5)])
    b = write_jsonl(
        tmp_path / "b.jsonl",
        [record(i, "qa", "commonsense", "no", model_name="Other", run="zzz") for i in reversed(range(5))],
    )
    ids_a = cdh_bench.load(a)["item_id"].tolist()
    ids_b = cdh_bench.load(b)["item_id"].tolist()
    assert ids_a == list(reversed(ids_b)) and len(set(ids_a)) == 5


def test_model_name_fallback_and_override(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "my-run.jsonl", [record(0, "qa", "commonsense", "yes", model_name=None)])
    assert cdh_bench.load(path)["model"].tolist() == ["my-run"]
    assert cdh_bench.load(path, model="M")["model"].tolist() == ["M"]


# (extra text, why) for the stored commonsense error: each must read as orjson.loads(t).get(...) is True
_STORED_ERRORS = [
    ('{"commonsense_error": true}', "the field itself"),
    ('{"commonsense_error": false}', "false"),
    ('{"commonsense_error": null}', "a stored null counts as False, as the official `is True`"),
    ("", "no other field: an empty extra"),
    ("{}", "no field at all"),
    ('{"raw": {"commonsense_error": true}}', "nested in another field: not the record's own"),
    ('{"raw": "\\"commonsense_error\\": true"}', "inside a string: not a field"),
    ('{"a": 18446744073709551616, "commonsense_error": true}', "an integer beyond 64 bits beside it"),
    ('{"a": [1, {"b": [true, null]}], "commonsense_error": true, "c": "é\\n"}', "lists, escapes, non-ASCII"),
    ('{"commonsense_error":true}', "compact JSON"),
    ('{"commonsense_error": true,\n "raw": 1}', "a line break between fields: Arrow reads whole objects"),
]
"""Texts Arrow's reader takes; below, those it refuses (the caller then parses each candidate)."""
_REFUSED = [
    ('{"commonsense_error": "true"}', False, "a text, not a boolean"),
    ('{"commonsense_error": 1}', False, "a number, not a boolean"),
    (
        '{"commonsense_error": true, "raw": "' + "x" * (2 << 20) + '"}',
        True,
        "longer than one block Arrow reads",
    ),
    ('{"x": {}} {"y": 1}', False, "two objects in one text: more rows read than texts, none misplaced"),
]


@pytest.mark.parametrize("shuffle", [0, 1, 2])
def test_the_stored_commonsense_error_is_the_records_own_true(shuffle: int) -> None:
    texts = [t for t, _ in _STORED_ERRORS] * 3
    texts = texts[shuffle:] + texts[:shuffle]
    extra = pd.Series(texts, dtype="string")
    want = [bool(t) and orjson.loads(t).get("commonsense_error") is True for t in texts]
    assert cdh_bench._commonsense_error_by_arrow(pa.array(extra)) is not None  # the fast path ran
    for kind in (pa.string(), pa.large_string()):  # a stacked table's text may have either offsets
        read = cdh_bench._commonsense_error_by_arrow(pa.array(texts, kind).slice(1))
        assert read is not None and read.tolist() == want[1:]
    assert cdh_bench._stored_commonsense_error(extra).tolist() == want
    with_null = pd.Series([*texts, None], dtype="string")
    assert cdh_bench._stored_commonsense_error(with_null).tolist() == [*want, False]


@pytest.mark.parametrize(("refused", "holds", "why"), _REFUSED)
def test_a_stored_commonsense_error_arrow_refuses_is_parsed_text_by_text(
    refused: str, holds: bool, why: str
) -> None:
    texts = ['{"commonsense_error": true}', refused, '{"commonsense_error": false}']
    extra = pd.Series(texts, dtype="string")
    assert cdh_bench._commonsense_error_by_arrow(pa.array(extra)) is None, why
    assert cdh_bench._stored_commonsense_error(extra).tolist() == [True, holds, False]


def test_the_stored_commonsense_error_is_read_a_slice_of_texts_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cdh_bench, "_ARROW_ROWS", 4)
    texts = [t for t, _ in _STORED_ERRORS] * 2  # 22 texts: five full slices and one of two
    want = [bool(t) and orjson.loads(t).get("commonsense_error") is True for t in texts]
    read = cdh_bench._commonsense_error_by_arrow(pa.array(texts, pa.large_string()))
    assert read is not None and read.tolist() == want
    refused = [*texts[:13], '{"commonsense_error": 1}', *texts[13:]]  # in the fourth slice only
    assert cdh_bench._commonsense_error_by_arrow(pa.array(refused, pa.large_string())) is None
    assert cdh_bench._stored_commonsense_error(pd.Series(refused, dtype="string")).tolist() == [
        *want[:13],
        False,
        *want[13:],
    ]


def test_no_stored_commonsense_error_in_no_rows() -> None:
    assert cdh_bench._stored_commonsense_error(pd.Series([], dtype="string")).tolist() == []
