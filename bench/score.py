"""Scoring-core benchmark: prints figures, asserts nothing.

Targets (issue 2, on a 2-core machine):
- CMM, 1,000,000 rows: first load <= 6 s; re-open from the content-keyed cache <= 1 s;
  every metric and group recomputed <= 0.3 s and >= 10x faster than a plain per-record loop
  applying the same official rule (timed here, same process); peak memory <= 1.5 GB.
- DetailVerifyBench, 100,000 captions of about 200 tokens: scored in <= 20 s.

Run: ``python bench/score.py [--rows 1000000] [--captions 100000] [--end-to-end-only]``.

First, issue 13: ``halluscope score cmm`` end to end in a fresh process on a fresh file, beside
the per-record script (json.loads, the official rule, counts) and DuckDB's bare read with the rule
in SQL (the floor), at 100,000 rows and at ``--rows``; each figure with the load average.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.benchmarks import get  # noqa: E402
from analysis.load.catalog import load_paths  # noqa: E402

SUBS = [
    "overrely_visual_ignore_audio",
    "overrely_audio_ignore_visual",
    "overrely_language_ignore_visual",
    "visual-language",
    "audio-language",
    "visual-audio-language",
]
PREDS = [
    "Yes, there is a {o} in the video.",
    "No.",
    "yes",
    "No, I did not see a {o}.",
    "Nothing like that.",
    "Sure, yes",
    "I did not hear it.",
    "yes/no",
    "Yes.",
    "There is no {o}.",
    "NO",
    "unknown",
]
OBJECTS = ["river", "dog", "car", "piano", "bird", "tree", "siren", "crowd", "train", "guitar"]


def write_cmm(path: Path, rows: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            sub = SUBS[i % 6]
            obj = OBJECTS[rng.randrange(10)]
            clip = i // 2
            modality = "visual+audio" if sub == "visual-audio-language" else "visual"
            rec = {
                "category": "inter-modality_spurious_correlation",
                "sub_category": sub,
                "modality": modality,
                "granularity": "object-level" if clip % 3 else "event-level",
                "correlation_type": "global_frequency",
                "video_path": f"./raw_files/{sub}/{obj}/{clip:08d}.mp4",
                "audio_path": f"./raw_files/{sub}/{obj}/{clip:08d}.wav" if modality != "visual" else None,
                "question": f"Did you see {obj} in the video? Answer with yes or no. ({i % 2})",
                "answer": "yes" if i % 2 == 0 else "no",
                "pred": PREDS[rng.randrange(len(PREDS))].format(o=obj),
            }
            out.write(json.dumps(rec) + "\n")


WORDS = (  # noqa: SIM905 - a sentence of words reads better than a list literal
    "the a red blue small large chart bar line shows shows value axis label title person stands near "
    "window with jacket black-and-white 3.5 percent building tree sky river car dog holding cup "
    "wooden table left right top bottom background foreground bright dark green yellow"
).split()


def caption(rng: random.Random, n_tokens: int) -> tuple[str, str, str]:
    words = [rng.choice(WORDS) for _ in range(n_tokens)]
    sentences = []
    for start in range(0, n_tokens, 20):
        sentences.append(" ".join(words[start : start + 20]).capitalize() + ".")
    clean = " ".join(sentences)
    gold = clean
    spans = sorted(rng.sample(range(0, len(sentences)), k=min(2, len(sentences))))
    for idx in reversed(spans):
        parts = gold.split(". ")
        if idx < len(parts):
            seg = parts[idx].split(" ")
            seg[2:4] = ["<HALLUCINATION>" + " ".join(seg[2:4]) + "</HALLUCINATION>"]
            parts[idx] = " ".join(seg)
            gold = ". ".join(parts)
    pred = gold if rng.random() < 0.3 else clean.replace(" the ", " <HALLUCINATION>the</HALLUCINATION> ", 3)
    return clean, gold, pred


def write_dvb(path: Path, captions: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    domains = ["Chart", "Movie", "Nature", "Poster", "UI"]
    records = []
    for i in range(captions):
        clean, gold, pred = caption(rng, 200)
        records.append(
            {
                "id": i,
                "image_path": f"./test/{domains[i % 5]}/{i}.png",
                "original_caption": clean,
                "hallucinated_caption": clean,
                "gt_hallucinated_caption_with_tags": gold,
                "hallucinated_caption_with_tags": pred if i % 50 else "NO HALLUCINATION",
                "data_source": "synthetic",
                "is_use_original": False,
                "validation_passed": i % 97 != 0,
                "validation_message": "ok",
                "attempt": 1,
                "seed": 42,
                "raw_output": "<result>" + pred + "</result>",
            }
        )
    path.write_text(json.dumps(records), encoding="utf-8")


def timed(label: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    elapsed = time.perf_counter() - start
    print(f"{label:58s} {elapsed:8.3f} s")
    return value, elapsed


def per_record_baseline(path: Path) -> dict[str, list[int]]:
    """The official CMM rule and every CMM metric's counts, record by record, as a plain script would.

    Parsing the file is not timed; only the loop over the loaded records is.
    """
    groups: dict[str, list[int]] = {}
    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    start = time.perf_counter()
    for rec in records:
        head = rec["pred"].lower().strip()[:5]
        gold = rec["answer"].lower().strip()
        ok = gold in head
        pred_yes = "yes" in head
        pred_no = not pred_yes and "no" in head
        gold_yes = gold == "yes"
        keys = (
            "overall",
            rec["sub_category"],
            rec["granularity"],
            rec["granularity"] + "/" + rec["sub_category"],
        )
        for key in keys:
            c = groups.setdefault(key, [0, 0, 0, 0, 0, 0, 0])
            c[0] += 1
            c[1] += ok
            c[2] += pred_yes
            c[3] += pred_no
            c[4] += gold_yes
            c[5] += gold_yes and "yes" in head
            c[6] += (not gold_yes) and "no" in head
    metrics = {}
    for key, (n, right, p_yes, _p_no, g_yes, pa_hits, hr_hits) in groups.items():
        tp = pa_hits
        prec = tp / p_yes if p_yes else 0.0
        rec_ = tp / g_yes if g_yes else 0.0
        metrics[key] = [
            right / n,
            prec,
            rec_,
            2 * prec * rec_ / (prec + rec_) if prec + rec_ else 0.0,
            p_yes / n,
            hr_hits / (n - g_yes) if n - g_yes else 0.0,
        ]
    per_record_baseline.elapsed = time.perf_counter() - start  # type: ignore[attr-defined]
    return groups


NAIVE_SCRIPT = r"""
import json, sys
groups = {}
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        rec = json.loads(line)
        head = rec["pred"].strip().lower()[:5]
        gold = rec["answer"].strip().lower()
        gold_yes = "yes" in gold[:5]
        for key in ("overall", rec["sub_category"], rec["granularity"]):
            c = groups.setdefault(key, [0, 0, 0, 0, 0, 0, 0])
            c[0] += 1
            c[1] += gold in head
            c[2] += "yes" in head
            c[3] += gold_yes
            c[4] += not gold_yes
            c[5] += gold_yes and "yes" in head
            c[6] += (not gold_yes) and "no" in head
print(json.dumps({k: [v[1] / v[0], v[5] / max(v[3], 1), v[6] / max(v[4], 1)] for k, v in groups.items()}))
"""
"""The per-record script a researcher would write: json.loads each line, the official rule, counts."""

DUCKDB_SCRIPT = r"""
import duckdb, sys
print(duckdb.sql(
    "SELECT sub_category, granularity, count(*), "
    "count(*) FILTER (WHERE contains(left(lower(trim(pred)), 5), lower(trim(answer)))), "
    "count(*) FILTER (WHERE contains(left(lower(trim(pred)), 5), 'yes')), "
    "count(*) FILTER (WHERE contains(left(lower(trim(answer)), 5), 'yes')) "
    "FROM read_json($p, format='newline_delimited', columns={'sub_category': 'VARCHAR', "
    "'granularity': 'VARCHAR', 'answer': 'VARCHAR', 'pred': 'VARCHAR'}) GROUP BY ALL",
    params={"p": sys.argv[1]}).fetchall()[:1])
"""
"""The floor: DuckDB's bare read of the four fields and the rule in SQL (not exact for Unicode)."""


def loadavg() -> str:
    """The 1-minute load average (other engineers' jobs share the two cores)."""
    return Path("/proc/loadavg").read_text().split()[0]


def end_to_end(label: str, cmd: list[str], repeat: int = 3) -> float:
    """Best wall time of ``cmd`` in a fresh process (interpreter start and imports included)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    best = min(times)
    print(f"{label:58s} {best:8.3f} s   (load {loadavg()})")
    return best


def score_end_to_end(path: Path) -> dict[str, float]:
    """``halluscope score cmm`` beside the per-record script and the DuckDB floor, each a fresh process."""
    py = sys.executable
    cached = any((ROOT / "analysis").glob("__pycache__/*.pyc"))
    print(
        "  halluscope's bytecode: "
        + ("cached" if cached else "not cached, compiled in every run (PYTHONDONTWRITEBYTECODE?)")
    )
    naive = end_to_end(
        "  per-record script (json.loads + rule + counts)", [py, "-c", NAIVE_SCRIPT, str(path)]
    )
    floor = end_to_end("  DuckDB bare read + rule in SQL (the floor)", [py, "-c", DUCKDB_SCRIPT, str(path)])
    ours = end_to_end(
        "  halluscope score cmm --json", [py, "-m", "analysis.cli", "score", "cmm", str(path), "--json"]
    )
    print(f"{'  halluscope vs the per-record script':58s} {naive / ours:8.2f} x")
    print(f"{'  halluscope vs the DuckDB floor':58s} {floor / ours:8.2f} x")
    return {"naive": naive, "floor": floor, "ours": ours}


def memory_child(path: Path) -> None:
    bench = get("cmm")
    table = bench.load(path)
    bench.score(table)
    print(json.dumps({"peak_mb": peak_rss_mb(), "rows": len(table)}))


def peak_rss_mb() -> float:
    """Peak resident memory of the current process (VmHWM).

    Not ``getrusage``'s ``ru_maxrss``: Linux carries that across fork and exec, so a child would
    report its parent's peak.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--captions", type=int, default=100_000)
    parser.add_argument("--memory-child", type=Path)
    parser.add_argument(
        "--end-to-end-only",
        action="store_true",
        help="only the end-to-end score figures, at 100,000 rows and at --rows",
    )
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        figures = {}
        for rows in sorted({100_000, args.rows}):
            path = folder / f"cmm-{rows}.jsonl"
            write_cmm(path, rows)
            print(f"score cmm end to end, fresh {rows:,}-row file ({path.stat().st_size / 1e6:.0f} MB)")
            figures[rows] = score_end_to_end(path)
            path.unlink()
        if args.end_to_end_only:
            return
        cmm_file = folder / "final_output.json"
        timed(f"write {args.rows:,} synthetic CMM rows", write_cmm, cmm_file, args.rows)
        print(f"{'  file size':58s} {cmm_file.stat().st_size / 1e6:8.1f} MB")
        cmm = get("cmm")
        table, load_s = timed("CMM first load (parse + item table)", cmm.load, cmm_file)
        cache = folder / "cache"
        first, _ = timed(
            "CMM load through the catalog cache (miss: load + index + store)",
            load_paths,
            [cmm_file],
            cache_dir=cache,
        )
        first.saved_entry()  # the entry is written behind the load: wait, so the next one restores it
        _, reopen_s = timed(
            "CMM re-open from the catalog cache (hash + memory-mapped Arrow + index)",
            load_paths,
            [cmm_file],
            cache_dir=cache,
        )
        _, cached_score_s = timed(
            "CMM cached file, re-open + every metric (in process)",
            lambda: cmm.score(load_paths([cmm_file], cache_dir=cache).table),
        )
        best = min(timed("CMM score: every metric and group", cmm.score, table)[1] for _ in range(3))
        per_record_baseline(cmm_file)
        loop_s = per_record_baseline.elapsed  # type: ignore[attr-defined]
        print(f"{'per-record loop, same official rule and metrics':58s} {loop_s:8.3f} s")
        print(f"{'  speed-up of column scoring over the loop':58s} {loop_s / best:8.1f} x")
        child = subprocess.run(
            [sys.executable, __file__, "--memory-child", str(cmm_file)],
            capture_output=True,
            text=True,
            check=True,
        )
        peak = json.loads(child.stdout.strip().splitlines()[-1])["peak_mb"]
        print(f"{'CMM peak memory, load + score in a fresh process':58s} {peak:8.0f} MB")
        del table

        dvb_file = folder / "tested_model_output_seed_42.json"
        timed(f"write {args.captions:,} DetailVerifyBench captions", write_dvb, dvb_file, args.captions)
        dvb = get("detailverifybench")
        dvb_table, dvb_load = timed("DetailVerifyBench load", dvb.load, dvb_file)
        _, dvb_score = timed("DetailVerifyBench score (official)", dvb.score, dvb_table)
        print(f"{'DetailVerifyBench load + score':58s} {dvb_load + dvb_score:8.3f} s")
        print()
        print(
            "targets: load <= 6 s, re-open <= 1 s, score <= 0.3 s and >= 10x loop, peak <= 1500 MB,"
            " 100k captions <= 20 s"
        )
        print(
            f"measured: load {load_s:.2f} s, re-open {reopen_s:.2f} s, cached file re-open + score "
            f"{cached_score_s:.2f} s (issue 13 target <= 0.5 s), score {best:.3f} s "
            f"({loop_s / best:.0f}x), peak {peak:.0f} MB, captions {dvb_load + dvb_score:.1f} s"
        )


if __name__ == "__main__":
    main()
