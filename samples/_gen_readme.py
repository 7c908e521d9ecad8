"""The README written beside the samples: what each set contains and which quirks are seeded."""

from __future__ import annotations

from pathlib import Path

TEXT = """\
# Bundled sample sets (generated)

Synthetic, small sample sets for the five benchmarks, in each benchmark's **native file format**,
with real media. Written by `python samples/generate.py` (deterministic; do not edit by hand).
Nothing here is real benchmark data: scores on it mean nothing beyond exercising the tools.

- `manifest.json`: per benchmark, the media root, gold files and prediction files (`model` = the
  file's stem, `task`, and the `gold` file a loader needs, else null). Paths relative to this folder.
- `media.json`: every media file with its kind and what it should be (duration, whether an mp4
  carries an audio track, image size); `"broken": true` marks the deliberately unreadable video.

Three simulated models per benchmark: `yes-biased` (answers yes far too often; first-option and
listing-order bias where there is no yes/no), `balanced` (mostly right, random errors),
`commonsense-prior` (answers what usually holds: fails CDH-Bench counterfactuals, says yes to
typical co-occurrences in CMM, assumes both clips of a VidHalluc pair show the same action, misses
plausible caption hallucinations). Answers are worded like real model text, including some that
official parsers misread ("Sure, yes", "nothing", "A person is running.", "AB.", "不是，...").

Per set: gold, predictions, media, and the quirks seeded on purpose.

- **avhbench**: `QA.json` (all 4 tasks); predictions = gold records + `pred`; 12 mp4 of moving
  shapes with an embedded AAC track (pitch and rhythm identify the sound source). Seeded: one
  exact duplicate record, one repeated key with the opposite label, off-screen sounds, silent
  objects.
- **cmm**: `all_data_final_reorg.json` (JSONL despite the name); predictions = rows + `pred`. Media
  under `media/reorg_raw_files/...` while rows say `./raw_files/...`; visual+audio clips are a
  silent mp4 plus a wav; audio-language rows have `video_path: "None"`. A yes- and a no-probe per
  clip.
- **vidhalluc**: `ach_binaryqa.json`, `ach_mcq.json`, `tsh.json`, `sth.json`; predictions in
  `predictions/<task>/<model>.json`; flat `media/<clip_id>.mp4` (a stick figure doing one action;
  TSH: two actions in turn; STH: maybe a change of place half-way). Seeded: multi-letter MCQ gold,
  one truncated, unreadable ACH clip, a group missing from one run, a null clip answer.
- **cdh-bench**: `benchmark.jsonl` (key order varies by line); the official `results.jsonl` per
  model; `media/images/<subcategory>/<Pair_N>/{commonsense,counterfactual}.png`. Seeded: Pair 11
  inverted yes/no polarity, Pair 8 the same mc gold on both sides, Pair 6 duplicate options,
  retried `error` records, `missing_image` records, `<think>` answers.
- **detailverifybench**: `real_test.jsonl`; the official pipeline output list per model;
  `media/<Domain>/<file>` drawings (outputs say `./test/<Domain>/<file>`: the media
  root stands for the release's `test/` folder). Seeded: a gold row spelled `<Hallucination>`, an output
  that fails validation, `NO HALLUCINATION` answers.
"""


def write(root: Path) -> None:
    """Write ``README.md`` under the samples root."""
    (root / "README.md").write_text(TEXT, encoding="utf-8")
