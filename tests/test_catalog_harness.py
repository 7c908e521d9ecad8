"""The app's loader reads the files other pipelines write, as ``halluscope items`` does.

``docs/cli.md``, "Files from other pipelines": ``serve`` reads them untouched and told apart by
content, like ``score`` and ``items``. Each test builds a file in one format from the samples (no
download), loads it the way ``serve`` does (:func:`analysis.load.catalog.load_paths`, with and without
the cache folder) and compares its rows with ``items`` on the same file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_harness_formats import (
    AVH_GOLD,
    CMM_GOLD,
    NATIVE_GOLD,
    avh_records,
    cmm_rows,
    vid_rows,
    write_avh_vlmevalkit,
    write_jsonl,
    write_tsv,
    write_xlsx,
)

from analysis.cli.main import main
from analysis.load import catalog_cache
from analysis.load.catalog import load_paths
from analysis.load.detect import NoBenchmarkNamed, detect

COLUMNS = ("item_id", "raw_answer", "correct", "parsed", "scored")


def items(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[Any, ...]]:
    assert main(["items", *args, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return [tuple(r[c] for c in COLUMNS) for r in rows]


def served(paths: list[Path], cache: Path | None) -> tuple[list[tuple[Any, ...]], list[str], set[str]]:
    catalog = load_paths(paths, cache_dir=cache)
    model = catalog.table["model"].astype("string")
    answered = catalog.table[(model.notna() & (model != "")).to_numpy(dtype=bool)]  # not gold-only rows
    rows = [
        tuple(None if pd.isna(v) else v for v in row)
        for row in answered[list(COLUMNS)].astype(object).itertuples(index=False, name=None)
    ]
    return rows, catalog.errors, set(answered["benchmark"].astype(str))


def lmms_avh(path: Path) -> Path:
    return write_jsonl(path, [
        {"doc_id": i, "target": r["label"], "resps": [[r["pred"]]], "filtered_resps": [r["pred"]],
         "doc_hash": f"h{i}", "input": r["text"]}
        for i, r in enumerate(avh_records())
    ])  # fmt: skip


@pytest.mark.parametrize("cached", [False, True])
def test_an_lmms_eval_file_named_for_its_benchmark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cached: bool
) -> None:
    path = lmms_avh(tmp_path / "2026-01-01_samples_avhbench_custom.jsonl")
    rows, errors, benches = served([path, AVH_GOLD], tmp_path / "cache" if cached else None)
    assert errors == [] and benches == {"avhbench"}
    assert rows == items(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD))


def test_an_lmms_eval_file_takes_the_benchmark_of_the_only_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a user's own task name says nothing: the one benchmark whose gold came with it is its benchmark
    path = lmms_avh(tmp_path / "2026-01-01_samples_mytask.jsonl")
    with pytest.raises(NoBenchmarkNamed):
        detect(path)
    rows, errors, benches = served([path, AVH_GOLD], tmp_path / "cache")
    assert errors == [] and benches == {"avhbench"}
    assert rows == items(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD))


def test_an_lmms_eval_file_with_two_benchmarks_gold_says_how_to_name_it(tmp_path: Path) -> None:
    path = lmms_avh(tmp_path / "samples_mytask.jsonl")
    catalog = load_paths([path, AVH_GOLD, CMM_GOLD])
    (error,) = catalog.errors
    assert error.startswith(f"{path}: an lmms-eval samples file") and "avhbench or cmm" in error
    assert "samples_mytask_avhbench.jsonl" in error
    assert set(catalog.table["benchmark"].astype(str)) == {"avhbench", "cmm"}  # the gold still loads


def test_a_cmm_lmms_eval_file_joins_the_rows_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "2026-01-01_samples_cmm.jsonl", [
        {"doc_id": i, "target": r["answer"], "resps": [[r["pred"]]], "filtered_resps": [r["pred"]],
         "doc_hash": f"h{i}", "input": r["question"]}
        for i, r in enumerate(cmm_rows())
    ])  # fmt: skip
    rows, errors, benches = served([path, CMM_GOLD, AVH_GOLD], tmp_path / "cache")
    assert errors == [] and benches == {"cmm"}
    assert rows == items(capsys, "cmm", str(path), "--gold", str(CMM_GOLD))


@pytest.mark.parametrize("suffix", ["xlsx", "tsv", "json"])
def test_vlmevalkit_files_load_with_their_own_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    # an xlsx workbook was refused as "not valid UTF-8 text", a tsv as "not a JSON file"
    path = write_avh_vlmevalkit(tmp_path, suffix)
    rows, errors, benches = served([path], None)
    assert errors == [] and benches == {"avhbench"}
    assert rows == items(capsys, "avhbench", str(path))
    with_gold, errors, _ = served([path, AVH_GOLD], tmp_path / "cache")
    assert errors == [] and with_gold == items(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD))


def test_a_cmm_workbook_is_told_apart_from_an_avhbench_one(tmp_path: Path) -> None:
    rows = cmm_rows()
    header = ["index", *[k for k in rows[0] if k != "pred"], "prediction"]
    path = write_xlsx(
        tmp_path / "Model_CMM.xlsx",
        header,
        [[i, *[r[k] for k in header[1:-1]], r["pred"]] for i, r in enumerate(rows)],
    )
    found = detect(path)
    assert (found.benchmark, found.role) == ("cmm", "predictions")


def test_what_a_file_name_decided_is_not_remembered_by_content(tmp_path: Path) -> None:
    # the same bytes under a name naming another benchmark are told apart again, not read back
    first = lmms_avh(tmp_path / "samples_avhbench.jsonl")
    cache = tmp_path / "cache"
    assert catalog_cache.detect(first, cache, catalog_cache.Digests()).benchmark == "avhbench"
    second = tmp_path / "samples_cmm.jsonl"
    second.write_bytes(first.read_bytes())
    assert catalog_cache.detect(second, cache, catalog_cache.Digests()).benchmark == "cmm"
    # remembered under bytes and name together: the same file again is read back, not told apart
    assert catalog_cache.all_detected_before([first, second], cache, catalog_cache.Digests())
    again = catalog_cache.detect(first, cache, catalog_cache.Digests())
    assert (again.benchmark, again.by_name) == ("avhbench", True)


def test_a_restart_with_a_file_told_by_its_name_starts_no_workers(tmp_path: Path) -> None:
    from analysis.load import catalog

    named = lmms_avh(tmp_path / "2026-01-01_samples_avhbench.jsonl")
    other = write_jsonl(tmp_path / "avcd_output.json", [
        {"id": f"{r['video_id']}.mp4", "question": f"{r['text']} Answer yes or no.", "answer": r["label"],
         "pred": r["pred"]} for r in avh_records()])  # fmt: skip
    paths, cache = [named, other, AVH_GOLD], tmp_path / "cache"
    assert catalog.may_warm(paths, cache, catalog_cache.Digests())
    load_paths(paths, cache_dir=cache).saved_entry()
    assert not catalog.may_warm(paths, cache, catalog_cache.Digests())  # every file detected before


@pytest.mark.parametrize("task", ["bqa", "mcq", "tsh", "sth"])
def test_the_vidhalluc_fork_s_files_carry_their_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str
) -> None:
    # served beside the annotation files they were made from: those go to no fork file
    header, rows = vid_rows(task)
    path = write_tsv(tmp_path / f"Model_VideoHalluc_{task.upper()}.tsv", header, rows)
    found = detect(path)
    assert (found.benchmark, found.task, found.role) == ("vidhalluc", task, "predictions")
    served_rows, errors, benches = served([path, *NATIVE_GOLD.values()], tmp_path / "cache")
    assert errors == [] and benches == {"vidhalluc"}
    assert served_rows == items(capsys, "vidhalluc", str(path), "--task", task)
