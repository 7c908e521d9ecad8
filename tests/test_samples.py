"""The bundled sample sets (samples/): deterministic, complete, playable, small, and loadable."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import pytest

from analysis.benchmarks import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
GENERATOR = SAMPLES / "generate.py"
IDS = tuple(REGISTRY)
MODELS = ("yes-biased", "balanced", "commonsense-prior")
MAX_BYTES = 15 * 1024 * 1024


def _generate(out: Path) -> None:
    subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(out), "--no-media"],
        check=True,
        capture_output=True,
        text=True,
    )


def _data_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.suffix in (".json", ".jsonl", ".md") and "media" not in p.parts
    }


def _need_samples() -> None:
    if not (SAMPLES / "manifest.json").exists():
        pytest.skip("samples/ not generated: run `python samples/generate.py`")


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    _need_samples()
    data: dict[str, Any] = json.loads((SAMPLES / "manifest.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def media_index() -> dict[str, dict[str, Any]]:
    _need_samples()
    data: dict[str, dict[str, Any]] = json.loads((SAMPLES / "media.json").read_text(encoding="utf-8"))
    return data


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---------------------------------------------------------------- determinism


def test_json_outputs_are_byte_identical_across_runs(tmp_path: Path) -> None:
    _generate(tmp_path / "a")
    _generate(tmp_path / "b")
    first, second = _data_files(tmp_path / "a"), _data_files(tmp_path / "b")
    assert len(first) >= 30  # 5 gold sets, 3 models each (x4 tasks for vidhalluc), 2 indexes
    assert first == second


def test_committed_samples_match_the_generator(tmp_path: Path) -> None:
    _need_samples()
    _generate(tmp_path)
    fresh, committed = _data_files(tmp_path), _data_files(SAMPLES)
    assert sorted(committed) == sorted(fresh), "stale or missing sample files: rerun samples/generate.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"samples out of date, rerun samples/generate.py: {stale}"


# ---------------------------------------------------------------- manifest and media


def test_manifest_lists_every_benchmark_with_existing_files(manifest: dict[str, Any]) -> None:
    assert tuple(manifest["benchmarks"]) == IDS
    for bench, entry in manifest["benchmarks"].items():
        assert entry["media_root"] == f"{bench}/media"
        assert (SAMPLES / entry["media_root"]).is_dir()
        assert entry["gold"] and all((SAMPLES / g).is_file() for g in entry["gold"])
        for pred in entry["predictions"]:
            path = SAMPLES / pred["path"]
            assert path.is_file(), pred
            assert pred["model"] == path.stem and pred["model"] in MODELS
            assert pred["gold"] is None or (SAMPLES / pred["gold"]).is_file()
        tasks = {p["task"] for p in entry["predictions"]}
        expected = {"bqa", "mcq", "tsh", "sth"} if bench == "vidhalluc" else {None}
        assert tasks == expected
        assert len(entry["predictions"]) == len(MODELS) * len(expected)


def test_media_index_matches_the_files_on_disk(media_index: dict[str, dict[str, Any]]) -> None:
    on_disk = {
        p.relative_to(SAMPLES).as_posix()
        for bench in IDS
        for p in (SAMPLES / bench / "media").rglob("*")
        if p.is_file()
    }
    assert on_disk == set(media_index)
    broken = [p for p, info in media_index.items() if info.get("broken")]
    assert broken == [
        "vidhalluc/media/" + b
        for b in json.loads((SAMPLES / "manifest.json").read_text())["benchmarks"]["vidhalluc"][
            "known_bad_media"
        ]
    ]
    assert len(broken) == 1


def _referenced_media() -> dict[str, set[str]]:
    """Media each benchmark's data files point at, as paths relative to samples/."""
    refs: dict[str, set[str]] = {b: set() for b in IDS}
    for rec in json.loads((SAMPLES / "avhbench/QA.json").read_text()):
        refs["avhbench"].add(f"avhbench/media/{rec['video_id']}.mp4")
    for row in _read_jsonl(SAMPLES / "cmm/all_data_final_reorg.json"):
        for key in ("video_path", "audio_path"):
            if row[key] not in (None, "None"):
                refs["cmm"].add("cmm/media/" + row[key].replace("./raw_files/", "reorg_raw_files/"))
    vid = SAMPLES / "vidhalluc"
    clips = {
        c for qs in json.loads((vid / "ach_binaryqa.json").read_text()).values() for q in qs for c in q["a"]
    }
    clips |= {c for g in json.loads((vid / "ach_mcq.json").read_text()).values() for c in g}
    clips |= {r["video"] for r in json.loads((vid / "tsh.json").read_text()).values()}
    clips |= set(json.loads((vid / "sth.json").read_text()))
    refs["vidhalluc"] = {f"vidhalluc/media/{c}.mp4" for c in clips}
    for model in MODELS:
        for rec in _read_jsonl(SAMPLES / f"cdh-bench/predictions/{model}.jsonl"):
            refs["cdh-bench"].add(f"cdh-bench/media/{rec['image_path']}")
        for rec in json.loads((SAMPLES / f"detailverifybench/predictions/{model}.json").read_text()):
            # "./test/<Domain>/<file>": the media root plays the part of the release's test/ folder
            refs["detailverifybench"].add(
                "detailverifybench/media/" + rec["image_path"].removeprefix("./test/")
            )
    return refs


def test_every_referenced_media_file_exists(media_index: dict[str, dict[str, Any]]) -> None:
    refs = _referenced_media()
    for bench, paths in refs.items():
        assert paths, bench
        missing = sorted(p for p in paths if not (SAMPLES / p).is_file())
        assert not missing, f"{bench}: {missing}"
        assert paths <= set(media_index)
    # the deliberately unreadable video is one the data refers to
    assert any(info.get("broken") and p in refs["vidhalluc"] for p, info in media_index.items())


def _frames(path: Path) -> Any:
    """Decode every frame to RGB with the ffmpeg moviepy uses (subprocess.run closes its pipes)."""
    import imageio_ffmpeg
    import numpy as np

    cmd = [
        imageio_ffmpeg.get_ffmpeg_exe(),
        "-v",
        "error",
        "-i",
        str(path),
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-",
    ]
    data = subprocess.run(cmd, check=True, capture_output=True).stdout
    return np.frombuffer(data, dtype=np.uint8).reshape(-1, 120, 160, 3)


def test_videos_have_the_promised_duration_and_audio(media_index: dict[str, dict[str, Any]]) -> None:
    # moviepy's metadata probe (``ffmpeg -i``): its clip readers leave pipes open under -W error.
    from moviepy.video.io.ffmpeg_reader import ffmpeg_parse_infos

    videos = {p: i for p, i in media_index.items() if i["kind"] == "video"}
    assert len(videos) >= 40
    for rel, info in videos.items():
        if info.get("broken"):
            with pytest.raises(OSError, match="moov atom not found"):
                ffmpeg_parse_infos(str(SAMPLES / rel))
            continue
        probe = ffmpeg_parse_infos(str(SAMPLES / rel))
        assert abs(probe["duration"] - info["duration"]) < 0.15, rel
        assert probe["audio_found"] == info["audio"], rel
        assert probe["video_size"] == [160, 120]
        frames = _frames(SAMPLES / rel)
        assert len(frames) == round(info["duration"] * 10)
        assert (frames[0] != frames[-1]).any(), f"{rel}: nothing moves"
    # AVHBench embeds its audio; CMM visual+audio clips are silent mp4s beside a wav
    assert all(i["audio"] for p, i in videos.items() if p.startswith("avhbench/"))
    assert not any(i["audio"] for p, i in videos.items() if p.startswith("cmm/"))


def test_wavs_are_16k_mono_of_the_promised_length(media_index: dict[str, dict[str, Any]]) -> None:
    wavs = {p: i for p, i in media_index.items() if i["kind"] == "audio"}
    assert len(wavs) >= 8
    for rel, info in wavs.items():
        with wave.open(str(SAMPLES / rel)) as w:
            assert (w.getframerate(), w.getnchannels()) == (16000, 1)
            assert abs(w.getnframes() / 16000 - info["duration"]) < 0.01


def test_images_open_with_the_indexed_size(media_index: dict[str, dict[str, Any]]) -> None:
    from PIL import Image

    images = {p: i for p, i in media_index.items() if i["kind"] == "image"}
    assert len(images) == 12 * 2 + 10
    for rel, info in images.items():
        with Image.open(SAMPLES / rel) as img:
            assert img.size == (info["width"], info["height"])


def test_total_size_is_small() -> None:
    _need_samples()
    total = sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file())
    assert total <= MAX_BYTES, f"samples/ is {total / 1e6:.1f} MB"


# ---------------------------------------------------------------- seeded quirks and model behaviour


def test_avhbench_has_the_release_duplicates() -> None:
    _need_samples()
    recs = json.loads((SAMPLES / "avhbench/QA.json").read_text())
    assert all(isinstance(v, str) for r in recs for v in r.values())
    assert {r["task"] for r in recs} == {
        "Audio-driven Video Hallucination",
        "Video-driven Audio Hallucination",
        "AV Matching",
        "AV Captioning",
    }
    by_key: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in recs:
        by_key.setdefault((r["video_id"], r["text"]), []).append(r)
    repeated = [v for v in by_key.values() if len(v) > 1]
    exact = [v for v in repeated if v[0] == v[1]]
    conflicting = [v for v in repeated if v[0]["label"] != v[1]["label"]]
    assert len(repeated) == 2 and len(exact) == 1 and len(conflicting) == 1


def test_cmm_rows_pair_a_yes_and_a_no_probe_per_clip() -> None:
    _need_samples()
    rows = _read_jsonl(SAMPLES / "cmm/all_data_final_reorg.json")
    assert len({r["sub_category"] for r in rows}) == 6
    clips: dict[tuple[str, str | None], list[str]] = {}
    for r in rows:
        assert r["question"].endswith(" Answer with yes or no.")
        clips.setdefault((r["video_path"], r["audio_path"]), []).append(r["answer"])
    assert all(sorted(a) == ["no", "yes"] for a in clips.values())
    assert any(r["video_path"] == "None" and r["modality"] == "audio" for r in rows)
    assert all(r["audio_path"] for r in rows if r["modality"] == "visual+audio")


def test_vidhalluc_has_multi_letter_gold_and_both_orders() -> None:
    _need_samples()
    vid = SAMPLES / "vidhalluc"
    mcq = json.loads((vid / "ach_mcq.json").read_text())
    golds = [c["Correct Answer"] for g in mcq.values() for c in g.values()]
    assert any(len(g) > 1 for g in golds) and all(set(g) <= set("ABCD") for g in golds)
    tsh = json.loads((vid / "tsh.json").read_text())
    assert {r["Correct Answer"] for r in tsh.values()} == {"AB", "BA"}
    sth = json.loads((vid / "sth.json").read_text())
    assert {r["Scene change"] for r in sth.values()} == {"Yes", "No"}
    bqa = json.loads((vid / "ach_binaryqa.json").read_text())
    assert all(len(q["a"]) >= 2 for qs in bqa.values() for q in qs)


def test_cdh_results_keep_failed_queries_and_seeded_gold_errors() -> None:
    _need_samples()
    statuses = [
        r["status"] for m in MODELS for r in _read_jsonl(SAMPLES / f"cdh-bench/predictions/{m}.jsonl")
    ]
    assert {"ok", "error", "missing_image"} <= set(statuses)
    gold = {g["pair_id"]: g for g in _read_jsonl(SAMPLES / "cdh-bench/benchmark.jsonl")}
    assert len({tuple(g) for g in gold.values()}) > 1  # key order varies by line
    inverted = [
        p
        for p, g in gold.items()
        if (g["direct_qa"]["commonsense_gt"], g["direct_qa"]["counterfactual_gt"]) == ("no", "yes")
    ]
    same_mc = [
        p
        for p, g in gold.items()
        if g["multiple_choice"]["commonsense_gt"] == g["multiple_choice"]["counterfactual_gt"]
    ]
    dup_options = [
        p for p, g in gold.items() if len({o.split(". ", 1)[1] for o in g["multiple_choice"]["options"]}) < 4
    ]
    assert (len(inverted), len(same_mc), len(dup_options)) == (1, 1, 1)
    assert len({g["category"] for g in gold.values()}) == 3


def test_cdh_stored_verdicts_agree_with_the_loaders_reparse() -> None:
    _need_samples()
    parse = pytest.importorskip("analysis.benchmarks.cdh_bench.parse")
    read = parse.READERS["reparse"]
    for model in MODELS:
        for rec in _read_jsonl(SAMPLES / f"cdh-bench/predictions/{model}.jsonl"):
            if rec["status"] == "ok":
                assert read(rec["task"], rec["pred"], rec["gt"])[1] == rec["correct"], rec


def test_detailverifybench_outputs_cover_invalid_and_clean_answers() -> None:
    _need_samples()
    outputs = [
        r
        for m in MODELS
        for r in json.loads((SAMPLES / f"detailverifybench/predictions/{m}.json").read_text())
    ]
    assert sum(not r["validation_passed"] for r in outputs) == 1
    assert any(r["hallucinated_caption_with_tags"] == "NO HALLUCINATION" for r in outputs)
    gold = _read_jsonl(SAMPLES / "detailverifybench/real_test.jsonl")
    assert {g["category"] for g in gold} == {"Chart", "Movie", "Nature", "Poster", "UI"}
    assert all(60 <= len(g["GT_description"].split()) <= 150 for g in gold)
    for r in outputs:
        assert "<result>" in r["raw_output"] and r["image_path"].startswith("./test/")


def _first5_yes(text: str) -> bool:
    return "yes" in text.strip().lower()[:5]


@pytest.mark.parametrize(
    ("bench", "name", "field"), [("avhbench", "{}.json", "pred"), ("cmm", "{}.jsonl", "pred")]
)
def test_yes_biased_says_yes_most(bench: str, name: str, field: str) -> None:
    _need_samples()
    ratios = {}
    for model in MODELS:
        path = SAMPLES / bench / "predictions" / name.format(model)
        rows = json.loads(path.read_text()) if path.suffix == ".json" else _read_jsonl(path)
        answers = [r[field] for r in rows if r.get("task") != "AV Captioning"]
        ratios[model] = sum(map(_first5_yes, answers)) / len(answers)
    assert ratios["yes-biased"] > ratios["balanced"]


# ---------------------------------------------------------------- loaders


def _prediction_cases() -> list[Any]:
    path = SAMPLES / "manifest.json"
    if not path.exists():
        return []
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return [
        pytest.param(bench, pred, id=f"{bench}-{pred['task'] or 'all'}-{pred['model']}")
        for bench, entry in manifest["benchmarks"].items()
        for pred in entry["predictions"]
    ]


@pytest.mark.parametrize(("bench", "pred"), _prediction_cases())
def test_every_prediction_file_loads_and_scores(bench: str, pred: dict[str, Any]) -> None:
    from analysis.benchmarks import get

    module = get(bench)
    if not hasattr(module, "load"):
        pytest.skip(f"analysis/benchmarks/{bench} is still a placeholder (no load)")
    gold = SAMPLES / pred["gold"] if pred["gold"] else None
    table = module.load(SAMPLES / pred["path"], gold=gold, task=pred["task"])
    assert len(table) > 0
    assert set(table["model"].astype(str)) == {pred["model"]}
    report = module.score(table, task=pred["task"])
    assert report["n_scored"] > 0
    # media references resolve with the app's resolver against the manifest's media root
    media = pytest.importorskip("analysis.files.media")
    resolver = media.MediaResolver([SAMPLES / bench / "media"], module.MEDIA_ALIASES)
    refs = [ref["path"] for text in table["media"].dropna().astype(str) if text for ref in json.loads(text)]
    assert refs
    for ref in refs:
        assert resolver.resolve(ref) is not None, ref


@pytest.mark.parametrize("model", MODELS)
def test_detailverifybench_samples_show_label_type_recall_with_their_gold(model: str) -> None:
    # The loaders key a pipeline record by its `id` and a gold row by its `filename` (the image id
    # both share): the samples must do the same, or `--gold real_test.jsonl` joins nothing.
    _need_samples()
    folder = SAMPLES / "detailverifybench"
    pred, gold = folder / "predictions" / f"{model}.json", folder / "real_test.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis.cli",
            "score",
            "detailverifybench",
            str(pred),
            "--gold",
            str(gold),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    label_types = json.loads(proc.stdout)["groups"]["label_type"]
    assert label_types and sum(v["n_tokens"] for v in label_types.values()) > 0
    from analysis.benchmarks import get

    dvb = get("detailverifybench")
    gold_ids = set(dvb.load_gold([gold])["item_id"])
    pred_ids = set(dvb.load(pred)["item_id"])
    # one id per item, shared by the gold row and every model's answer (a seeded gold error,
    # whose pipeline caption differs from the gold file's, is the one exception allowed)
    assert len(pred_ids - gold_ids) <= 1, sorted(pred_ids - gold_ids)
