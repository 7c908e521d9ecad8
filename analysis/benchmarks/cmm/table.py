"""Building the CMM item table from the Arrow columns of :mod:`._cmm_read`, a million rows at a time.

Text is built once per distinct value and spread to the rows with one Arrow ``take``: the two
probes of a clip share their media, and the fields kept in ``extra`` take a handful of values.
Arrow columns are dropped as soon as they are used, so the peak memory stays near the size of the
finished table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.benchmarks.cmm import columns as col
from analysis.benchmarks.cmm.parse import verdicts
from analysis.benchmarks.cmm.read import Rows
from analysis.benchmarks.shared.yesno import READERS, code_to_word
from analysis.table.columns import extra_json, make_table

EXTRA_FIELDS = ("category", "modality", "correlation_type")
"""CMM fields without a column of their own, kept in ``extra`` (in this order)."""

_SLICE = 65536


def build(rows: Rows, *, name: str, model: str, alt_parser: str, with_pred: bool) -> pd.DataFrame:
    """The item table of ``rows`` (``with_pred``: fill the answer, parse and verdict columns).

    ``rows`` is consumed: its columns are released one by one as the table takes shape.
    """
    c, rows.columns = rows.columns, {}
    n = len(rows)
    video, audio, question, modality = _factorized(c)
    columns: dict[str, Any] = {
        "benchmark": col.const_category(name, n),
        "item_id": col.item_ids([video, audio, question]),
        "model": col.const_category(model, n),
        "task": col.const_category("", n),
        "alt_parser": col.const_category(alt_parser, n),
        "scored": np.ones(n, dtype=bool),
        "source": col.strings(rows.sources()),
    }
    columns["media"] = col.strings(_media(video, audio, modality))
    del video, audio
    columns["extra"] = col.strings(_extra(c, rows.unknown, modality.codes))
    columns["category"] = pd.Categorical(col.strings(c.pop("sub_category")))
    columns["subcategory"] = pd.Categorical(col.strings(c.pop("granularity")))
    columns["question"] = col.strings(c.pop("question"))
    columns["gold"] = col.strings(c.pop("answer"))
    if with_pred:
        pred = col.strings(c.pop("pred"))
        v = verdicts(columns["gold"], pred, READERS[alt_parser])
        columns |= {
            "raw_answer": pred,
            "parsed": code_to_word(v.code).array,
            "correct": pd.array(v.correct, dtype="boolean"),
            "alt_parsed": code_to_word(v.alt_code).array,
            "alt_correct": pd.array(v.alt_correct, dtype="boolean"),
        }
    for empty in ("options", "skip_reason", "pair_id", "side"):
        columns[empty] = col.const_strings("", n)
    return make_table(columns, length=n)


def _factorized(c: dict[str, Any]) -> tuple[col.Factors, col.Factors, col.Factors, col.Factors]:
    video = col.factorize(c.pop("video_path"))
    audio = col.factorize(c.pop("audio_path"))
    question = col.factorize(c["question"])
    modality = col.factorize(c["modality"])
    return video, audio, question, modality


def _media(video: col.Factors, audio: col.Factors, modality: col.Factors) -> pa.Array:
    """The ``media`` JSON of every row, the text :func:`analysis.table.columns.media_json` would give.

    Built once per distinct (video, audio, modality), since the two probes of a clip share it:
    with Arrow string joins when no path needs JSON escaping (always, in the release), else
    with :func:`_media_text` clip by clip.
    """
    clip = col.combine([video.codes, audio.codes, modality.codes])
    first = col.first_rows(clip)
    joint_of = np.array([m == "visual+audio" for m in modality.values] + [False], dtype=bool)
    joint = joint_of[modality.codes[first]]  # code -1 (no modality) picks the last, False
    plain = not any(
        pc.any(pc.match_substring_regex(f.array, col.NEEDS_ESCAPE)).as_py() for f in (video, audio)
    )
    build = _media_joined if plain else _media_texts
    return col.spread(build(video, audio, joint, first), clip)


def _media_joined(
    video: col.Factors, audio: col.Factors, joint: npt.NDArray[np.bool_], first: col.Ints
) -> pa.Array:
    is_joint = pa.array(joint)
    entries = []
    for kind, factors, roles in (
        ("video", video, ("silent video", "video")),
        ("audio", audio, ("audio track", "audio")),
    ):
        paths = _present(factors, first)
        ending = pc.if_else(is_joint, f'", "role": "{roles[0]}"}}', f'", "role": "{roles[1]}"}}')
        entries.append(pc.binary_join_element_wise(f'{{"kind": "{kind}", "path": "', paths, ending, ""))
    both = pc.and_(pc.is_valid(entries[0]), pc.is_valid(entries[1]))
    return pc.binary_join_element_wise(
        "[", pc.fill_null(entries[0], ""), pc.if_else(both, ", ", ""), pc.fill_null(entries[1], ""), "]", ""
    )


def _present(factors: col.Factors, first: col.Ints) -> pa.Array:
    """Each clip's path, null where there is none (null, ``"None"`` or ``""``)."""
    codes = factors.codes[first]
    with_null = pa.concat_arrays([factors.array, pa.nulls(1, pa.string())])
    values = pc.take(with_null, pa.array(np.where(codes >= 0, codes, len(factors.values))))
    named = pc.and_(pc.not_equal(values, "None"), pc.not_equal(values, ""))
    return pc.if_else(pc.fill_null(named, False), values, pa.scalar(None, pa.string()))


def _media_texts(
    video: col.Factors, audio: col.Factors, joint: npt.NDArray[np.bool_], first: col.Ints
) -> pa.Array:
    """The same text clip by clip in Python, a slice at a time (for paths that need escaping)."""
    pieces = []
    for start in range(0, len(first), _SLICE):
        rows = first[start : start + _SLICE]
        texts = [
            _media_text(video.values[v] if v >= 0 else None, audio.values[a] if a >= 0 else None, j)
            for v, a, j in zip(
                video.codes[rows].tolist(),
                audio.codes[rows].tolist(),
                joint[start : start + _SLICE].tolist(),
                strict=True,
            )
        ]
        pieces.append(pa.array(texts, pa.string()))
    return pa.concat_arrays(pieces) if pieces else pa.array([], pa.string())


def _media_text(video: str | None, audio: str | None, joint: bool) -> str:
    entries = []
    # "None" (a string) and "" name no file: the row has no such medium.
    if video and video != "None":
        role = "silent video" if joint else "video"
        entries.append(f'{{"kind": "video", "path": {col.quote(video)}, "role": "{role}"}}')
    if audio and audio != "None":
        role = "audio track" if joint else "audio"
        entries.append(f'{{"kind": "audio", "path": {col.quote(audio)}, "role": "{role}"}}')
    return "[" + ", ".join(entries) + "]"


def _extra(c: dict[str, Any], unknown: list[dict[str, Any]] | None, modality: col.Ints) -> pa.Array:
    """The ``extra`` JSON of every row: the fields without a column of their own (nulls left out)."""
    known = [c.pop(name) for name in EXTRA_FIELDS]
    if unknown is not None:
        # Unknown fields are rare and may hold anything: json.dumps row by row.
        values = [k.to_pylist() for k in known]
        texts = [_extra_text([v[i] for v in values], unknown[i]) for i in range(len(unknown))]
        return pa.array(texts, pa.string())
    combo = col.combine([col.factorize(known[0]).codes, modality, col.factorize(known[2]).codes])
    first = col.first_rows(combo)
    values = [col.take_rows(k, first).to_pylist() for k in known]
    texts = [_extra_text([v[i] for v in values], {}) for i in range(len(first))]
    return col.spread(pa.array(texts, pa.string()), combo)


def _extra_text(known: list[Any], unknown: dict[str, Any]) -> str:
    fields = {k: v for k, v in zip(EXTRA_FIELDS, known, strict=True) if v is not None}
    return extra_json({**fields, **unknown}, ())
