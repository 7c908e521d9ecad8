"""Corrected gold written back in each benchmark's own file format, read by the same loaders.

``write_native(benchmark, paths, labels, out_dir)`` copies each input file into ``out_dir``
(same name; an input is never overwritten) with the corrected gold in place and every other
field kept. Which record an item came from is found by loading the file with the benchmark's
own loader and reading the ``source`` column (``file:line N`` / ``file:record i``), so item ids
always agree with the app's; VidHalluc's nested files use the module's item-id functions.

=================  ==========================================================================
avhbench           ``QA.json`` (and prediction files carrying gold): ``label``
cmm                the JSONL (gold and predictions in one): ``answer``
vidhalluc          ``ach_binaryqa.json`` clip answers, ``ach_mcq.json`` / ``tsh.json``
                   ``Correct Answer``, ``sth.json`` ``Scene change`` and ``Locations``
cdh-bench          ``benchmark.jsonl``: ``direct_qa`` / ``multiple_choice`` ``*_gt``;
                   ``results.jsonl``: ``gt``, ``cs_gt``, ``cf_gt`` and, on ok records, ``correct``
                   and ``commonsense_error`` recomputed with the official rules, so that
                   ``halluscope score cdh-bench`` on it gives the corrected metrics
detailverifybench  ``real_test.jsonl`` / ``synthetic_test.jsonl``: ``description_tag``,
                   ``Modify`` and the ``hallucination_labels`` whose text is still tagged; the
                   pipeline output: ``gt_hallucinated_caption_with_tags``
=================  ==========================================================================

Note: DetailVerifyBench item ids hash the tagged gold, so a reloaded corrected file has new ids
for the items whose tags changed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import InputError
from analysis.readers import Records, looks_like_jsonl, read_object, read_records
from analysis.store.apply import table_spelling
from analysis.store.values import tagged_to_spans, untag

Patch = Callable[[dict[str, Any], pd.Series, str], None]


def write_native(benchmark: str, paths: Sequence[Path], labels: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Write corrected copies of ``paths`` into ``out_dir``; returns the files written."""
    from analysis.benchmarks import get

    bench = get(benchmark)
    rows = labels[(labels["field"] == "gold") & labels["value"].notna()]
    gold = dict(zip(rows["item_id"].astype(str), rows["value"].astype(str), strict=True))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        target = out_dir / Path(path).name
        if target.resolve() == Path(path).resolve():
            raise InputError(path, "the output folder holds the input file; choose another --out")
        if bench.NAME == "vidhalluc":
            _write_json(target, _vidhalluc(Path(path), gold), jsonl=False)
        else:
            records, jsonl = _records(Path(path))
            _patch_records(bench, Path(path), records, gold)
            _write_json(target, records.items, jsonl=jsonl)
        written.append(target)
    return written


def _records(path: Path) -> tuple[Records, bool]:
    # A file of objects (one or more lines) is written back as JSONL; a JSON list as a list.
    records = read_records(path)
    with path.open("rb") as handle:
        starts_with_object = handle.read(4096).lstrip().startswith(b"{")
    return records, looks_like_jsonl(path) or starts_with_object


def _write_json(target: Path, data: Any, *, jsonl: bool) -> None:
    if jsonl:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data)
    else:
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    target.write_text(text, encoding="utf-8")


def _table(bench: Any, path: Path) -> pd.DataFrame:
    """The file as the app sees it: as gold if it reads as gold, else as one model's output."""
    try:
        return bench.load_gold([path])  # type: ignore[no-any-return]
    except InputError:
        return bench.load(path)  # type: ignore[no-any-return]


def _patch_records(bench: Any, path: Path, records: Records, gold: Mapping[str, str]) -> None:
    if bench.NAME == "cdh-bench" and records.items and "direct_qa" not in records.items[0]:
        _cdh_results(records, gold)  # results.jsonl: gt, cs_gt, cf_gt and the verdicts
        return
    table = _table(bench, path)
    index = {records.where(i): i for i in range(len(records))}
    prefix = f"{path.name}:"
    hit = table[table["item_id"].astype(str).isin(list(gold))]
    patch = PATCHES[bench.NAME]
    for _, row in hit.iterrows():
        label = str(row["source"]).removeprefix(prefix)
        if label not in index:
            raise InputError(path, f"cannot find the record of item {row['item_id']} ({row['source']})")
        patch(records.items[index[label]], row, gold[str(row["item_id"])])


def _set_yes_no(keys: tuple[str, ...]) -> Patch:
    def patch(record: dict[str, Any], _row: pd.Series, value: str) -> None:
        for key in keys:
            if key in record:
                record[key] = table_spelling(value, record[key] if isinstance(record[key], str) else None)
                return
        record[keys[0]] = value

    return patch


def _cdh_gold(record: dict[str, Any], row: pd.Series, value: str) -> None:
    block = {"qa": "direct_qa", "mc": "multiple_choice"}[str(row["task"])]
    record[block][f"{row['side']}_gt"] = value


_WORDS = re.compile(r"\W+")


def _dvb(record: dict[str, Any], _row: pd.Series, value: str) -> None:
    if "gt_hallucinated_caption_with_tags" in record:  # the pipeline output
        record["gt_hallucinated_caption_with_tags"] = value
        return
    record["description_tag"] = value
    spans = tagged_to_spans(value)
    record["Modify"] = "Yes" if spans else "No"
    clean = untag(value)
    tagged = {_WORDS.sub("", clean[s:e].lower()) for s, e in spans}
    labels = record.get("hallucination_labels")
    if isinstance(labels, list):
        record["hallucination_labels"] = [
            entry for entry in labels
            if isinstance(entry, dict) and _WORDS.sub("", str(entry.get("text", "")).lower()) in tagged
        ]


PATCHES: dict[str, Patch] = {
    "avhbench": _set_yes_no(("label", "ground_truth", "gt", "answer")),
    "cmm": _set_yes_no(("answer",)),
    "cdh-bench": _cdh_gold,
    "detailverifybench": _dvb,
}


def _cdh_results(records: Records, gold: Mapping[str, str]) -> None:
    from analysis.benchmarks.cdh_bench import parse as _cdh_parse
    from analysis.benchmarks.cdh_bench import read as _cdh_load

    reparse = _cdh_parse.READERS["reparse"]
    for record in records.items:
        pair, task, side = (str(record.get(k) or "") for k in ("pair_id", "task", "side"))
        own, cs, cf = (gold.get(_cdh_load.item_id(pair, task, s))
                       for s in (side, "commonsense", "counterfactual"))
        if own is None and cs is None and cf is None:
            continue
        record["gt"] = own if own is not None else record.get("gt")
        record["cs_gt"] = cs if cs is not None else record.get("cs_gt")
        record["cf_gt"] = cf if cf is not None else record.get("cf_gt")
        if record.get("status") != "ok":
            continue
        text = record.get("pred") if isinstance(record.get("pred"), str) else ""
        correct = reparse(task, str(text), str(record["gt"] or ""))[1]
        record["correct"] = correct
        if side == "counterfactual":
            against_cs = reparse(task, str(text), str(record["cs_gt"] or ""))[1]
            record["commonsense_error"] = (not correct) and against_cs


def _vidhalluc(path: Path, gold: Mapping[str, str]) -> dict[str, Any]:
    from analysis.benchmarks.vidhalluc import auditing as _vidhalluc_audit

    data = read_object(path)
    fixes: dict[str, Callable[[str, Any, Mapping[str, str]], None]] = {
        "bqa": _bqa, "mcq": _mcq, "tsh": _tsh, "sth": _sth}
    fix = fixes[_vidhalluc_audit.detect(path, data)]
    for key, entry in data.items():
        fix(key, entry, gold)
    return data


def _bqa(group: str, questions: list[dict[str, Any]], gold: Mapping[str, str]) -> None:
    from analysis.benchmarks.vidhalluc.bqa import item_id

    for index, question in enumerate(questions):
        answers = question.get("a") or {}
        for clip in answers:
            value = gold.get(item_id(group, index, clip))
            if value is not None:
                answers[clip] = table_spelling(value, answers[clip])


def _mcq(group: str, clips: dict[str, Any], gold: Mapping[str, str]) -> None:
    from analysis.benchmarks.vidhalluc.mcq import item_id

    for clip, record in clips.items():
        value = gold.get(item_id(group, clip))
        if value is not None:
            record["Correct Answer"] = value


def _tsh(key: str, entry: dict[str, Any], gold: Mapping[str, str]) -> None:
    from analysis.benchmarks.vidhalluc.tsh import item_id

    value = gold.get(item_id(key, str(entry.get("video"))))
    if value is not None:
        entry["Correct Answer"] = value


def _sth(video_id: str, entry: dict[str, Any], gold: Mapping[str, str]) -> None:
    from analysis.benchmarks.vidhalluc.sth import item_id

    value = gold.get(item_id(video_id))
    if value is not None:
        change, _, locations = value.removeprefix("Scene change: ").partition(", Locations: ")
        entry["Scene change"] = change
        if locations:  # a "No" keeps the file's own Locations text
            entry["Locations"] = locations
