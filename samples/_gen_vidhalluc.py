"""VidHalluc samples: ACH (binary QA, MCQ) over clip pairs, TSH action order, STH scene change.

Gold in ``_gen_vidhalluc_gold``, model answers in ``_gen_vidhalluc_answers``; this module draws the
videos and writes the files. Videos sit flat in ``media/<clip_id>.mp4``. One ACH clip is a
truncated, unreadable mp4, like the real set's known bad videos.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from _gen_common import MODELS, prediction_entry, rel, video_info, write_json
from _gen_media import Scene, Sprite, Timeline, write_truncated_video, write_video
from _gen_vidhalluc_answers import bqa_pred, mcq_pred, sth_pred, tsh_pred
from _gen_vidhalluc_gold import (
    ACH_SECONDS,
    BROKEN,
    ID,
    PLACES,
    SCENES,
    SEQ_SECONDS,
    SEQUENCES,
    ach_clips,
    bqa_gold,
    clip_ids,
    mcq_gold,
    sth_gold,
    tsh_gold,
)


def _person(action: str, seed: int, colour: tuple[int, int, int] = (30, 30, 30)) -> Sprite:
    moving = action in ("walking", "running")
    return Sprite(
        kind="man",
        color=colour,
        x=80,
        y=75,
        dx=45 if moving else 4,
        hz=0.25 if moving else 0.1,
        phase=seed,
        pose=action,
    )


def _bg(seed: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    r = random.Random(seed)
    return (r.randrange(170, 250), r.randrange(170, 250), r.randrange(170, 250)), (150, 150 + seed % 60, 130)


def _place(name: str, sprite: Sprite) -> Scene:
    sky, ground, pattern = PLACES[name]
    return Scene(sky, ground, (sprite,), pattern, caption=name)


def _media(
    base: Path, clips: list[tuple[str, list[tuple[str, str]]]], tsh: dict[str, Any], write: bool
) -> dict[str, dict[str, Any]]:
    index: dict[str, dict[str, Any]] = {}
    for gi, (_, members) in enumerate(clips):
        for k, (clip, action) in enumerate(members):
            path = base / "media" / f"{clip}.mp4"
            sky, ground = _bg(gi * 7 + k)
            timeline = Timeline([Scene(sky, ground, (_person(action, gi + k),))])
            broken = (gi, k) == BROKEN
            if write:
                (write_truncated_video if broken else write_video)(path, timeline, ACH_SECONDS)
            index[rel(path, base.parent)] = video_info(ACH_SECONDS, audio=False, broken=broken)
    for i, rec in enumerate(tsh.values()):
        first, second = SEQUENCES[i]
        sky, ground = _bg(100 + i)
        path = base / "media" / f"{rec['video']}.mp4"
        scenes = [Scene(sky, ground, (_person(a, i),)) for a in (first, second)]
        if write:
            write_video(path, Timeline(scenes, [SEQ_SECONDS / 2]), SEQ_SECONDS)
        index[rel(path, base.parent)] = video_info(SEQ_SECONDS, audio=False)
    for vid, (a, b) in zip(clip_ids("h", len(SCENES)), SCENES, strict=True):
        path = base / "media" / f"{vid}_clip_1.mp4"
        walker = _person("walking", len(a), (20, 20, 120))
        scenes = [_place(a, walker)] + ([_place(b, walker)] if b else [])
        if write:
            write_video(path, Timeline(scenes, [SEQ_SECONDS / 2] if b else []), SEQ_SECONDS)
        index[rel(path, base.parent)] = video_info(SEQ_SECONDS, audio=False)
    return index


def _predict(
    task: str, model: str, golds: dict[str, Any], clips: list[tuple[str, list[tuple[str, str]]]]
) -> Any:
    if task == "bqa":
        return bqa_pred(model, golds["bqa"], clips)
    if task == "mcq":
        return mcq_pred(model, golds["mcq"], clips)
    return tsh_pred(model, golds["tsh"]) if task == "tsh" else sth_pred(model)


def build(root: Path, media: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Write the VidHalluc sample set under ``root/vidhalluc``; return its manifest entry and media index."""
    base = root / ID
    clips = ach_clips()
    golds = {"bqa": bqa_gold(clips), "mcq": mcq_gold(clips), "tsh": tsh_gold(), "sth": sth_gold()}
    files = {"bqa": "ach_binaryqa.json", "mcq": "ach_mcq.json", "tsh": "tsh.json", "sth": "sth.json"}
    for task, name in files.items():
        write_json(base / name, golds[task])
    entries = []
    for task in files:
        for model in MODELS:
            preds = _predict(task, model, golds, clips)
            path = base / "predictions" / task / f"{model}.json"
            write_json(path, preds)
            gold = base / files[task] if task in ("bqa", "sth") else None
            entries.append(prediction_entry(path, root, task=task, gold=gold))
    index = _media(base, clips, golds["tsh"], media)
    bad = [p.removeprefix(f"{ID}/media/") for p, info in index.items() if info.get("broken")]
    entry = {
        "media_root": f"{ID}/media",
        "gold": [f"{ID}/{n}" for n in files.values()],
        "predictions": entries,
        "known_bad_media": bad,
    }
    return entry, index
