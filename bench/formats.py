"""Reading files from other pipelines: prints figures beside the native file's, asserts nothing.

The same CMM answers are written natively (JSONL), as VLMEvalKit xlsx / tsv and as lmms-eval
samples; each is loaded in this process and timed beside the native baseline, and the cost the
format sniffing adds to a native load is shown on its own.

Run: ``python bench/formats.py [--rows 20000]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import openpyxl  # type: ignore[import-untyped, unused-ignore]  # noqa: E402

from analysis.benchmarks import get  # noqa: E402
from analysis.files.harness import sniff  # noqa: E402

FIELDS = ["category", "sub_category", "modality", "granularity", "correlation_type", "video_path",
          "audio_path", "question", "answer"]  # fmt: skip


def rows(n: int) -> list[dict[str, object]]:
    subs = ["visual-language", "audio-language", "overrely_visual_ignore_audio"]
    return [{"category": "c", "sub_category": subs[i % 3], "modality": "visual",
             "granularity": "object-level", "correlation_type": "global_frequency",
             "video_path": f"./raw_files/v/{i // 2:08d}.mp4",
             "audio_path": None, "question": f"Did you see object {i}?", "answer": "yes" if i % 2 else "no",
             "pred": "Yes, there is." if i % 3 else "No."} for i in range(n)]  # fmt: skip


def best_of(action: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20000)
    n = parser.parse_args().rows
    data = rows(n)
    cmm = get("cmm")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        native = folder / "final_output.jsonl"
        native.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
        gold = folder / "all_data_final_reorg.jsonl"
        gold_rows = [json.dumps({k: r[k] for k in FIELDS}) + "\n" for r in data]
        gold.write_text("".join(gold_rows), encoding="utf-8")
        header = ["index", *FIELDS, "prediction"]
        table = [[i, *[r[k] for k in FIELDS], r["pred"]] for i, r in enumerate(data)]
        tsv = folder / "Model_CMM.tsv"
        with tsv.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, dialect="excel-tab").writerows([header, *table])
        xlsx = folder / "Model_CMM.xlsx"
        book = openpyxl.Workbook(write_only=True)
        sheet = book.create_sheet()
        for row in [header, *table]:
            sheet.append(row)
        book.save(xlsx)
        lmms = folder / "samples_cmm.jsonl"
        samples = [
            {"doc_id": i, "target": r["answer"], "resps": [[r["pred"]]], "filtered_resps": [r["pred"]]}
            for i, r in enumerate(data)
        ]
        lmms.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
        base = best_of(lambda: cmm.load(native))
        print(f"CMM, {n:,} rows (best of 3, same process)")
        print(f"  native JSONL          {base:7.3f} s   (baseline)")
        sniffing = best_of(lambda: sniff(native)) * 1000
        print(f"  format sniffing alone {sniffing:7.3f} ms  (part of every load)")
        for name, path, gold_path in (
            ("VLMEvalKit tsv", tsv, None),
            ("VLMEvalKit xlsx", xlsx, None),
            ("lmms-eval + --gold", lmms, gold),
        ):
            took = best_of(lambda p=path, g=gold_path: cmm.load(p, gold=g))
            print(f"  {name:21} {took:7.3f} s   ({took / base:.1f}x native)")


if __name__ == "__main__":
    main()
