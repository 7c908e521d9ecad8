"""Review through the running app: N gradio_client reviewers x M relabels each; prints figures.

Each reviewer signs in with its own password user and flips the gold of its own CMM items
through the ``/relabel`` endpoint; at the end the store must hold exactly N x M events, M per
reviewer. Prints throughput and per-call latency (p50 / p95 / max).

Run: ``python bench/review.py [--clients 20] [--labels 250]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import app  # noqa: E402
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest  # noqa: E402
from analysis.store import events_frame, open_store  # noqa: E402
from components.review.context import ReviewContext  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def work(job: tuple[str, tuple[str, str], str, str, int]) -> tuple[list[float], list[str]]:
    """One reviewer: flip its item's gold ``labels`` times; latencies and failures."""
    from gradio_client import Client

    url, user, item_id, official, labels = job
    other = {"yes": "no", "no": "yes"}[official]
    client = Client(url, auth=user, verbose=False)
    latencies, failures = [], []
    for n in range(labels):
        start = time.perf_counter()
        try:
            client.predict(item_id, "gold", other if n % 2 == 0 else official, "bench", api_name="/relabel")
        except Exception as exc:  # counted and printed, the run goes on
            failures.append(f"{user[0]}: {exc}")
            continue
        latencies.append(time.perf_counter() - start)
    return latencies, failures


def main() -> None:
    """Launch the app on the samples with a fresh store, run the clients, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--labels", type=int, default=250)
    args = parser.parse_args()
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    warnings.simplefilter("ignore")
    catalog = load_manifest(SAMPLE_MANIFEST)
    items = catalog.table[catalog.table["benchmark"] == "cmm"].drop_duplicates("item_id")
    if len(items) < args.clients:
        raise SystemExit(f"only {len(items)} CMM items for {args.clients} clients")
    users = [(f"r{i}", f"pw{i}") for i in range(args.clients)]
    store = open_store(Path(tempfile.mkdtemp()) / "labels.db")
    demo = app.build_app(catalog, ReviewContext(catalog, store, tuple(u for u, _ in users)))
    _, url, _ = demo.launch(
        prevent_thread_lock=True,
        server_name="127.0.0.1",
        server_port=_port(),
        quiet=True,
        auth=users,
        **app.launch_kwargs(catalog),
    )
    jobs = [
        (url, users[i], str(items.iloc[i]["item_id"]), str(items.iloc[i]["gold"]).lower(), args.labels)
        for i in range(args.clients)
    ]
    start = time.perf_counter()
    # one process per reviewer: in-process clients would share the server's GIL and measure it
    with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
        results = pool.map(work, jobs)
    wall = time.perf_counter() - start
    demo.close()
    events = events_frame(store)
    per = events["reviewer"].value_counts()
    latencies = [x for r in results for x in r[0]]
    failures = [f for r in results for f in r[1]]
    ms = sorted(x * 1000 for x in latencies)
    print(f"clients {args.clients} x labels {args.labels} = {args.clients * args.labels} relabels")
    print(
        f"events stored {len(events)} (expected {args.clients * args.labels}); "
        f"per reviewer min {per.min()} max {per.max()}; failures {len(failures)}"
    )
    print(f"wall {wall:.1f} s · {len(latencies) / wall:.1f} relabels/s")
    if ms:
        print(
            f"latency ms p50 {statistics.median(ms):.1f} · p95 {ms[int(len(ms) * 0.95) - 1]:.1f} "
            f"· max {ms[-1]:.1f}"
        )
    for line in failures[:5]:
        print("failure:", line)


if __name__ == "__main__":
    main()
