"""Small hand-made item tables and catalogs for the app's unit tests (no loader involved).

Every benchmark gets a few rows shaped like its module's output: two models, a wrong answer, a row
whose verdict depends on the parser, pairs, media references, an HTML payload in an answer.
"""

from __future__ import annotations

import asyncio
import gc
import json
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.benchmarks.base import Finding
from analysis.charts.common import derive_columns
from analysis.load.catalog import Catalog
from analysis.query import prepare
from analysis.table.columns import concat_tables, make_table, media_json

PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


def _rows(bench: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    columns: dict[str, list[Any]] = {}
    keys = sorted({k for r in rows for k in r})
    for key in keys:
        columns[key] = [r.get(key) for r in rows]
    return make_table({"benchmark": bench, "scored": True, **columns}, length=len(rows))


def cmm_table() -> pd.DataFrame:
    base = {
        "task": "",
        "category": "visual-language",
        "subcategory": "object-level",
        "alt_parser": "negation-aware",
    }
    rows = []
    for model, answers in (
        ("m1", ("Yes, a river.", "No.", "I did not see it")),
        ("m2", ("yes", "nothing there", PAYLOAD)),
    ):
        for i, (answer, gold) in enumerate(zip(answers, ("yes", "no", "no"), strict=True)):
            parsed = {"Yes, a river.": "yes", "yes": "yes", "No.": "no", "nothing there": "no"}.get(answer)
            correct = parsed == gold if parsed else False
            alt_correct = True if answer == "I did not see it" else correct
            rows.append(
                {
                    **base,
                    "item_id": f"cmm-{i}",
                    "model": model,
                    "question": f"Did you see thing {i}?",
                    "gold": gold,
                    "raw_answer": answer,
                    "parsed": parsed,
                    "correct": correct,
                    "alt_parsed": parsed or ("no" if alt_correct else None),
                    "alt_correct": alt_correct,
                    "media": media_json(
                        [
                            ("video", f"./raw_files/v{i}.mp4", "silent video"),
                            ("audio", f"./raw_files/a{i}.wav", "audio track"),
                        ]
                    ),
                }
            )
    return _rows("cmm", rows)


def avh_table() -> pd.DataFrame:
    rows = []
    for model, answer in (("m1", "Yes."), ("m2", "No, nothing.")):
        for task, cat in (("Audio-driven Video Hallucination", ""), ("Video-driven Audio Hallucination", "")):
            correct = answer.startswith("Yes")
            rows.append(
                {
                    "item_id": f"avh-{task[:5]}",
                    "model": model,
                    "task": task,
                    "category": cat,
                    "question": "Is the man visible in the video?",
                    "gold": "Yes",
                    "raw_answer": answer,
                    "parsed": "yes" if correct else "no",
                    "correct": correct,
                    "alt_parser": "negation-aware",
                    "alt_parsed": "yes" if correct else "no",
                    "alt_correct": correct,
                    "media": media_json([("video", "00191.mp4", "video")]),
                }
            )
    return _rows("avhbench", rows)


def cdh_table() -> pd.DataFrame:
    rows = []
    for model in ("m1", "m2"):
        for side, gold, answer in (("counterfactual", "no", "Yes"), ("commonsense", "yes", "Yes")):
            rows.append(
                {
                    "item_id": f"cdh-1-{side}",
                    "model": model,
                    "task": "qa",
                    "category": "Counting Anomalies",
                    "subcategory": "Body Parts",
                    "question": "Does the hand have five fingers?",
                    "gold": gold,
                    "raw_answer": answer,
                    "parsed": "yes",
                    "correct": gold == "yes",
                    "alt_parser": "strict",
                    "alt_parsed": "yes",
                    "alt_correct": gold == "yes",
                    "pair_id": "Pair 1",
                    "side": side,
                    "media": media_json([("image", f"images/Body_Parts/Pair_1/{side}.png", side)]),
                    "extra": json.dumps({"commonsense_error": side == "counterfactual", "cs_gt": "yes"}),
                }
            )
    return _rows("cdh-bench", rows)


def vidhalluc_table() -> pd.DataFrame:
    rows = [
        {
            "item_id": "tsh-0",
            "model": "m1",
            "task": "tsh",
            "category": "",
            "question": "Action A. open the door\nAction B. sit down\n",
            "gold": "AB",
            "raw_answer": "B then A",
            "parsed": "BA",
            "correct": False,
            "alt_parser": "lenient",
            "alt_parsed": "BA",
            "alt_correct": False,
            "media": media_json([("video", "clip_0.mp4", "clip")]),
        }
    ]
    return _rows("vidhalluc", rows)


GOLD_TAGGED = "A man <HALLUCINATION>with red cuffs,</HALLUCINATION> blue trousers and a hat."
PRED_TAGGED = "A man with <HALLUCINATION>red cuffs, blue</HALLUCINATION> trousers and a hat."


def dvb_table() -> pd.DataFrame:
    labels = [{"text": "with red cuffs,", "labels": ["Object Color Hallucination"]}]
    rows = [
        {
            "item_id": "dvb-1",
            "model": "m1",
            "category": "Movie",
            "question": "A man with red cuffs, blue trousers.",
            "gold": GOLD_TAGGED,
            "raw_answer": PRED_TAGGED,
            "parsed": "0001110000",
            "correct": False,
            "alt_parser": "aligned",
            "alt_parsed": "0001110000",
            "alt_correct": False,
            "media": media_json([("image", "./test/Movie/x.png", "image")]),
            "extra": json.dumps({"hallucination_labels": labels}),
        },
        {
            "item_id": "dvb-2",
            "model": "m1",
            "category": "Chart",
            "question": "A chart.",
            "gold": "A chart.",
            "raw_answer": "<HALLUCINATION>A chart",
            "parsed": None,
            "correct": None,
            "scored": False,
            "skip_reason": "Tag counts differ",
            "media": media_json([("image", "./test/Chart/y.png", "image")]),
        },
    ]
    return _rows("detailverifybench", rows)


def all_tables() -> pd.DataFrame:
    return concat_tables([avh_table(), cmm_table(), vidhalluc_table(), cdh_table(), dvb_table()])


def write_media(root: Path) -> dict[str, tuple[Path, ...]]:
    """Create the media files the tables refer to (contents are placeholders) under ``root``."""
    files = {
        "cmm": ["reorg_raw_files/v0.mp4", "reorg_raw_files/a0.wav", "reorg_raw_files/v1.mp4"],
        "avhbench": ["00191.mp4"],
        "cdh-bench": [
            "images/Body_Parts/Pair_1/counterfactual.png",
            "images/Body_Parts/Pair_1/commonsense.png",
        ],
        "vidhalluc": ["TSH_videos/clip_0.mp4"],
        "detailverifybench": ["Movie/x.png"],
    }
    roots = {}
    for bench, names in files.items():
        for name in names:
            path = root / bench / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"\x00")
        roots[bench] = (root / bench,)
    return roots


def catalog(tmp: Path | None = None, errors: list[str] | None = None) -> Catalog:
    """A catalog over :func:`all_tables` (with media under ``tmp`` when given)."""
    finding = Finding("conflicting-duplicate", "00191", "two labels", "warning", ("avh-Audio",))
    table = derive_columns(prepare(all_tables(), {"avh-Audio"}))
    roots = write_media(tmp) if tmp is not None else {}
    return Catalog(table, {"avhbench": [finding]}, list(errors or []), roots)


# Gradio's App.__init__ (gradio/utils.py safe_get_lock, safe_get_stop_event) makes a new asyncio
# event loop per Blocks and never closes it: the replaced loop is freed at once (a ResourceWarning,
# an error under -W error) and the last one stays set. Tests that build apps ignore exactly those
# two warnings and close the loop left behind.
GRADIO_LOOP_WARNINGS = (
    # Gradio 6.31's queue sets a pandas option pandas 3 deprecates (see pyproject); -W error on the
    # command line outranks the ini filter, a mark outranks both.
    pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning"),
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
)


def builds_the_app(test: Callable[..., None]) -> Callable[..., None]:
    """Mark one test that builds the app as a module of them is: :data:`GRADIO_LOOP_WARNINGS` and
    ``close_gradio_loop`` (which the test's module imports, so pytest finds it by name)."""
    for mark in (*GRADIO_LOOP_WARNINGS, pytest.mark.usefixtures("close_gradio_loop")):
        test = mark(test)
    return test


def release_gradio_loops() -> None:
    """Close the event loop a Blocks construction left set as current, and free the orphaned ones."""
    policy = asyncio.get_event_loop_policy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            loop = policy.get_event_loop()
        except RuntimeError:
            loop = None
        if loop is not None and not loop.is_running():
            loop.close()
            policy.set_event_loop(None)
        gc.collect()  # the orphaned loops sit in reference cycles: free them here, not in a later test


@pytest.fixture
def close_gradio_loop() -> Iterator[None]:
    """Release Gradio's event loops after a test that built an app."""
    yield
    release_gradio_loops()
