"""One default label store for the app and the command line, and the read-only demo without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corrections_support import corrections, sample_runs, write_jsonl, wrong_first

import app
from analysis.cli.main import main
from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.store.labels import current_labels


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples not generated (python samples/generate.py)")
    return load_manifest(SAMPLE_MANIFEST)


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No ``$HALLUSCOPE_DATA_DIR``, a per-user data folder in ``tmp_path``, and a working directory
    that is neither the checkout nor that folder."""
    monkeypatch.delenv("HALLUSCOPE_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    cwd = tmp_path / "somewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return tmp_path


def _import_two(capsys: pytest.CaptureFixture[str], *db: str) -> None:
    name, _task, pred, _gold, _ = next(r for r in sample_runs() if r[0] == "cmm")
    assert main(["items", name, str(pred), "--json"]) == 0
    items = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    fixes = write_jsonl(Path.cwd() / "fixes.jsonl", corrections(items, wrong_first(items, 2)))
    imported = ["import", name, str(fixes), *db, "--reviewer", "alice", "--gold", str(pred)]
    assert main(imported) == 0, capsys.readouterr().err
    capsys.readouterr()


def test_what_import_writes_by_default_is_what_the_app_shows(
    catalog: Catalog, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _import_two(capsys)  # no --db: the default store
    ctx = app.open_review(catalog)  # no db, no data_dir: the default store
    try:
        assert ctx.store is not None and ctx.store.path == elsewhere / "xdg" / "halluscope" / "halluscope.db"
        assert len(current_labels(ctx.store, "cmm")) == 2
    finally:
        ctx.store.close()
    assert not (Path.cwd() / "data").exists()  # nothing lands under the working directory


def test_halluscope_data_dir_moves_both(
    catalog: Catalog, elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HALLUSCOPE_DATA_DIR", str(elsewhere / "team"))
    _import_two(capsys)
    ctx = app.open_review(catalog)
    try:
        assert ctx.store is not None and ctx.store.path == elsewhere / "team" / "halluscope.db"
        assert len(current_labels(ctx.store, "cmm")) == 2
    finally:
        ctx.store.close()


def test_a_data_folder_that_cannot_be_written_gives_the_read_only_demo(
    catalog: Catalog, elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = elsewhere / "a-file"
    blocker.write_text("not a folder")  # a folder below a file cannot be made, even by root
    monkeypatch.setenv("HALLUSCOPE_DATA_DIR", str(blocker / "data"))
    ctx = app.open_review(catalog, users=[("alice", "pw")])
    assert ctx.store is None  # the review handlers refuse every write without a store
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(blocker / "data") in err[0] and "read-only" in err[0], err
    ctx = app.open_review(catalog, data_dir=blocker / "sub")
    assert ctx.store is None
