"""Telling a large JSON file's kind from its head: the same answer as parsing it whole."""

import json
from pathlib import Path

import pytest

from analysis.load import detect as detection
from analysis.load.catalog import load_paths
from analysis.load.detect import detect, json_head

ROOT = Path(__file__).resolve().parents[1]


def _manifest_predictions() -> list[Path]:
    manifest = json.loads((ROOT / "samples" / "manifest.json").read_text())
    return [ROOT / "samples" / p["path"] for e in manifest["benchmarks"].values() for p in e["predictions"]]


def _name(path: Path) -> str:
    return f"{path.parent.parent.name}-{path.parent.name}-{path.stem}"


@pytest.mark.parametrize("path", _manifest_predictions(), ids=_name)
def test_every_sample_file_is_told_alike_from_its_head_and_whole(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = detect(path)
    monkeypatch.setattr(detection, "WHOLE_BELOW", 0)  # every file told from its head
    assert detect(path) == whole


def test_the_head_holds_the_first_records_of_a_list_and_of_an_object(tmp_path: Path) -> None:
    listed = tmp_path / "l.json"
    listed.write_text(json.dumps([{"i": i} for i in range(100)]), encoding="utf-8")
    assert json_head(listed) == [{"i": i} for i in range(detection.SAMPLE)]
    keyed = tmp_path / "k.json"
    keyed.write_text(json.dumps({f"k{i}": {"v": i} for i in range(3)}, indent=2), encoding="utf-8")
    assert json_head(keyed) == {"k0": {"v": 0}, "k1": {"v": 1}, "k2": {"v": 2}}  # fewer than SAMPLE


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('[{"a": "' + "x" * 200 + '"}]', "the first record runs past the head read"),
        ('{"benchmarks": {}}', "a manifest is never told from its head"),
        ('[{"a": 1} {"a": 2}]', "malformed between records: the whole-file reader names the error"),
        ("  nope", "not JSON at all"),
    ],
)
def test_the_head_gives_up_where_it_cannot_be_sure(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    assert json_head(path, limit=100) is None, why


def test_a_large_file_broken_after_its_head_still_names_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = next(p for p in _manifest_predictions() if p.parent.parent.name == "avhbench")
    rows = json.loads(source.read_text())
    path = tmp_path / "avh.json"
    path.write_text(json.dumps(rows * 3)[:-1] + ', {"video_id": }]', encoding="utf-8")
    monkeypatch.setattr(detection, "WHOLE_BELOW", 0)
    assert detect(path).benchmark == "avhbench"  # told from the head...
    catalog = load_paths([path])
    assert len(catalog.errors) == 1 and str(path) in catalog.errors[0] and "line 1" in catalog.errors[0]
