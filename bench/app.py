"""Reviewer app timings with 100,000 items: handlers on the server, and a cold start (figures printed).

Targets (issue 3): selecting an item <= 50 ms; changing a filter, with the table page and every
chart, <= 300 ms; cold start to the first served page <= 8 s. Issue 13, at 1,000,000 rows:
select / next <= 30 ms, filter change <= 300 ms, cold load <= 15 s, restart with the cache <= 3 s,
peak memory <= 2 GB; clicks are printed beside the same click with a table scan (the code before).
No assertions: this prints figures, each with the load average of the shared machine.

The 100,000 rows are native files made by replicating the bundled samples' prediction files with
distinct keys (CMM, CDH-Bench, AVHBench, DetailVerifyBench, VidHalluc TSH and MCQ), so the loaders,
the catalog and the app run exactly as on real files.

    python bench/app.py [--rows 100000 1000000] [--no-cold-start]

Each cold load is printed beside three baselines run in the same process tree on the same files:
the per-record script (json.loads of every record, no item table: what a plain script costs just
to read the files), DuckDB's bare parse of every file (the floor: each record found, none read
into fields) and DuckDB reading every record into Arrow columns (what the least loader would do).
The cold start to the first served page is printed with the moments the server said it reached
each step (its ``halluscope:`` messages), so a slower start shows which step took the time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.load.catalog import Catalog, load_paths  # noqa: E402 - after the path set-up above
from analysis.query import ALL, filter_rows  # noqa: E402 - filter_rows: the baseline scan
from components.browse import charts, navigate  # noqa: E402
from components.browse import page as browse  # noqa: E402

SAMPLES = ROOT / "samples"


def _copies(
    records: list[dict[str, Any]], k: int, key: str, fmt: Callable[[Any, int], Any]
) -> list[dict[str, Any]]:
    return [{**r, key: fmt(r[key], c)} for c in range(k) for r in records]


def synthesize(folder: Path, rows: int) -> list[Path]:
    """Native prediction files whose item tables add up to about ``rows`` rows."""
    manifest = json.loads((SAMPLES / "manifest.json").read_text())
    preds = {b: [SAMPLES / p["path"] for p in e["predictions"]] for b, e in manifest["benchmarks"].items()}
    per_copy = 0
    sources: list[tuple[str, Path]] = []
    for bench, paths in preds.items():
        for path in paths:
            if bench == "vidhalluc" and path.parent.name not in ("tsh", "mcq"):
                continue
            sources.append((bench, path))
            per_copy += _count(bench, path)
    k = max(1, round(rows / per_copy))
    out = []
    for bench, path in sources:
        target = folder / bench / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        _replicate(bench, path, target, k)
        out.append(target)
    return out


def _count(bench: str, path: Path) -> int:
    if path.suffix == ".jsonl":
        return sum(1 for line in path.read_text().splitlines() if line.strip())
    data = json.loads(path.read_text())
    if bench == "vidhalluc" and path.parent.name == "mcq":
        return sum(len(v) for v in data.values())
    return len(data)


def _replicate(bench: str, path: Path, target: Path, k: int) -> None:
    if path.suffix == ".jsonl":
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        key = "pair_id" if bench == "cdh-bench" else "question"
        copies = _copies(records, k, key, lambda v, c: f"{v} #{c}")
        target.write_text("\n".join(json.dumps(r) for r in copies) + "\n")
        return
    data = json.loads(path.read_text())
    if isinstance(data, dict):  # VidHalluc tsh / mcq: keys made distinct
        target.write_text(json.dumps({f"{key}-{c}": value for c in range(k) for key, value in data.items()}))
    elif bench == "avhbench":
        target.write_text(json.dumps(_copies(data, k, "text", lambda v, c: f"{v} #{c}")))
    else:  # DetailVerifyBench: distinct ids (the image file name, with the copy's number)
        target.write_text(json.dumps(_copies(data, k, "id", lambda v, c: f"{c}-{v}")))


def median_ms(fn: Callable[[], Any], repeat: int = 7) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def filters(bench: str, **kw: Any) -> list[Any]:
    values = {
        "benchmark": bench,
        "models": [],
        "task": ALL,
        "category": ALL,
        "wrong": False,
        "dependent": False,
        "flagged": False,
        "search": "",
    }
    values.update(kw)
    return list(values.values())


def refresh(cat: Catalog, values: list[Any]) -> None:
    """What the app's filter-change handler does: filter once, then the page and every chart."""
    f = browse.filters_from(*values)
    rows = filter_rows(cat.table, f)
    browse.show_page(cat, f, 1, rows)
    charts.chart_updates(cat, f, rows)


def loadavg() -> str:
    """The 1-minute load average (other engineers' jobs share the two cores)."""
    return Path("/proc/loadavg").read_text().split()[0]


RESTART = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
from analysis.load.catalog import load_paths
cat = load_paths([Path(p) for p in sys.argv[2:]], cache_dir=Path(sys.argv[1]))
took = time.perf_counter() - start
hwm = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM")][0]
print(json.dumps({"seconds": took, "rows": len(cat.table), "peak_mb": int(hwm.split()[1]) / 1024}))
"""


PER_RECORD = """
import json, sys
records = 0
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as handle:
        if name.endswith(".jsonl"):
            records += sum(1 for line in handle if line.strip() and json.loads(line) is not None)
        else:
            value = json.load(handle)
            records += len(value)
print(records)
"""
"""The per-record baseline: every record parsed with the standard library, nothing built."""

DUCKDB_FLOOR = """
import duckdb, sys
total = 0
for name in sys.argv[1:]:
    layout = "newline_delimited" if name.endswith(".jsonl") else "auto"
    total += duckdb.execute("SELECT count(*) FROM read_json_objects($p, format = '" + layout + "')",
                            {"p": name}).fetchone()[0]
print(total)
"""
"""The floor: DuckDB parsing every top-level JSON value of every file (all cores), nothing built."""

DUCKDB_COLUMNS = """
import duckdb, sys
rows = 0
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        keyed = handle.read(4096).lstrip().startswith(b"{") and not name.endswith(".jsonl")
    if keyed:  # one object keyed by item: a row per key, its value as JSON (one column per key else)
        query = ("SELECT unnest(map_keys(m)) AS key, unnest(map_values(m)) AS value FROM (SELECT json::"
                 "MAP(VARCHAR, JSON) AS m FROM read_json_objects($p, maximum_object_size = 1000000000))")
    else:
        layout = "newline_delimited" if name.endswith(".jsonl") else "array"
        query = f"SELECT * FROM read_json($p, format = '{layout}', maximum_object_size = 1000000000)"
    rows += duckdb.sql(query, params={"p": name}).to_arrow_table().num_rows
print(rows)
"""
"""DuckDB reading every record of every file into Arrow columns, typed by its own schema inference
(all cores): the least a loader that hands back columns must do, with none of the checks."""


def baseline_seconds(script: str, files: list[Path]) -> float:
    """Wall time of ``script`` over ``files`` in a fresh process (interpreter start included)."""
    start = time.perf_counter()
    cmd = [sys.executable, "-c", script, *map(str, files)]
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def in_fresh_process(cache: Path, files: list[Path], cold: bool) -> dict[str, float]:
    """Load (cold: the cache emptied first) in a fresh process: seconds (imports included), peak memory."""
    if cold:
        for entry in cache.glob("*"):
            entry.unlink()
    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(cache), *map(str, files)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def click_baselines(cat: Catalog) -> None:
    """Each click beside the same click scanning the table again (the code before issue 13)."""
    values = filters("cdh-bench", wrong=True)
    f = browse.filters_from(*values)
    frame, _, _ = browse.show_page(cat, f, 1)
    row = frame.iloc[7].tolist()
    current = int(row[0])
    scan = median_ms(lambda: filter_rows(cat.table, f))
    remembered = median_ms(lambda: cat.rows_for(f))
    label = "  baseline: filter scan a click repeated before (cdh wrong)"
    print(f"{label:58} {scan:10.1f}   (load {loadavg()})")
    print(f"{'  now: the remembered view of the filters in force':58} {remembered:10.3f}")
    select = median_ms(lambda: navigate.select_row(cat, row, values))
    step = median_ms(lambda: navigate.step_item(cat, 1, current, 1, values))
    print(f"{'  select an item: now / baseline (now + a scan)':58} {select:10.1f} / {select + scan:.1f}")
    print(f"{'  next item: now / baseline (now + a scan)':58} {step:10.1f} / {step + scan:.1f}")


def handler_figures(cat: Catalog) -> None:
    print(f"{'handler':58} {'median ms':>10}   (load {loadavg()})")
    for bench in cat.benchmarks():
        n = int((cat.table["benchmark"] == bench).sum())
        for label, values in (
            ("benchmark", filters(bench)),
            ("+ wrong only", filters(bench, wrong=True)),
            ("+ search 'the'", filters(bench, wrong=True, search="the")),
        ):
            ms = median_ms(lambda v=values: refresh(cat, v), repeat=5)
            print(f"filter change {bench:18} {label:16} ({n:6,} rows) {ms:10.1f}")
    every = median_ms(lambda: refresh(cat, filters(ALL)), 3)
    print(f"{'filter change, all benchmarks at once':58} {every:10.1f}")
    values = filters("cdh-bench", wrong=True)
    frame, _, _ = browse.show_page(cat, browse.filters_from(*values), 1)
    row = frame.iloc[7].tolist()
    print(
        f"{'select an item (row values -> inspector)':58} "
        f"{median_ms(lambda: navigate.select_row(cat, row, values)):10.1f}"
    )
    current = int(row[0])
    step = median_ms(lambda: navigate.step_item(cat, 1, current, 1, values))
    print(f"{'next item (keyboard n)':58} {step:10.1f}")
    dvb = filters("detailverifybench")
    frame, _, _ = browse.show_page(cat, browse.filters_from(*dvb), 1)
    dvb_row = frame.iloc[3].tolist()
    print(
        f"{'select a DetailVerifyBench item (span view)':58} "
        f"{median_ms(lambda: navigate.select_row(cat, dvb_row, dvb)):10.1f}"
    )
    print(
        f"{'change page':58} "
        f"{median_ms(lambda: browse.show_page(cat, browse.filters_from(*values), 3)):10.1f}"
    )


def cold_start(files: list[Path]) -> None:
    """Start ``halluscope serve`` in a fresh process; time until the page and the first view answer."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cache = tempfile.mkdtemp(prefix="halluscope-cold-")  # cold: not the cache of an earlier run
    env = {
        **os.environ,
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONPATH": str(ROOT),
        "HALLUSCOPE_CACHE_DIR": cache,
    }
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "analysis.cli", "serve", *map(str, files), "--port", str(port)]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace"
    )
    seen = _milestones(proc, start)
    url = f"http://127.0.0.1:{port}/"
    try:
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    print("cold start: the server exited")
                    return
                time.sleep(0.05)
        page = time.perf_counter() - start
        from gradio_client import Client

        Client(url, verbose=False).predict(*filters("avhbench"), api_name="/view")
        first_view = time.perf_counter() - start
        for label, at in seen.items():  # what the server said, when: where the start went
            print(f"  {label:56} {at * 1000:10.0f}")
        print(f"{'cold start to the first served page':58} {page * 1000:10.0f}")
        print(f"{'cold start to the first page of items and charts':58} {first_view * 1000:10.0f}")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(cache, ignore_errors=True)


_MILESTONES = (
    ("loading ", "files told apart, the workers asked to read them"),
    ("indexing...", "every file read; stacking and indexing"),
    (" rows from ", "table indexed; then the catalog, the app, its launch"),
)
"""(start of the ``halluscope:`` line the server prints, what it marks) of a cold start."""


def _milestones(proc: subprocess.Popen[str], start: float) -> dict[str, float]:
    """Seconds from ``start`` at which the server printed each milestone, filled in as it prints.

    A thread reads the server's messages to the end (a full pipe would stop the server).
    """
    seen: dict[str, float] = {}

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            for marker, label in _MILESTONES:
                if label not in seen and line.startswith("halluscope:") and marker in line:
                    seen[label] = time.perf_counter() - start

    threading.Thread(target=read, daemon=True).start()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--no-cold-start", action="store_true")
    args = parser.parse_args()
    for rows in args.rows:
        print(f"== about {rows:,} rows ==")
        run(rows, cold_start_too=not args.no_cold_start)


def run(rows: int, *, cold_start_too: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = synthesize(Path(tmp), rows)
        os.sync()  # the new files on disk first: their write-back is not the loaders' cost
        cache = Path(tmp) / "cache"
        cache.mkdir()
        size = sum(f.stat().st_size for f in files) / 1e6
        naive = baseline_seconds(PER_RECORD, files)
        floor = baseline_seconds(DUCKDB_FLOOR, files)
        columns = baseline_seconds(DUCKDB_COLUMNS, files)
        cold = in_fresh_process(cache, files, cold=True)
        print(
            f"{'cold load of every file, fresh process (ms)':58} {cold['seconds'] * 1000:10.0f}   "
            f"(load {loadavg()}; peak {cold['peak_mb']:.0f} MB; {cold['rows']:,.0f} rows; {size:,.0f} MB)"
        )
        print(f"{'  baseline: per-record json.loads of every file (ms)':58} {naive * 1000:10.0f}")
        print(f"{'  floor: DuckDB parsing every file (ms)':58} {floor * 1000:10.0f}")
        print(f"{'  DuckDB reading every record into Arrow columns (ms)':58} {columns * 1000:10.0f}")
        print(f"{'  cold load / floor; / DuckDB columns':58} {cold['seconds'] / floor:10.1f}x; "
              f"{cold['seconds'] / columns:.1f}x")  # fmt: skip
        warm = in_fresh_process(cache, files, cold=False)
        print(
            f"{'restart with the cache, fresh process (ms)':58} {warm['seconds'] * 1000:10.0f}   "
            f"(load {loadavg()}; peak {warm['peak_mb']:.0f} MB)"
        )
        start = time.perf_counter()
        cat = load_paths(files, cache_dir=cache)
        load = time.perf_counter() - start
        counts = cat.table.groupby("benchmark", observed=True).size().to_dict()
        print(f"{len(cat.table):,} rows from {len(files)} native files ({counts}); errors: {len(cat.errors)}")
        print(f"{'load and index in process, from the cache (ms)':58} {load * 1000:10.0f}")
        click_baselines(cat)
        handler_figures(cat)
        if cold_start_too:
            cold_start(files)


if __name__ == "__main__":
    main()
