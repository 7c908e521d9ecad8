"""Label-store benchmark: prints figures, asserts nothing.

Targets (issue 4, on a 2-core machine):
- 100,000 items: one relabel through to recomputed metrics (write the event, read current labels,
  ``apply_corrections``, the module's ``score``) in <= 100 ms, server side;
- 20 concurrent writer processes x 250 labels = 5,000 events on SQLite and on PostgreSQL:
  none lost, none doubled; throughput and per-write latency.

Run: ``python bench/store.py [--items 100000] [--writers 20] [--labels 250]``. PostgreSQL is
measured when ``HALLUSCOPE_TEST_PG_URL`` is set (``eval "$(bash scripts/pg.sh start)"``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.benchmarks import get  # noqa: E402
from analysis.store import (  # noqa: E402
    Identity,
    apply_corrections,
    current_labels,
    events_frame,
    metric_changes,
    open_store,
    relabel,
)

SUBS = [
    "overrely_visual_ignore_audio",
    "overrely_audio_ignore_visual",
    "overrely_language_ignore_visual",
    "visual-language",
    "audio-language",
    "visual-audio-language",
]
PREDS = ["Yes, there is one.", "No.", "yes", "No, I did not.", "Nothing like that.", "Sure, yes", "NO"]

WRITER = """
import json, sys, time
from pathlib import Path
from analysis.store import Identity, ItemRef, open_store, relabel
target, schema, name, count, go = sys.argv[1:6]
store = open_store(target, schema=schema or None, migrate=False)
me = Identity(name)
with store.engine.connect():
    pass
Path(go + "." + name).touch()  # ready: imported and connected
while not Path(go).exists():
    time.sleep(0.005)
lat = []
for i in range(int(count)):
    t = time.perf_counter()
    relabel(store, ItemRef("cmm", f"{name}-{i % 50}", "", None), "note", f"{name} {i}", me)
    lat.append(time.perf_counter() - t)
print(json.dumps(lat))
"""


def write_cmm(path: Path, rows: int) -> None:
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            out.write(
                json.dumps(
                    {
                        "category": "c",
                        "sub_category": SUBS[i % 6],
                        "modality": "visual",
                        "granularity": ("object-level", "event-level")[i % 2],
                        "correlation_type": "x",
                        "video_path": f"./raw_files/{i}.mp4",
                        "audio_path": None,
                        "question": f"Did you see thing {i}?",
                        "answer": ("yes", "no")[i % 2],
                        "pred": PREDS[rng.randrange(len(PREDS))],
                    }
                )
                + "\n"
            )


def relabel_to_metrics(items: int, tmp: Path) -> None:
    cmm = get("cmm")
    path = tmp / "cmm.jsonl"
    write_cmm(path, items)
    table = cmm.load(path)
    store = open_store(tmp / "data" / "labels.db")
    me = Identity("bench")
    flip = {"yes": "no", "no": "yes"}
    for i in range(12):  # a review already under way
        relabel(store, table.iloc[i * 997], "gold", flip[table["gold"].iat[i * 997]], me)
    official = cmm.score(table)
    timings: dict[str, list[float]] = {k: [] for k in ("relabel", "labels", "apply", "score", "total")}
    for round_ in range(15):
        row = table.iloc[50_000 + round_]
        start = time.perf_counter()
        relabel(store, row, "gold", flip[row["gold"]], me, "bench")
        t1 = time.perf_counter()
        labels = current_labels(store, "cmm")
        t2 = time.perf_counter()
        corrected = apply_corrections(table, labels)
        t3 = time.perf_counter()
        report = cmm.score(corrected)
        t4 = time.perf_counter()
        for key, value in zip(timings, (t1 - start, t2 - t1, t3 - t2, t4 - t3, t4 - start), strict=True):
            value *= 1000
            timings[key].append(value)
    print(
        f"relabel -> recomputed metrics, CMM, {items:,} items, {len(labels)} corrections (ms, median of 15):"
    )
    print("  " + "  ".join(f"{k} {statistics.median(v):.1f}" for k, v in timings.items()))
    print(f"  worst total {max(timings['total']):.1f} ms (target <= 100)")
    changes = metric_changes(official, report)
    print(f"  e.g. {changes[0][0]}: {changes[0][1]:.6f} -> {changes[0][2]:.6f}")
    store.close()


def concurrency(label: str, target: str, schema: str | None, writers: int, labels: int, tmp: Path) -> None:
    store = open_store(target, schema=schema)
    go = tmp / f"go-{uuid.uuid4().hex}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", WRITER, target, schema or ""]
    children = [
        subprocess.Popen(
            [*command, f"w{k}", str(labels), str(go)], stdout=subprocess.PIPE, text=True, env=env
        )
        for k in range(writers)
    ]
    while not all(Path(f"{go}.w{k}").exists() for k in range(writers)):  # every writer imported, connected
        time.sleep(0.05)
    start = time.perf_counter()
    go.touch()
    outputs = [child.communicate()[0] for child in children]
    elapsed = time.perf_counter() - start
    latencies = sorted(x * 1000 for out in outputs for x in json.loads(out.splitlines()[-1]))
    events = events_frame(store)
    expected = writers * labels
    lost = expected - events["event_id"].nunique()
    doubled = len(events) - events["event_id"].nunique()
    p50, p99 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)]
    print(
        f"{label}: {writers} writers x {labels} = {expected:,} labels: stored {len(events):,}, "
        f"lost {lost}, doubled {doubled}, {elapsed:.2f} s, {expected / elapsed:,.0f} labels/s; "
        f"latency p50 {p50:.1f} ms, p99 {p99:.1f} ms"
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--writers", type=int, default=20)
    parser.add_argument("--labels", type=int, default=250)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        relabel_to_metrics(args.items, tmp)
        concurrency("SQLite", str(tmp / "conc" / "labels.db"), None, args.writers, args.labels, tmp)
        url = os.environ.get("HALLUSCOPE_TEST_PG_URL")
        if url:
            schema = f"bench_{uuid.uuid4().hex[:12]}"
            concurrency("PostgreSQL", url, schema, args.writers, args.labels, tmp)
            from sqlalchemy import create_engine, text

            engine = create_engine(url)
            with engine.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            engine.dispose()
        else:
            print("PostgreSQL: skipped (HALLUSCOPE_TEST_PG_URL is not set)")


if __name__ == "__main__":
    main()
