"""VidHalluc sample gold: clip pairs of actions (ACH), action sequences (TSH), place changes (STH).

Clip ids look like ``s0a1b2c3_clip_1`` (seeded); every clip is a stick figure doing one action.
"""

from __future__ import annotations

from typing import Any

from _gen_common import rng

ID = "vidhalluc"
ACH_SECONDS, SEQ_SECONDS = 2.0, 4.0
GROUPS: tuple[tuple[str, ...], ...] = (
    ("walking", "running"),
    ("jumping", "squatting"),
    ("waving", "clapping"),
    ("kicking", "jumping"),
    ("spinning", "waving"),
    ("running", "jumping", "walking"),
    ("clapping", "waving"),
    ("walking", "kicking", "squatting"),
)
ACTIONS = ("walking", "running", "jumping", "squatting", "waving", "clapping", "spinning", "kicking")
SYNONYM = {
    "walking": "strolling",
    "running": "jogging",
    "jumping": "hopping",
    "squatting": "crouching",
    "waving": "raising a hand",
    "clapping": "applauding",
    "spinning": "twirling",
    "kicking": "striking with a foot",
}
MULTI = {1: "jumping", 5: "running"}
"""Groups whose first clip gets a two-answer MCQ (the action and its synonym)."""
SEQUENCES = (
    ("squatting", "jumping"),
    ("walking", "running"),
    ("waving", "clapping"),
    ("kicking", "spinning"),
    ("running", "walking"),
    ("clapping", "jumping"),
    ("spinning", "squatting"),
    ("jumping", "waving"),
)
PLACES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], str]] = {
    "kitchen": ((240, 235, 220), (235, 220, 190), "tiles"),
    "garden": ((200, 225, 250), (120, 180, 90), "grass"),
    "beach": ((180, 215, 250), (225, 205, 150), "waves"),
    "office": ((215, 215, 220), (150, 150, 160), "grid"),
    "street": ((200, 210, 225), (170, 170, 170), "stripes"),
    "forest": ((150, 190, 150), (60, 110, 50), "grass"),
}
SCENES = (
    ("kitchen", "garden"),
    ("office", "street"),
    ("beach", "forest"),
    ("street", None),
    ("garden", "beach"),
    ("office", None),
    ("forest", "kitchen"),
    ("beach", None),
)
BROKEN = (7, 2)
"""(group, clip index) of the truncated video."""


def clip_ids(prefix: str, n: int) -> list[str]:
    """``n`` seeded video ids starting with ``prefix`` (``s``: ACH, ``t``: TSH, ``h``: STH)."""
    r = rng(ID, "ids", prefix)
    return [f"{prefix}{r.getrandbits(28):07x}" for _ in range(n)]


def ach_clips() -> list[tuple[str, list[tuple[str, str]]]]:
    """Groups as (group id, [(clip id, action)])."""
    return [
        (g, [(f"{g}_clip_{k + 1}", a) for k, a in enumerate(acts)])
        for g, acts in zip(clip_ids("s", len(GROUPS)), GROUPS, strict=True)
    ]


def bqa_gold(clips: list[tuple[str, list[tuple[str, str]]]]) -> dict[str, Any]:
    """``{group: [{"q", "a": {clip: Yes|No}}]}``: one question per distinct action of the pair."""
    out: dict[str, Any] = {}
    for group, members in clips:
        actions = list(dict.fromkeys(a for _, a in members))
        out[group] = [
            {
                "q": f"Is the person {a} in the video?",
                "a": {c: "Yes" if act == a else "No" for c, act in members},
            }
            for a in actions
        ]
    return out


def mcq_gold(clips: list[tuple[str, list[tuple[str, str]]]]) -> dict[str, Any]:
    """``{group: {clip: {Question, Choices, Correct Answer}}}``; two clips have two right answers."""
    r = rng(ID, "mcq")
    out: dict[str, Any] = {}
    for gi, (group, members) in enumerate(clips):
        out[group] = {}
        for k, (clip, action) in enumerate(members):
            sibling = next((a for _, a in members if a != action), "standing")
            multi = k == 0 and MULTI.get(gi) == action
            others = [a for a in ACTIONS if a not in (action, sibling)]
            texts = [action, SYNONYM[action] if multi else sibling, *r.sample(others, 2)]
            r.shuffle(texts)
            letters = "ABCD"
            right = [letters[i] for i, t in enumerate(texts) if t in (action, SYNONYM[action])]
            question = (
                "Which of the following describe what the person is doing in the video?"
                if multi
                else "What is the person doing in the video?"
            )
            out[group][clip] = {
                "Question": question,
                "Choices": dict(zip(letters, texts, strict=True)),
                "Correct Answer": "".join(right),
            }
    return out


def tsh_gold() -> dict[str, Any]:
    """``{idx: {video, Question, Correct Answer}}``: which of two actions happens first."""
    r = rng(ID, "tsh")
    out: dict[str, Any] = {}
    for i, (vid, (first, second)) in enumerate(zip(clip_ids("t", len(SEQUENCES)), SEQUENCES, strict=True)):
        order = "AB" if i % 2 == 0 else "BA"
        a, b = (first, second) if order == "AB" else (second, first)
        out[str(i)] = {
            "video": f"{vid}_clip_{r.randrange(1, 4)}",
            "Question": f"Action A. The person is {a}.\nAction B. The person is {b}.\n",
            "Correct Answer": order,
        }
    return out


def sth_gold() -> dict[str, Any]:
    """``{video_id: {"Scene change", "Locations"}}`` (empty locations when there is no change)."""
    return {
        f"{vid}_clip_1": {"Scene change": "Yes" if b else "No", "Locations": f"from {a} to {b}." if b else ""}
        for vid, (a, b) in zip(clip_ids("h", len(SCENES)), SCENES, strict=True)
    }
