"""AVHBench samples: ``QA.json`` (4 tasks, real-release duplicates), predictions, mp4 with audio.

Each video shows some sources and plays the sounds of some (possibly others, off screen):
"Is the X making sound in the audio?" asks about what is seen, "Is the X visible in the video?"
about what is heard, "AV Matching" is yes when every heard source is on screen.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from _gen_common import MODELS, pick, prediction_entry, rel, rng, video_info, write_json
from _gen_media import Scene, Sprite, Timeline, mix, write_video

ID = "avhbench"
DURATION = 3.0
A2V, V2A, MATCH, CAPTION = (
    "Audio-driven Video Hallucination",
    "Video-driven Audio Hallucination",
    "AV Matching",
    "AV Captioning",
)

# source -> (colour, commonsense prior "this usually makes a sound")
SOURCES: dict[str, tuple[tuple[int, int, int], bool]] = {
    "dog": ((140, 90, 40), True),
    "man": ((30, 30, 160), True),
    "car": ((200, 30, 30), True),
    "bird": ((230, 190, 0), True),
    "guitar": ((230, 130, 20), True),
    "train": ((90, 90, 100), True),
    "ambulance": ((245, 245, 245), True),
    "clock": ((40, 40, 40), True),
    "tree": ((30, 140, 40), False),
    "ball": ((40, 90, 220), False),
}
SOUND_OF = {"ambulance": "siren"}

# (video_id, visible sources, audible sources): off-screen sounds and silent objects on purpose.
VIDEOS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("00191", ("dog", "man"), ("man",)),
    ("00332", ("man", "car"), ("car", "man")),
    ("00518", ("car",), ("ambulance",)),
    ("00640", ("bird", "tree"), ("bird",)),
    ("00777", ("guitar", "man"), ("guitar",)),
    ("00859", ("ball",), ("dog",)),
    ("01023", ("train",), ("train",)),
    ("01150", ("dog",), ("dog",)),
    ("01288", ("tree",), ("bird",)),
    ("01444", ("car", "dog"), ("dog",)),
    ("01502", ("man",), ("guitar",)),
    ("01677", ("clock", "ball"), ("clock",)),
)
SKIES = ((200, 225, 250), (235, 225, 200), (210, 240, 220), (225, 215, 240))
GROUNDS = ((150, 190, 120), (190, 190, 190), (210, 190, 150))


def _caption(vis: tuple[str, ...], aud: tuple[str, ...]) -> str:
    seen = " and ".join(f"a {v}" for v in vis)
    heard = " and ".join(f"a {a}" for a in aud)
    return f"{seen[0].upper()}{seen[1:]} can be seen while the sound of {heard} is heard."


def gold_records() -> list[dict[str, str]]:
    """The QA list in file order, with one exact and one conflicting repeated key at the end."""
    recs: list[dict[str, str]] = []
    for vid, vis, aud in VIDEOS:
        for a in aud:
            recs.append(
                {
                    "video_id": vid,
                    "task": A2V,
                    "text": f"Is the {a} visible in the video?",
                    "label": "Yes" if a in vis else "No",
                }
            )
    for vid, vis, aud in VIDEOS:
        for v in vis:
            recs.append(
                {
                    "video_id": vid,
                    "task": V2A,
                    "text": f"Is the {v} making sound in the audio?",
                    "label": "Yes" if v in aud else "No",
                }
            )
    for vid, vis, aud in VIDEOS:
        recs.append(
            {
                "video_id": vid,
                "task": MATCH,
                "text": "Are the contexts of audio and visual content matching?",
                "label": "Yes" if set(aud) <= set(vis) else "No",
            }
        )
    for vid, vis, aud in VIDEOS[:4]:
        recs.append(
            {
                "video_id": vid,
                "task": CAPTION,
                "text": "Describe what you see and hear in a single sentence.",
                "label": _caption(vis, aud),
            }
        )
    # Like the real release (00332 and 01444 are its own examples): an exact duplicate record and a
    # repeated key with the opposite label, both after their first occurrence.
    recs.append(
        {"video_id": "00332", "task": A2V, "text": "Is the man visible in the video?", "label": "Yes"}
    )
    recs.append(
        {"video_id": "01444", "task": V2A, "text": "Is the car making sound in the audio?", "label": "Yes"}
    )
    return recs


def _subject(text: str) -> str:
    return text.split(" the ", 1)[1].split(" ", 1)[0] if " the " in text else "sound"


def _yes_text(r: random.Random, task: str, x: str) -> str:
    if task == A2V:
        return pick(r, ("Yes.", f"Yes, the {x} is visible in the video.", "Yes", f"Yes, a {x} can be seen."))
    if task == V2A:
        return pick(r, ("Yes.", f"Yes, the {x} is making sound.", f"Yes, I can hear the {x}."))
    return pick(r, ("Yes.", "Yes, the audio matches the visual content."))


def _no_text(r: random.Random, task: str, x: str) -> str:
    if task == A2V:
        return pick(r, ("No.", f"No, the {x} is not visible in the video.", "No"))
    if task == V2A:
        return pick(r, ("No.", f"No, the {x} is silent.", f"No, there is no {x} sound in the audio."))
    return pick(r, ("No.", "No, the audio and the video do not match."))


def _quirk(r: random.Random, yes: bool, x: str) -> str:
    """Answers the first-word parser cannot read but a negation-aware reader can."""
    if yes:
        return pick(r, ("Sure, yes", f"Certainly! The {x} is there.", f"I can hear the {x} clearly."))
    return pick(r, (f"There is no {x} in it.", f"Not really, the {x} is absent.", "I cannot tell."))


def _decide(model: str, rec: dict[str, str], r: random.Random) -> bool:
    gold = rec["label"] == "Yes"
    x = _subject(rec["text"])
    if model == "yes-biased":
        return r.random() < 0.85
    if model == "balanced":
        return gold if r.random() < 0.85 else not gold
    # commonsense-prior: visible things make their usual sound, heard things are on screen.
    if rec["task"] == V2A:
        return SOURCES.get(x, ((0, 0, 0), False))[1]
    return True if r.random() < 0.9 else gold


def answer(model: str, rec: dict[str, str], r: random.Random) -> str:
    """The model's raw answer to one record."""
    if rec["task"] == CAPTION:
        _, vis, aud = next(v for v in VIDEOS if v[0] == rec["video_id"])
        if model == "commonsense-prior":
            return _caption(vis, vis)  # everything seen is assumed to be heard
        return _caption(vis, (*aud, "crowd")) if model == "yes-biased" else _caption(vis, aud)
    yes = _decide(model, rec, r)
    x = _subject(rec["text"])
    if r.random() < 0.12:
        return _quirk(r, yes, x)
    return _yes_text(r, rec["task"], x) if yes else _no_text(r, rec["task"], x)


def predictions(model: str, recs: list[dict[str, str]]) -> list[dict[str, str]]:
    """Gold records plus ``pred``; a repeated key gets the same answer (deterministic decoding)."""
    r = rng(ID, model)
    seen: dict[tuple[str, str], str] = {}
    out = []
    for rec in recs:
        key = (rec["video_id"], rec["text"])
        if key not in seen:
            seen[key] = answer(model, rec, r)
        out.append({**rec, "pred": seen[key]})
    return out


def _timeline(index: int, vis: tuple[str, ...]) -> Timeline:
    sprites = [
        Sprite(
            kind=v,
            color=SOURCES[v][0],
            x=45 + 70 * k,
            y=70 + (k % 2) * 8,
            dx=18,
            dy=6,
            hz=0.3 + 0.15 * k,
            phase=index + k,
            label=v,
        )
        for k, v in enumerate(vis)
    ]
    scene = Scene(
        sky=SKIES[index % len(SKIES)],
        ground=GROUNDS[index % len(GROUNDS)],
        sprites=sprites,
        pattern=("grass", "stripes", "")[index % 3],
    )
    return Timeline([scene])


def build(root: Path, media: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Write the AVHBench sample set under ``root/avhbench``; return its manifest and media index."""
    base = root / ID
    recs = gold_records()
    gold = base / "QA.json"
    write_json(gold, recs)
    entries = []
    for model in MODELS:
        path = base / "predictions" / f"{model}.json"
        write_json(path, predictions(model, recs))
        entries.append(prediction_entry(path, root))
    if media:
        for i, (vid, vis, aud) in enumerate(VIDEOS):
            audio = mix([SOUND_OF.get(a, a) for a in aud], DURATION, f"{ID}/{vid}")
            write_video(base / "media" / f"{vid}.mp4", _timeline(i, vis), DURATION, audio)
    index = {f"{ID}/media/{vid}.mp4": video_info(DURATION, audio=True) for vid, _, _ in VIDEOS}
    return {"media_root": f"{ID}/media", "gold": [rel(gold, root)], "predictions": entries}, index
