"""DetailVerifyBench samples: ``real_test.jsonl`` gold and the official pipeline output per model.

Models tag character spans of the caption they were shown, so their tagged output re-joins to the
input exactly and passes the pipeline's validation; one output rewrites a word instead (fails
validation, dropped by the scorer) and some answer ``NO HALLUCINATION``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _gen_common import MODELS, image_info, prediction_entry, rel, rng, write_json, write_jsonl
from _gen_dvb_data import ENTRIES, Entry, H, W

ID = "detailverifybench"
OPEN, CLOSE = "<HALLUCINATION>", "</HALLUCINATION>"
RAW_SPELLING = 3
"""Entry whose gold file row uses ``<Hallucination>``, as some raw gold files do."""
INVALID = ("commonsense-prior", 7)
"""(model, entry) whose answer rewrites a word of the caption and so fails validation."""
RETRIED = ("balanced", 4)
MARK = re.compile(r"\[([^|\]]*)\|([^|\]]*)\|([^|\]]*?)(\|p)?\]")


@dataclass(frozen=True)
class Span:
    """A gold hallucination: its character range in the checked caption, label, plausibility."""

    start: int
    end: int
    text: str
    label: str
    plausible: bool


@dataclass(frozen=True)
class Caption:
    """The clean caption, the checked (hallucinated) one, its tagged form and the gold spans."""

    clean: str
    checked: str
    tagged: str
    spans: tuple[Span, ...]


def parse(marked: str) -> Caption:
    """Expand ``[original|hallucinated|Label|p]`` markers (see ``_gen_dvb_data``)."""
    clean, checked, tagged, spans, pos = "", "", "", [], 0
    for m in MARK.finditer(marked):
        literal = marked[pos : m.start()]
        orig, hall, label, plausible = m.groups()
        core = hall.lstrip()
        lead = hall[: len(hall) - len(core)]
        start = len(checked) + len(literal) + len(lead)
        spans.append(Span(start, start + len(core), core, f"{label} Hallucination", plausible is not None))
        clean += literal + orig
        checked += literal + hall
        tagged += literal + lead + OPEN + core + CLOSE
        pos = m.end()
    tail = marked[pos:]
    return Caption(clean + tail, checked + tail, tagged + tail, tuple(spans))


def gold_row(index: int, entry: Entry) -> dict[str, Any]:
    """One ``real_test.jsonl`` row."""
    cap = parse(entry.caption)
    tagged = cap.tagged
    if index == RAW_SPELLING:
        tagged = tagged.replace(OPEN, "<Hallucination>").replace(CLOSE, "</Hallucination>")
    return {
        "filename": entry.filename,
        "category": entry.domain,
        "GT_description": cap.clean,
        "Modify": "Yes" if cap.spans else "No",
        "description_tag": tagged,
        "hallucination_labels": [{"text": s.text, "labels": [s.label]} for s in cap.spans],
    }


# ---------------------------------------------------------------- model answers


def _widen(text: str, start: int) -> int:
    """Start of the word before ``start`` (a model tagging one word too many)."""
    k = start - 1
    while k > 0 and text[k - 1] == " ":
        k -= 1
    while k > 0 and text[k - 1] not in ' "':
        k -= 1
    return max(k, 0)


def choose_spans(
    model: str, text: str, cap: Caption, entry: Entry, r: random.Random
) -> list[tuple[int, int]]:
    """Character ranges of ``text`` (the caption the model saw) that the model tags."""
    gold = [s for s in cap.spans] if text == cap.checked else []
    decoys = [(i, i + len(d)) for d in entry.decoys if (i := text.find(d)) >= 0]
    chosen: list[tuple[int, int]] = []
    if model == "yes-biased":  # flags everything suspicious, boundaries generous
        chosen = [(_widen(text, s.start) if r.random() < 0.5 else s.start, s.end) for s in gold] + decoys
    elif model == "balanced":
        for s in gold:
            if r.random() < 0.85:
                last = s.text.rsplit(" ", 1)[-1]
                chosen.append((s.start, s.end) if r.random() < 0.7 else (s.end - len(last), s.end))
        if decoys and r.random() < 0.25:
            chosen.append(decoys[0])
    else:  # commonsense prior: plausible details pass unnoticed
        chosen = [(s.start, s.end) for s in gold if not s.plausible]
    return _merge(chosen)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def tag(text: str, spans: list[tuple[int, int]]) -> str:
    """Wrap the ranges in tags; no ranges gives ``NO HALLUCINATION``."""
    if not spans:
        return "NO HALLUCINATION"
    out, pos = "", 0
    for a, b in spans:
        out += text[pos:a] + OPEN + text[a:b] + CLOSE
        pos = b
    return out + text[pos:]


def validate(answer: str, caption: str) -> tuple[bool, str]:
    """The pipeline's check: NO HALLUCINATION, or balanced unnested tags over the same words."""
    if answer.strip().upper() == "NO HALLUCINATION":
        return True, "Valid: no hallucination reported"
    opens, closes = answer.count(OPEN), answer.count(CLOSE)
    depth = 0
    for m in re.finditer(re.escape(OPEN) + "|" + re.escape(CLOSE), answer):
        depth += 1 if m.group() == OPEN else -1
        if depth not in (0, 1):
            return False, "Invalid: nested or unbalanced tags"
    if opens != closes:
        return False, f"Invalid: {opens} opening and {closes} closing tags"
    untagged = answer.replace(OPEN, "").replace(CLOSE, "")
    if re.findall(r"\b\w+\b", untagged) != re.findall(r"\b\w+\b", caption):
        return False, "Invalid: the words outside the tags differ from the input caption"
    return True, "Valid"


_WRAP = {
    "yes-biased": "Here is the caption with every hallucinated span marked.\n<result>{}</result>",
    "balanced": "<result>{}</result>",
    "commonsense-prior": "<think>The description matches what such a picture usually contains; I only mark "
    "details that are implausible.</think>\n<result>{}</result>",
}


def output_record(model: str, index: int, entry: Entry, r: random.Random) -> dict[str, Any]:
    """One record of the pipeline's ``tested_model_output_seed_42.json`` for one model."""
    cap = parse(entry.caption)
    use_original = not cap.spans
    shown = cap.clean if use_original else cap.checked
    answer = tag(shown, choose_spans(model, shown, cap, entry, r))
    attempt = 2 if (model, index) == RETRIED else 1
    if (model, index) == INVALID:
        # The model "corrected" the caption instead of tagging it: the pipeline gives up after 3 tries.
        answer = answer.replace("70%", "50%")
        attempt = 3
    passed, message = validate(answer, shown)
    return {
        "id": entry.filename,  # the image id, as the gold file's `filename`: the loaders join on it
        "image_path": f"./test/{entry.domain}/{entry.filename}",
        "original_caption": cap.clean,
        "hallucinated_caption": cap.checked,
        "gt_hallucinated_caption_with_tags": shown if use_original else cap.tagged,
        "hallucinated_caption_with_tags": answer,
        "data_source": "real",
        "is_use_original": use_original,
        "validation_passed": passed,
        "validation_message": message,
        "attempt": attempt,
        "seed": 42,
        "raw_output": _WRAP[model].format(answer),
    }


def build(root: Path, media: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Write the DetailVerifyBench sample set; return its manifest entry and media index."""
    base = root / ID
    gold = base / "real_test.jsonl"
    write_jsonl(gold, [gold_row(i, e) for i, e in enumerate(ENTRIES)])
    entries = []
    for model in MODELS:
        r = rng(ID, model)
        path = base / "predictions" / f"{model}.json"
        write_json(path, [output_record(model, i, e, r) for i, e in enumerate(ENTRIES)])
        entries.append(prediction_entry(path, root, gold=gold))  # its label types: the per-label chart
    index: dict[str, dict[str, Any]] = {}
    for entry in ENTRIES:
        # The pipeline writes "./test/<Domain>/<file>"; the media root is that "test" folder.
        path = base / "media" / entry.domain / entry.filename
        if media:
            path.parent.mkdir(parents=True, exist_ok=True)
            img = entry.image()
            if path.suffix == ".jpg":
                img.save(path, quality=85)
            else:
                img.save(path, optimize=True)
        index[rel(path, root)] = image_info((W, H))
    return {"media_root": f"{ID}/media", "gold": [rel(gold, root)], "predictions": entries}, index
