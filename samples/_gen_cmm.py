"""CMM samples: JSONL rows over the 6 sub-categories, one yes-probe and one no-probe per clip.

Media lives under ``media/reorg_raw_files/...`` (the released zip's spelling) while rows say
``./raw_files/...`` (the template's), so loaders must resolve both. ``visual+audio`` clips are a
silent mp4 plus a separate wav; audio-language rows have ``video_path: "None"``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _gen_common import MODELS, audio_info, pick, prediction_entry, rel, rng, video_info, write_jsonl
from _gen_media import Scene, Sprite, Timeline, mix, write_video, write_wav

ID = "cmm"
DURATION = 3.0
OVER, SPURIOUS = "over-reliance_unimodal_priors", "inter-modality_spurious_correlation"
MODALITY = {
    "overrely_visual_ignore_audio": "visual+audio",
    "overrely_audio_ignore_visual": "visual+audio",
    "overrely_language_ignore_visual": "visual",
    "visual-language": "visual",
    "audio-language": "audio",
    "visual-audio-language": "visual+audio",
}
CORRELATION = {
    "overrely_visual_ignore_audio": "visual_dominance",
    "overrely_audio_ignore_visual": "audio_dominance",
    "overrely_language_ignore_visual": "language_dominance",
    "visual-language": "global_frequency",
    "audio-language": "global_frequency",
    "visual-audio-language": "co_occurrence",
}
SKY, GRASS, ROAD, SAND, TILE = (
    (200, 225, 250),
    (150, 190, 120),
    (170, 170, 170),
    (225, 205, 150),
    (235, 220, 190),
)


@dataclass(frozen=True)
class Clip:
    """One clip and its two probes: (question, what the answer text names) for yes and for no."""

    sub: str
    folder: str
    clip_id: str
    granularity: str
    scene: Scene | None
    sounds: tuple[str, ...]
    yes_q: str
    yes_x: str
    no_q: str
    no_x: str


def _sp(kind: str, color: tuple[int, int, int], x: float, **kw: Any) -> Sprite:
    return Sprite(kind=kind, color=color, x=x, y=kw.pop("y", 72), label=kw.pop("label", kind), **kw)


SEE, HEAR = "Did you see {} in the video?", "Did you hear {} in the audio?"
CLIPS: tuple[Clip, ...] = (
    Clip(
        "overrely_visual_ignore_audio",
        "dog",
        "10482113",
        "event-level",
        Scene(SKY, GRASS, (_sp("dog", (140, 90, 40), 60), _sp("tree", (30, 140, 40), 125, dx=0)), "grass"),
        ("rain",),
        HEAR.format("rain"),
        "rain",
        HEAR.format("a dog barking"),
        "dog barking",
    ),
    Clip(
        "overrely_visual_ignore_audio",
        "car",
        "20931457",
        "object-level",
        Scene(SKY, ROAD, (_sp("car", (200, 30, 30), 80, dx=40),), "stripes"),
        ("bird",),
        HEAR.format("birds"),
        "birds",
        HEAR.format("a car engine"),
        "car engine",
    ),
    Clip(
        "overrely_audio_ignore_visual",
        "street",
        "31570842",
        "object-level",
        Scene(SKY, ROAD, (_sp("man", (30, 30, 160), 60), _sp("tree", (30, 140, 40), 125, dx=0)), "stripes"),
        ("siren",),
        SEE.format("a man"),
        "man",
        SEE.format("an ambulance"),
        "ambulance",
    ),
    Clip(
        "overrely_audio_ignore_visual",
        "kitchen",
        "32208716",
        "event-level",
        Scene((240, 235, 220), TILE, (_sp("pan", (50, 50, 50), 80, label="frying pan"),), "tiles"),
        ("dog",),
        SEE.format("a frying pan"),
        "frying pan",
        SEE.format("a dog barking"),
        "dog barking",
    ),
    Clip(
        "overrely_language_ignore_visual",
        "park",
        "41175390",
        "event-level",
        Scene(
            SKY,
            GRASS,
            (
                Sprite("man", (30, 30, 160), 70, 72, dx=30, hz=0.3, pose="walking", label="man"),
                _sp("ball", (40, 90, 220), 125, dx=0, y=90),
            ),
            "grass",
        ),
        (),
        SEE.format("the man walking"),
        "man walking",
        SEE.format("the man kicking the ball"),
        "man kicking",
    ),
    Clip(
        "overrely_language_ignore_visual",
        "bird",
        "43319064",
        "event-level",
        Scene(
            SKY, GRASS, (_sp("bird", (230, 190, 0), 70, y=40, dy=8), _sp("tree", (30, 140, 40), 120, dx=0))
        ),
        (),
        SEE.format("a bird flying"),
        "bird flying",
        SEE.format("the bird building a nest"),
        "nest",
    ),
    Clip(
        "visual-language",
        "beach",
        "52014678",
        "object-level",
        Scene(SKY, SAND, (_sp("ball", (220, 60, 60), 80, dx=35),), "waves"),
        (),
        SEE.format("ball"),
        "ball",
        SEE.format("boat"),
        "boat",
    ),
    Clip(
        "visual-language",
        "tree",
        "21537838",
        "object-level",
        Scene(
            SKY, GRASS, (_sp("tree", (30, 140, 40), 50, dx=0), _sp("tree", (40, 120, 50), 110, dx=0)), "grass"
        ),
        (),
        SEE.format("tree"),
        "tree",
        SEE.format("river"),
        "river",
    ),
    Clip(
        "audio-language",
        "birdsong",
        "60218845",
        "event-level",
        None,
        ("bird",),
        HEAR.format("birds chirping"),
        "birds chirping",
        HEAR.format("wind blowing"),
        "wind",
    ),
    Clip(
        "audio-language",
        "train",
        "61942270",
        "object-level",
        None,
        ("train",),
        HEAR.format("train"),
        "train",
        HEAR.format("train horn"),
        "train horn",
    ),
    Clip(
        "visual-audio-language",
        "kitchen",
        "70331592",
        "event-level",
        Scene((240, 235, 220), TILE, (_sp("pan", (50, 50, 50), 80, label="frying pan"),), "tiles"),
        ("sizzle",),
        "Did you see a frying pan and hear sizzling?",
        "frying pan sizzling",
        HEAR.format("a kettle whistling"),
        "kettle",
    ),
    Clip(
        "visual-audio-language",
        "concert",
        "72650914",
        "event-level",
        Scene(
            (60, 40, 80),
            (90, 60, 40),
            (
                Sprite("man", (250, 250, 250), 60, 72, pose="waving", label="man"),
                _sp("guitar", (230, 130, 20), 100, dx=5),
            ),
        ),
        ("guitar",),
        HEAR.format("a guitar playing"),
        "guitar",
        SEE.format("a crowd cheering"),
        "crowd",
    ),
)
SUFFIX = " Answer with yes or no."


def _paths(c: Clip) -> tuple[str, str | None]:
    stem = f"./raw_files/{c.sub}/{c.folder}/{c.clip_id}"
    modality = MODALITY[c.sub]
    video = "None" if modality == "audio" else f"{stem}.mp4"
    audio = f"{stem}.wav" if modality != "visual" else None
    return video, audio


def gold_rows() -> list[dict[str, Any]]:
    """Two rows per clip (yes-probe and no-probe, in a seeded order), clips by sub-category."""
    r = rng(ID, "order")
    rows = []
    for c in CLIPS:
        video, audio = _paths(c)
        probes = [(c.yes_q, "yes"), (c.no_q, "no")]
        r.shuffle(probes)
        for question, answer in probes:
            rows.append(
                {
                    "category": OVER if c.sub.startswith("overrely") else SPURIOUS,
                    "sub_category": c.sub,
                    "modality": MODALITY[c.sub],
                    "granularity": c.granularity,
                    "correlation_type": CORRELATION[c.sub],
                    "video_path": video,
                    "audio_path": audio,
                    "question": question + SUFFIX,
                    "answer": answer,
                }
            )
    return rows


def _text(r: random.Random, yes: bool, x: str) -> str:
    if r.random() < 0.15:
        # Official CMM reads pred[:5]: "nothing", "None", "Not s" count as no; "Sure," and
        # "I did" as neither; "Yes/No" as both.
        return pick(
            r,
            ("Sure, yes", "Yes/No")
            if yes
            else ("nothing", "None of that.", "I did not notice it.", "Not sure, probably not."),
        )
    if yes:
        return pick(r, ("Yes.", "Yes", "yes", f"Yes, there is {x}.", f"Yes, I can perceive {x}."))
    return pick(r, ("No.", "No", "no", f"No, there is no {x}.", f"No, I did not perceive {x}."))


def answer(model: str, row: dict[str, Any], x: str, r: random.Random) -> str:
    """The model's raw answer to one row."""
    gold = row["answer"] == "yes"
    if model == "yes-biased":
        yes = r.random() < 0.85
    elif model == "balanced":
        yes = gold if r.random() < 0.85 else not gold
    else:  # commonsense-prior: co-occurrences and the dominant modality fool it on no-probes
        yes = r.random() < 0.92 if gold else r.random() < 0.8
    return _text(r, yes, x)


def _media(base: Path, c: Clip, write: bool) -> dict[str, dict[str, Any]]:
    """Media-index entries of one clip; with ``write``, also encode the files."""
    video, audio = _paths(c)
    index: dict[str, dict[str, Any]] = {}
    if c.scene is not None:
        on_disk = base / "media" / video.replace("./raw_files/", "reorg_raw_files/")
        if write:
            write_video(on_disk, Timeline([c.scene]), DURATION)  # silent: the sound is the wav
        index[rel(on_disk, base.parent)] = video_info(DURATION, audio=False)
    if audio is not None:
        on_disk = base / "media" / audio.replace("./raw_files/", "reorg_raw_files/")
        if write:
            write_wav(on_disk, mix(c.sounds, DURATION, f"{ID}/{c.clip_id}"))
        index[rel(on_disk, base.parent)] = audio_info(DURATION)
    return index


def build(root: Path, media: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Write the CMM sample set under ``root/cmm``; return its manifest entry and media index."""
    base = root / ID
    rows = gold_rows()
    # The release names its JSONL file .json; keep that quirk.
    gold = base / "all_data_final_reorg.json"
    write_jsonl(gold, rows)
    subject = {(c.sub, q + SUFFIX): x for c in CLIPS for q, x in ((c.yes_q, c.yes_x), (c.no_q, c.no_x))}
    entries = []
    for model in MODELS:
        r = rng(ID, model)
        preds = [
            {**row, "pred": answer(model, row, subject[row["sub_category"], row["question"]], r)}
            for row in rows
        ]
        path = base / "predictions" / f"{model}.jsonl"
        write_jsonl(path, preds)
        entries.append(prediction_entry(path, root))
    index: dict[str, dict[str, Any]] = {}
    for c in CLIPS:
        index.update(_media(base, c, media))
    return {"media_root": f"{ID}/media", "gold": [rel(gold, root)], "predictions": entries}, index
