"""Files from other pipelines score untouched with the numbers of the native file.

Each test builds a file in one format from the samples' records (no download) and checks that
``halluscope score`` gives exactly the report of the benchmark's own file, except ``n_skipped``
where a format adds failed inferences.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import openpyxl  # type: ignore[import-untyped, unused-ignore]
import pytest

from analysis.cli.main import main
from analysis.errors import UsageError
from analysis.files.harness import answer_text, parse_map

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
AVH_GOLD = SAMPLES / "avhbench" / "QA.json"
AVH_NATIVE = SAMPLES / "avhbench" / "predictions" / "balanced.json"
CMM_GOLD = SAMPLES / "cmm" / "all_data_final_reorg.json"
CMM_NATIVE = SAMPLES / "cmm" / "predictions" / "balanced.jsonl"


def score(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["score", *args, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    report: dict[str, Any] = json.loads(out.out)
    return report


def same_numbers(a: dict[str, Any], b: dict[str, Any], *, extra_skipped: int = 0) -> None:
    assert a["overall"] == b["overall"] and a["groups"] == b["groups"]
    assert (a["n_scored"], a["n_skipped"]) == (b["n_scored"], b["n_skipped"] + extra_skipped)


def avh_records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(AVH_NATIVE.read_text(encoding="utf-8"))
    return records


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_xlsx(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def write_tsv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, dialect="excel-tab")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_mad_output_skips_failed_inferences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # MAD: a JSON list with the prompt suffix kept in `question`, and "ERROR: ..." where inference
    # failed. The failed attempt comes before a successful retry of the same question: it is
    # skipped (n_skipped + 1) and the retry is scored, so the numbers are the native file's.
    rows = [
        {
            "video_id": r["video_id"],
            "task": r["task"],
            "question": r["text"] + " Answer only 'Yes' or 'No'.",
            "ground_truth": r["label"],
            "prediction": r["pred"],
            "inference_time": 0.5,
            "device": "cuda:0",
        }
        for r in avh_records()
    ]
    rows.insert(0, dict(rows[0], prediction="ERROR: CUDA out of memory"))
    path = tmp_path / "mad_results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    same_numbers(
        score(capsys, "avhbench", str(path)), score(capsys, "avhbench", str(AVH_NATIVE)), extra_skipped=1
    )


def test_avcd_jsonl_under_a_json_name_joins_qa_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # AVCD: {"id": "<video_id>.mp4", "question": "<text> Answer yes or no.", "answer", "pred"}, no task.
    # Before: "no record in QA.json has video_id ... and text '... Answer yes or no.'".
    rows = [
        {
            "id": f"{r['video_id']}.mp4",
            "question": f"{r['text']} Answer yes or no.",
            "answer": r["label"],
            "pred": r["pred"],
        }
        for r in avh_records()
    ]
    path = write_jsonl(tmp_path / "avcd_output.json", rows)
    same_numbers(
        score(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD)),
        score(capsys, "avhbench", str(AVH_NATIVE)),
    )


def test_lmms_eval_samples_join_gold_by_doc_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --log_samples of a user's task: doc_id is the row of QA.json; resps and filtered_resps come
    # as a string, a list or a list of lists (filtered_resps is what lmms-eval scored).
    shapes = [lambda t: t, lambda t: [t], lambda t: [[t]]]
    rows = [
        {
            "doc_id": i,
            "target": r["label"],
            "resps": [["ignored"]],
            "filtered_resps": shapes[i % 3](r["pred"]),
            "doc_hash": f"h{i}",
            "input": r["text"],
            "exact_match": 0.0,
        }
        for i, r in enumerate(avh_records())
    ]
    path = write_jsonl(tmp_path / "2026-01-01_samples_avhbench_custom.jsonl", rows)
    same_numbers(
        score(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD)),
        score(capsys, "avhbench", str(AVH_NATIVE)),
    )


def test_lmms_eval_without_gold_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(
        tmp_path / "samples.jsonl", [{"doc_id": 0, "resps": [["Yes"]]}, {"doc_id": 1, "resps": "No"}]
    )
    assert main(["score", "avhbench", str(path)]) == 2
    err = capsys.readouterr().err
    assert "doc_id" in err and "--gold QA.json" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("suffix", ["xlsx", "tsv", "json"])
def test_vlmevalkit_prediction_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    path = write_avh_vlmevalkit(tmp_path, suffix)
    same_numbers(score(capsys, "avhbench", str(path)), score(capsys, "avhbench", str(AVH_NATIVE)))


def write_avh_vlmevalkit(folder: Path, suffix: str) -> Path:
    """VLMEvalKit's AVHBench file: the dataset's columns and `prediction`, xlsx, tsv or json."""
    header = ["index", "video_id", "task", "text", "label", "prediction"]
    rows = [
        [i, r["video_id"], r["task"], r["text"], r["label"], r["pred"]] for i, r in enumerate(avh_records())
    ]
    path = folder / f"Model_AVHBench.{suffix}"
    if suffix == "xlsx":
        write_xlsx(path, header, rows)
    elif suffix == "tsv":
        write_tsv(path, header, rows)
    else:
        path.write_text(json.dumps([dict(zip(header, row, strict=True)) for row in rows]), encoding="utf-8")
    return path


def test_llava_answer_file_with_a_renamed_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # LLaVA answers: `text` is the answer, `prompt` the question; this fork keeps the video in `video`.
    rows = [
        {
            "question_id": i,
            "video": r["video_id"],
            "prompt": r["text"],
            "text": r["pred"],
            "answer_id": f"a{i}",
            "model_id": "llava",
            "metadata": {},
        }
        for i, r in enumerate(avh_records())
    ]
    path = write_jsonl(tmp_path / "answers.jsonl", rows)
    report = score(capsys, "avhbench", str(path), "--gold", str(AVH_GOLD), "--map", "video_id=video")
    same_numbers(report, score(capsys, "avhbench", str(AVH_NATIVE)))


def test_map_renames_fields_of_a_native_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"vid": r["video_id"], "task": r["task"], "text": r["text"], "label": r["label"], "output": r["pred"]}
        for r in avh_records()
    ]
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    report = score(capsys, "avhbench", str(path), "--map", "video_id=vid,prediction=output")
    same_numbers(report, score(capsys, "avhbench", str(AVH_NATIVE)))


def test_a_mapped_field_that_is_missing_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.json"
    path.write_text(
        json.dumps([{"video_id": "1", "text": "Q?", "label": "Yes", "pred": "Yes"}]), encoding="utf-8"
    )
    assert main(["score", "avhbench", str(path), "--map", "prediction=output"]) == 2
    assert "record 1: field 'output': missing (--map prediction=output)" in capsys.readouterr().err


def test_answer_text_and_map_parsing() -> None:
    assert [answer_text(v) for v in ("Yes", ["No"], [["Yes", "x"]], [], [[]], None)] == [
        "Yes",
        "No",
        "Yes",
        None,
        None,
        None,
    ]
    assert parse_map("prediction=text, question=prompt") == {"prediction": "text", "question": "prompt"}
    with pytest.raises(UsageError):
        parse_map("prediction")


def test_prompt_suffix_is_not_part_of_the_item(tmp_path: Path) -> None:
    # The same question with and without MAD's suffix is the same item (the same item_id as QA.json).
    from analysis.benchmarks import get

    bench = get("avhbench")
    rows = [
        {
            "video_id": r["video_id"],
            "task": r["task"],
            "question": r["text"] + " Answer only 'Yes' or 'No'.",
            "ground_truth": r["label"],
            "prediction": r["pred"],
        }
        for r in avh_records()
    ]
    path = tmp_path / "mad.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    table = bench.load(path)
    assert list(table["item_id"]) == list(bench.load_gold([AVH_GOLD])["item_id"])
    assert json.loads(table["extra"][0])["prompt"].endswith("Answer only 'Yes' or 'No'.")


def cmm_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CMM_NATIVE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_cmm_lmms_eval_samples_join_the_rows_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {
            "doc_id": i,
            "target": r["answer"],
            "resps": [[r["pred"]]],
            "filtered_resps": [r["pred"]],
            "doc_hash": f"h{i}",
            "input": r["question"],
        }
        for i, r in enumerate(cmm_rows())
    ]
    path = write_jsonl(tmp_path / "2026-01-01_samples_cmm.jsonl", rows)
    same_numbers(
        score(capsys, "cmm", str(path), "--gold", str(CMM_GOLD)), score(capsys, "cmm", str(CMM_NATIVE))
    )


@pytest.mark.parametrize("suffix", ["xlsx", "tsv", "json"])
def test_cmm_vlmevalkit_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    rows = cmm_rows()
    header = ["index", *[k for k in rows[0] if k != "pred"], "prediction"]
    table = [[i, *[r[k] for k in header[1:-1]], r["pred"]] for i, r in enumerate(rows)]
    path = tmp_path / f"Model_CMM.{suffix}"
    if suffix == "xlsx":
        write_xlsx(path, header, table)
    elif suffix == "tsv":
        write_tsv(path, header, table)
    else:
        path.write_text(json.dumps([dict(zip(header, row, strict=True)) for row in table]), encoding="utf-8")
    same_numbers(score(capsys, "cmm", str(path)), score(capsys, "cmm", str(CMM_NATIVE)))


def test_cmm_failed_inferences_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A failed row is appended (a copy of row 1 whose inference failed): scored rows stay the same.
    rows = [{k: v for k, v in r.items() if k != "pred"} | {"prediction": r["pred"]} for r in cmm_rows()]
    rows.append(dict(rows[0], prediction="ERROR: timeout"))
    path = tmp_path / "Model_CMM.json"
    path.write_text(json.dumps([dict(r, index=i) for i, r in enumerate(rows)]), encoding="utf-8")
    same_numbers(score(capsys, "cmm", str(path)), score(capsys, "cmm", str(CMM_NATIVE)), extra_skipped=1)


def test_cmm_hugging_face_copy_is_a_json_array_of_the_rows(tmp_path: Path) -> None:
    # all_data_final_reorg.json on Hugging Face is a JSON array; the template is JSONL: same gold.
    from analysis.benchmarks import get

    array = tmp_path / "all_data_final_reorg.json"
    array.write_text(
        json.dumps([json.loads(line) for line in CMM_GOLD.read_text().splitlines()]), encoding="utf-8"
    )
    bench = get("cmm")
    a, b = bench.load_gold([array]), bench.load_gold([CMM_GOLD])
    assert list(a["item_id"]) == list(b["item_id"]) and list(a["gold"]) == list(b["gold"])
    assert [f.detail for f in bench.audit([array])] == [f.detail for f in bench.audit([CMM_GOLD])]


VID = SAMPLES / "vidhalluc"
VID_HEADER = ["index", "sample_id", "question_id", "clip_id", "task_type", "video", "video_path", "question",
              "answer"]  # fmt: skip


def vid_rows(task: str) -> tuple[list[str], list[list[Any]]]:
    """The fork's VideoHalluc_<TASK> rows built from the samples' native files."""
    native = json.loads((VID / "predictions" / task / "balanced.json").read_text(encoding="utf-8"))
    rows: list[list[Any]] = []
    header = [*VID_HEADER]
    if task == "bqa":
        gold = json.loads((VID / "ach_binaryqa.json").read_text(encoding="utf-8"))
        for group, questions in gold.items():
            for q_index, question in enumerate(questions):
                for clip, answer in question["a"].items():
                    said = native.get(group, [])[q_index]["a"].get(clip)
                    rows.append([len(rows), group, f"{group}_q{q_index}", clip, "BQA", f"{clip}.mp4",
                                 f"videos/{clip}.mp4", question["q"], answer, said])  # fmt: skip
    elif task == "mcq":
        header.append("choices")
        for group, clips in native.items():
            for clip, r in clips.items():
                rows.append(
                    [
                        len(rows),
                        group,
                        clip,
                        clip,
                        "MCQ",
                        f"{clip}.mp4",
                        f"videos/{clip}.mp4",
                        r["Question"],
                        r["Correct Answer"],
                        json.dumps(r["Choices"]),
                        r["Model Answer"],
                    ]
                )
    elif task == "tsh":
        for key, r in native.items():
            clip = r["video"]
            rows.append([len(rows), clip, key, clip, "TSH", f"{clip}.mp4", "", r["Question"],
                         r["Correct Answer"], r["Model Answer"]])  # fmt: skip
    else:
        header += ["answer_scene_change", "answer_locations"]
        gold = json.loads((VID / "sth.json").read_text(encoding="utf-8"))
        for clip, said in native.items():
            g = gold[clip]
            rows.append([len(rows), clip, clip, clip, "STH", f"{clip}.mp4", "", "Scene change?", "",
                         g["Scene change"], g.get("Locations"), said])  # fmt: skip
    return [*header, "prediction"], rows


NATIVE_GOLD = {"bqa": VID / "ach_binaryqa.json", "sth": VID / "sth.json"}


@pytest.mark.parametrize("suffix", ["xlsx", "tsv"])
@pytest.mark.parametrize("task", ["bqa", "mcq", "tsh", "sth"])
def test_vidhalluc_vlmevalkit_fork_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str, suffix: str
) -> None:
    # The fork's files carry their gold (answer columns): no --gold, and the native numbers.
    header, rows = vid_rows(task)
    path = tmp_path / f"Model_VideoHalluc_{task.upper()}.{suffix}"
    (write_xlsx if suffix == "xlsx" else write_tsv)(path, header, rows)
    native = [str(VID / "predictions" / task / "balanced.json"), "--task", task]
    if task in NATIVE_GOLD:
        native += ["--gold", str(NATIVE_GOLD[task])]
    same_numbers(score(capsys, "vidhalluc", str(path), "--task", task), score(capsys, "vidhalluc", *native))


def test_vidhalluc_fork_file_of_another_task_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header, rows = vid_rows("tsh")
    path = write_tsv(tmp_path / "Model_VideoHalluc_TSH.tsv", header, rows)
    assert main(["score", "vidhalluc", str(path), "--task", "mcq"]) == 2  # told apart as a TSH file
    assert "this is a vidhalluc tsh file, but --task is mcq" in capsys.readouterr().err
    rows[-1][header.index("task_type")] = "MCQ"  # one row of another task: the file's task is unclear
    mixed = write_tsv(tmp_path / "Model_VideoHalluc_mixed.tsv", header, rows)
    assert main(["score", "vidhalluc", str(mixed), "--task", "mcq"]) == 2  # the reader names the row
    assert "row 2: field 'task_type': 'TSH' is not MCQ" in capsys.readouterr().err


def test_items_reads_a_harness_file_like_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `items` on an lmms-eval file: the same item ids as the native file, for the same model answers.
    rows = [
        {"doc_id": i, "resps": [[r["pred"]]], "filtered_resps": [r["pred"]]}
        for i, r in enumerate(avh_records())
    ]
    path = write_jsonl(tmp_path / "samples_avh.jsonl", rows)
    assert main(["items", "avhbench", str(path), "--gold", str(AVH_GOLD), "--json"]) == 0
    harnessed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["items", "avhbench", str(AVH_NATIVE), "--json"]) == 0
    native = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["item_id"], r["raw_answer"], r["correct"]) for r in harnessed] == [
        (r["item_id"], r["raw_answer"], r["correct"]) for r in native
    ]
    # and the native key fields, so a script joins either file's items back to QA.json alike
    assert [(r["video_id"], r["text"]) for r in harnessed] == [(r["video_id"], r["text"]) for r in native]


@pytest.mark.parametrize("task", ["bqa", "mcq", "tsh", "sth"])
def test_items_of_a_fork_file_give_the_native_key_fields_of_the_native_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str
) -> None:
    header, rows = vid_rows(task)
    path = write_tsv(tmp_path / f"Model_VideoHalluc_{task.upper()}.tsv", header, rows)
    assert main(["items", "vidhalluc", str(path), "--task", task, "--json"]) == 0
    forked = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    native = [str(VID / "predictions" / task / "balanced.json"), "--task", task]
    if task in NATIVE_GOLD:
        native += ["--gold", str(NATIVE_GOLD[task])]
    assert main(["items", "vidhalluc", *native, "--json"]) == 0
    own = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    def keys(objects: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
        named = ("group", "q", "clip_id", "video", "video_id")  # VidHalluc's key fields, by task
        return {o["item_id"]: tuple(o.get(f) for f in named) for o in objects}

    by_fork, by_own = keys(forked), keys(own)
    assert by_fork and all(any(v) for v in by_fork.values())
    assert by_fork == {k: by_own[k] for k in by_fork}
