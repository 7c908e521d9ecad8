"""``halluscope serve``: options parsed, Gradio imported only when serving, bad options exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analysis.cli import main as cli
from analysis.load import catalog
from analysis.load.cache import default_cache_dir
from analysis.review.access import Roles


def test_serve_passes_files_gold_and_media_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(app, "serve", lambda catalog, **kw: calls.append(("serve", catalog, kw)))

    def start_loading(files: list[Path], **kw: Any) -> Any:
        calls.append((files, kw))
        return lambda: "the catalog"

    monkeypatch.setattr(catalog, "start_loading", start_loading)
    (tmp_path / "cmm").mkdir()
    code = cli.main(
        [
            "serve",
            "a.jsonl",
            "b.json",
            "--gold",
            "g.json",
            "--media-root",
            f"CMM={tmp_path / 'cmm'}",
            "--media-root",
            f"cdh_bench={tmp_path}",
            "--port",
            "7999",
            "--adjudicator",
            "carol",
            "--adjudicator",
            "dave,erin",
            "--blind",
            "bob",
        ]
    )
    assert code == 0
    (files, kw), served = calls
    assert files == [Path("a.jsonl"), Path("b.json")]
    assert kw == {
        "gold": [Path("g.json")],
        "media_roots": {"cmm": [tmp_path / "cmm"], "cdh-bench": [tmp_path]},
        "cache_dir": default_cache_dir(),
    }
    roles = Roles(adjudicators=frozenset({"carol", "dave", "erin"}), blind=frozenset({"bob"}))
    assert served == ("serve", "the catalog", {"host": "127.0.0.1", "port": 7999, "roles": roles})


def test_serve_without_files_serves_the_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    import app

    seen: list[Any] = []
    monkeypatch.setattr(app, "serve", lambda catalog, **kw: None)
    monkeypatch.setattr(catalog, "start_loading", lambda files, **kw: seen.append(files) or (lambda: None))
    assert cli.main(["serve"]) == 0
    assert seen == [[catalog.SAMPLE_MANIFEST]]


def test_serve_finds_the_app_through_its_entry_point() -> None:
    """The core never imports the app: the installed entry point leads to it."""
    import app

    assert cli.server() is app.serve_command


def test_serve_without_the_app_installed_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    monkeypatch.setattr(catalog, "start_loading", lambda files, **kw: lambda: None)
    assert cli.main(["serve"]) == 2
    assert "pip install -e ." in capsys.readouterr().err


def test_start_loading_reports_a_bad_file_to_its_caller(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[")
    loaded = catalog.start_loading([bad])()
    assert loaded.table.empty and len(loaded.errors) == 1 and loaded.errors[0].startswith(str(bad))


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("cmm", "expects BENCH=DIR"),
        ("cmm=/no/such/folder", "no such folder"),
        ("cmmm={tmp}", "did you mean 'cmm'"),
    ],
)
def test_bad_media_root_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, message: str
) -> None:
    assert cli.main(["serve", "--media-root", option.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
