"""VidHalluc gold files: browsing them together, and auditing them and their videos."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.base import Finding
from analysis.cli.main import main
from analysis.errors import InputError

CHOICES = {"A": "jumping", "B": "running", "C": "walking", "D": "sitting"}
BQA = {
    "g1": [
        {"q": "Is someone jumping?", "a": {"g1_clip_1": "Yes", "g1_clip_2": "No"}},  # fine
        {"q": "Is someone running?", "a": {"g1_clip_1": "Yes", "g1_clip_2": "Yes"}},  # same gold: warning
    ],
    "g2": [
        {"q": "Is someone diving?", "a": {"g2_clip_1": "No", "g2_clip_2": "No"}},  # same gold: warning
        {"q": "Is someone swimming?", "a": {"g2_clip_1": "Maybe", "g2_clip_2": "No"}},  # bad gold
    ],
}
MCQ = {
    "g1": {
        "g1_clip_1": {"Question": "q", "Choices": CHOICES, "Correct Answer": "A"},  # fine
        "g1_clip_2": {"Question": "q", "Choices": {"A": "x", "B": "y", "C": "z"}, "Correct Answer": "B"},
        "g1_clip_3": {"Question": "q", "Choices": {**CHOICES, "D": " Jumping"}, "Correct Answer": "A"},
        "g1_clip_4": {"Question": "q", "Choices": CHOICES, "Correct Answer": "none"},  # N, O, N, E: no A-D
    },
    "g2": {
        "g2_clip_1": {
            "Question": "q",
            "Choices": {"A": "x", "B": "y", "C": "z", "E": "w"},
            "Correct Answer": "D",
        }
    },  # malformed and D not among the choices
}
TSH = {
    "0": {"video": "t0_clip", "Question": "q", "Correct Answer": "AB"},
    "1": {"video": "t1_clip", "Question": "q", "Correct Answer": "A"},
    "2": {"video": "t2_clip", "Question": "q", "Correct Answer": "AB."},
}
STH = {
    "s1": {"Scene change": "Yes", "Locations": "from a kitchen to a garden."},
    "s2": {"Scene change": "yes", "Locations": "from a to b."},
    "s3": {"Scene change": "Maybe", "Locations": "None"},
    "s4": {"Scene change": "Yes", "Locations": "kitchen, then garden"},
    "s5": {"Scene change": "No", "Locations": None},
}
# ftyp (24 bytes), an empty moov (8), an mdat of 12 bytes
MP4 = (
    b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    + b"\x00\x00\x00\x08moov"
    + b"\x00\x00\x00\x0cmdat1234"
)


def write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def gold_files(tmp_path: Path) -> list[Path]:
    # names chosen so detection must go by shape, except for the empty file named after its task
    return [
        write(tmp_path, "one.json", BQA),
        write(tmp_path, "two.json", MCQ),
        write(tmp_path, "three.json", TSH),
        write(tmp_path, "four.json", STH),
    ]


def by_check(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.check, []).append(f)
    return out


def test_gold_files_checks(gold_files: list[Path]) -> None:
    found = by_check(vidhalluc.audit(gold_files))
    same = found["same-gold-all-clips"]
    assert [f.where for f in same] == ["bqa group 'g1' question 1", "bqa group 'g2' question 0"]
    assert "Yes" in same[0].detail and "No" in same[1].detail and len(same[0].item_ids) == 2
    bad = {f.where: f for f in found["bad-gold"]}
    assert bad["bqa group 'g2' question 1 clip 'g2_clip_1'"].severity == "error"
    assert "holds no letter" in bad["mcq group 'g1', clip 'g1_clip_4'"].detail
    assert "not among the choices" in bad["mcq group 'g2', clip 'g2_clip_1'"].detail
    assert bad["tsh key '1'"].severity == "warning" and bad["tsh key '2'"].severity == "error"
    assert bad["sth video 's2'"].severity == "warning" and bad["sth video 's3'"].severity == "error"
    assert "mcq group 'g1', clip 'g1_clip_1'" not in bad and "tsh key '0'" not in bad
    assert sorted(f.where for f in found["malformed-options"]) == [
        "mcq group 'g1', clip 'g1_clip_2'",
        "mcq group 'g2', clip 'g2_clip_1'",
    ]
    assert [f.where for f in found["duplicate-options"]] == ["mcq group 'g1', clip 'g1_clip_3'"]
    assert [f.where for f in found["bad-locations"]] == ["sth video 's4'"]
    assert "missing-media" not in found  # no media root given


def test_finding_item_ids_match_loaded_rows(gold_files: list[Path]) -> None:
    ids = set(vidhalluc.load_gold(gold_files)["item_id"])
    for finding in vidhalluc.audit(gold_files):
        assert finding.item_ids and set(finding.item_ids) <= ids, finding


def test_media_checks(gold_files: list[Path], tmp_path: Path) -> None:
    root = tmp_path / "media"
    (root / "ACH_videos").mkdir(parents=True)
    (root / "TSH_videos" / "TSH_videos").mkdir(parents=True)  # the TSH zip nests a folder
    (root / "STH_videos").mkdir()
    clips = [f"g{g}_clip_{c}" for g, c in ((1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2))]
    for clip in clips:
        (root / "ACH_videos" / f"{clip}.mp4").write_bytes(MP4)
    (root / "ACH_videos" / "g1_clip_2.mp4").write_bytes(b"")  # empty
    (root / "ACH_videos" / "g2_clip_1.mp4").write_bytes(b"<html>404</html>")  # not an mp4
    (root / "ACH_videos" / "g2_clip_2.mp4").write_bytes(MP4[:-3])  # cut short: mdat runs past the end
    for clip in ("t0_clip", "t1_clip", "t2_clip"):
        (root / "TSH_videos" / "TSH_videos" / f"{clip}.mp4").write_bytes(MP4)
    (root / "TSH_videos" / "TSH_videos" / "t1_clip.mp4").write_bytes(MP4[:24])  # ftyp only, no moov
    for clip in ("s1", "s2", "s3", "s4"):  # s5 missing
        (root / "STH_videos" / f"{clip}.mp4").write_bytes(MP4)
    found = by_check(vidhalluc.audit(gold_files, media_root=root))
    assert [f.where for f in found["missing-media"]] == ["clip 's5'"]
    unreadable = {f.where: f for f in found["unreadable-media"]}
    assert set(unreadable) == {"clip 'g1_clip_2'", "clip 'g2_clip_1'", "clip 'g2_clip_2'", "clip 't1_clip'"}
    assert "empty" in unreadable["clip 'g1_clip_2'"].detail
    assert "ftyp" in unreadable["clip 'g2_clip_1'"].detail
    assert "truncated: box 'mdat'" in unreadable["clip 'g2_clip_2'"].detail
    assert "moov" in unreadable["clip 't1_clip'"].detail
    assert all(f.severity == "error" for f in unreadable.values())
    # g1_clip_2 is shown by two bqa questions and one mcq question
    assert len(unreadable["clip 'g1_clip_2'"].item_ids) == 3


def test_load_gold_combines_the_four_files(gold_files: list[Path]) -> None:
    table = vidhalluc.load_gold(gold_files)
    counts = table["task"].astype(str).value_counts().to_dict()
    assert counts == {"bqa": 8, "mcq": 5, "tsh": 3, "sth": 5}
    assert not table["scored"].any() and table["raw_answer"].isna().all()
    assert (table["model"] == "").all() and table["correct"].isna().all()
    assert table["item_id"].is_unique


def test_detection_by_name_and_failure(tmp_path: Path) -> None:
    assert len(vidhalluc.load_gold([write(tmp_path, "tsh.json", {})])) == 0
    with pytest.raises(InputError, match="cannot tell which VidHalluc file"):
        vidhalluc.load_gold([write(tmp_path, "mystery.json", {})])


def test_cli_audit_json(gold_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "vidhalluc", *map(str, gold_files), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["benchmark"] == "vidhalluc"
    assert {f["check"] for f in out["findings"]} >= {"same-gold-all-clips", "bad-gold", "malformed-options"}
