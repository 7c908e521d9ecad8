"""Five clients relabel concurrently through the running app with its store on PostgreSQL.

The same load as the SQLite test in ``test_review_ui.py`` (5 reviewers x 20 relabels through the
public ``/relabel`` endpoint), on a fresh schema of the database named by ``HALLUSCOPE_TEST_PG_URL``
(skipped when unset; start one with ``eval "$(bash scripts/pg.sh start)"``): exactly 100 events,
each one an event id a client got back, none lost or doubled, 20 per reviewer in call order.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from app_data import GRADIO_LOOP_WARNINGS, close_gradio_loop
from store_support import backend_target, drop_schema

import app
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.store import Store, current_labels, events_frame, open_store
from components.review.context import ReviewContext

pytestmark = [*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")]
__all__ = ["close_gradio_loop"]
CLIENTS, CALLS = 5, 20
FLIP = {"yes": "no", "no": "yes"}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def pg_store(tmp_path: Path) -> Iterator[Store]:
    """A migrated store in a schema of its own on PostgreSQL, dropped after the test."""
    url, schema = backend_target("postgresql", tmp_path)  # skips when the URL is unset
    assert schema is not None
    store = open_store(url, schema=schema)
    try:
        yield store
    finally:
        store.close()
        drop_schema(url, schema)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_five_clients_relabel_concurrently_through_the_app_on_postgresql(
    pg_store: Store, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_module = pytest.importorskip("gradio_client")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    assert pg_store.dialect == "postgresql"
    users = [(f"r{i}", f"pw{i}") for i in range(CLIENTS)]
    ctx = ReviewContext(catalog, pg_store, tuple(u for u, _ in users))
    demo = app.build_app(catalog, ctx)
    _, url, _ = demo.launch(
        prevent_thread_lock=True,
        server_name="127.0.0.1",
        server_port=_free_port(),
        quiet=True,
        auth=users,
        **app.launch_kwargs(catalog),
    )
    rows = catalog.table[catalog.table["benchmark"] == "cmm"].drop_duplicates("item_id").head(CLIENTS)
    cmm, official = rows["item_id"].astype(str).tolist(), rows["gold"].str.lower().tolist()
    returned: list[list[str]] = [[] for _ in range(CLIENTS)]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            client = client_module.Client(url, auth=users[i], verbose=False)
            for n in range(CALLS):
                value = FLIP[official[i]] if n % 2 == 0 else official[i]  # every call is a real change
                returned[i].append(
                    str(client.predict(cmm[i], "gold", value, f"run {n}", api_name="/relabel"))
                )
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads), "a client hung"
    finally:
        demo.close()
    assert not errors, errors
    events = events_frame(pg_store)
    assert len(events) == CLIENTS * CALLS and events["event_id"].is_unique
    assert sorted(events["reviewer"].value_counts().tolist()) == [CALLS] * CLIENTS
    for i, (user, _) in enumerate(users):
        mine = events[events["reviewer"] == user]
        assert mine["event_id"].tolist() == returned[i]  # stored in the order the calls returned
        assert set(mine["item_key"]) == {cmm[i]}
        assert mine["new_value"].tolist() == [FLIP[official[i]], official[i]] * (CALLS // 2)
        assert mine["old_value"].tolist()[1:] == mine["new_value"].tolist()[:-1]
    labels = current_labels(pg_store, "cmm")
    # an even number of flips: every label is back at the official gold
    assert dict(zip(labels["item_id"], labels["value"], strict=True)) == dict(zip(cmm, official, strict=True))
