"""DetailVerifyBench scoring: the case file, hand-sized sums and an independent reference scorer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_detailverifybench_spans import PIECES, official_flags

from analysis.benchmarks import detailverifybench as dvb
from analysis.benchmarks.detailverifybench.batch import CHUNK_TEXTS, tokenize_texts
from analysis.benchmarks.detailverifybench.scoring import compare, summarize
from analysis.benchmarks.detailverifybench.spans import (
    CLOSE,
    OPEN,
    TOKEN_PATTERN,
    is_no_hallucination,
    read_tags,
    sentence_token_counts,
    strip_tags,
    tokenize,
)

CASES = [
    json.loads(line)
    for line in (Path(__file__).parents[2] / "cases/detailverifybench.jsonl").read_text("utf-8").splitlines()
]
SCORE_CASES = [c for c in CASES if c["kind"] == "score"]
KEYS = [
    "token_precision",
    "token_recall",
    "token_f1",
    "token_iou",
    "sentence_precision",
    "sentence_recall",
    "sentence_f1",
    "response_precision",
    "response_recall",
    "response_f1",
    "n",
]


def H(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


def pipeline_record(gold: str, pred: str | None, **over: Any) -> dict[str, Any]:
    record = {
        "id": "img.png",
        "image_path": "./test/Chart/img.png",
        "original_caption": strip_tags(gold),
        "hallucinated_caption": strip_tags(gold),
        "gt_hallucinated_caption_with_tags": gold,
        "hallucinated_caption_with_tags": pred,
        "data_source": "real",
        "is_use_original": False,
        "validation_passed": True,
        "validation_message": "Validation passed",
        "attempt": 0,
        "seed": 42,
        "raw_output": f"<result>{pred}</result>",
    }
    record.update(over)
    return record


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------- case file

SCORE_RUNS = [(c, "official") for c in SCORE_CASES] + [(c, "aligned") for c in SCORE_CASES if "aligned" in c]


@pytest.mark.parametrize(
    ("case", "parser"), SCORE_RUNS, ids=lambda x: x["why"][:50] if isinstance(x, dict) else x
)
def test_score_cases(case: dict[str, Any], parser: str) -> None:
    expect = case if parser == "official" else case["aligned"]
    result = compare([case["gold"]], [case["raw_answer"]], parser)
    assert result.flags[0] == expect["expected_parse"], case["why"]
    assert bool(result.exact[0]) is expect["expected_correct"], case["why"]
    report = summarize(result, np.ones(1, dtype=bool))
    assert report == pytest.approx(expect["expected"]), case["why"]


def test_case_parses_through_the_loader(tmp_path: Path) -> None:
    records = [
        pipeline_record(c["gold"], c["raw_answer"], id=f"case{i}.png") for i, c in enumerate(SCORE_CASES)
    ]
    table = dvb.load(write(tmp_path / "tested_model_output_seed_42.json", records))
    assert table["parsed"].tolist() == [c["expected_parse"] for c in SCORE_CASES]
    assert table["correct"].tolist() == [c["expected_correct"] for c in SCORE_CASES]
    aligned = [(i, c["aligned"]) for i, c in enumerate(SCORE_CASES) if "aligned" in c]
    assert [table["alt_parsed"][i] for i, _ in aligned] == [a["expected_parse"] for _, a in aligned]
    assert (table["alt_parser"] == "aligned").all()


# ---------------------------------------------------------------- hand-sized sums


def test_macro_token_micro_response_over_three_items() -> None:
    gold = [f"a {H('red')} car.", f"{H('big')} {H('dog')} runs.", "a clean caption."]
    pred = [f"a {H('red car')}.", "NO HALLUCINATION", "a clean caption."]
    report = summarize(compare(gold, pred), np.ones(3, dtype=bool))
    # item 1: gold 010, pred 011 -> tp1 fp1 fn0: P 1/2, R 1, F1 2/3, IoU 1/2; one sentence, both positive
    # item 2: gold 110, pred 000 -> tp0 fn2: all 0, IoU 0/2 = 0; sentence fn
    # item 3: clean/clean -> P R F1 0 (0/0), IoU 1; no sentence positive
    assert report["token_precision"] == pytest.approx((0.5 + 0 + 0) / 3)
    assert report["token_recall"] == pytest.approx((1 + 0 + 0) / 3)
    assert report["token_f1"] == pytest.approx((2 / 3) / 3)
    assert report["token_iou"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert report["sentence_f1"] == pytest.approx(1 / 3)
    # response (micro): item 1 tp, item 2 fn, item 3 tn -> P 1/1, R 1/2, F1 2/3
    assert (report["response_precision"], report["response_recall"]) == (1.0, 0.5)
    assert report["response_f1"] == pytest.approx(2 / 3)
    assert report["n"] == 3


def test_sentence_level_per_item_ratios() -> None:
    gold = f"One {H('red')} car. Two cars. Three {H('blue')} cars. Four cars."
    pred = f"One {H('red')} car. Two {H('cars')}. Three blue cars. Four cars."
    report = summarize(compare([gold], [pred]), np.ones(1, dtype=bool))
    # sentences: gold positive {1, 3}, pred positive {1, 2} -> tp 1, fp 1, fn 1: P R F1 = 1/2
    assert (report["sentence_precision"], report["sentence_recall"], report["sentence_f1"]) == (0.5, 0.5, 0.5)


def test_label_type_recall_micro() -> None:
    gold = [f"a {H('red cuffs,')} and {H('two')} {H('dogs')}", f"{H('blue')} sky"]
    labels = [
        [
            {"text": "red cuffs", "labels": ["Object Color Hallucination"]},
            {"text": "two", "labels": ["Object Number Hallucination"]},
        ],
        [{"text": "Blue", "labels": ["Object Color Hallucination"]}],
    ]
    pred = [f"a {H('red')} cuffs, and {H('two')} dogs", "blue sky"]
    got = dvb.label_type_recall(gold, pred, labels)
    # colour: red, cuffs (item 1) + blue (item 2) = 3 gold tokens, caught red -> 1/3
    # number: two -> 1/1; "dogs" has no entry -> Unknown: 0/1
    assert got == {
        "Object Color Hallucination": {"token_recall": 1 / 3, "hits": 1, "n_tokens": 3},
        "Object Number Hallucination": {"token_recall": 1.0, "hits": 1, "n_tokens": 1},
        "Unknown": {"token_recall": 0.0, "hits": 0, "n_tokens": 1},
    }


# ---------------------------------------------------------------- an independent reference scorer


def reference_item(gold: str, pred: str) -> tuple[list[float], list[float], bool, bool]:
    """The official per-item numbers, written from docs/benchmarks/detailverifybench.md with plain loops."""
    g = official_flags(gold)
    p = [False] * len(g) if pred.strip().upper() == "NO HALLUCINATION" else official_flags(pred)
    m = min(len(g), len(p))
    g, p = g[:m], p[:m]
    tp = sum(a and b for a, b in zip(g, p, strict=True))
    fp = sum(b and not a for a, b in zip(g, p, strict=True))
    fn = sum(a and not b for a, b in zip(g, p, strict=True))
    if m == 0:
        token = [0.0, 0.0, 0.0, 0.0]
    else:
        pr = tp / (tp + fp) if tp + fp else 0.0
        rc = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * pr * rc / (pr + rc) if pr + rc else 0.0
        token = [pr, rc, f, tp / (tp + fp + fn) if tp + fp + fn else 1.0]
    clean = re.sub(f"{OPEN}|{CLOSE}", "", gold)
    s = stp = sfp = sfn = 0
    for sentence in [x for x in re.split(r"(?<=[.!?。！？])\s*", clean) if x.strip()]:
        end = min(s + len(TOKEN_PATTERN.findall(sentence)), m)
        if s < end:
            gs, ps = any(g[s:end]), any(p[s:end])
            stp += gs and ps
            sfp += ps and not gs
            sfn += gs and not ps
        s = end
    sp = stp / (stp + sfp) if stp + sfp else 0.0
    sr = stp / (stp + sfn) if stp + sfn else 0.0
    sf = 2 * sp * sr / (sp + sr) if sp + sr else 0.0
    return token, [sp, sr, sf], any(g), any(p)


def reference(golds: list[str], preds: list[str]) -> dict[str, float]:
    items = [reference_item(g, p) for g, p in zip(golds, preds, strict=True)]
    n = len(items)
    out = {
        f"token_{k}": sum(it[0][i] for it in items) / n
        for i, k in enumerate(["precision", "recall", "f1", "iou"])
    }
    out.update(
        {
            f"sentence_{k}": sum(it[1][i] for it in items) / n
            for i, k in enumerate(["precision", "recall", "f1"])
        }
    )
    tp = sum(it[2] and it[3] for it in items)
    pp = sum(it[3] for it in items)
    gp = sum(it[2] for it in items)
    rp, rr = (tp / pp if pp else 0.0), (tp / gp if gp else 0.0)
    out.update(
        response_precision=rp,
        response_recall=rr,
        response_f1=2 * rp * rr / (rp + rr) if rp + rr else 0.0,
        n=n,
    )
    return out


texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def variants(gold: str) -> st.SearchStrategy[str]:
    """Predictions: unrelated text, the gold re-tagged, the gold with a word inserted, NO HALLUCINATION."""
    words = strip_tags(gold).split(" ")
    return st.one_of(
        texts,
        st.lists(st.booleans(), min_size=len(words), max_size=len(words)).map(
            lambda marks: " ".join(H(w) if m else w for w, m in zip(words, marks, strict=True))
        ),
        st.integers(0, len(words)).map(lambda i: " ".join([*words[:i], "extra", *words[i:]])),
        st.sampled_from(["NO HALLUCINATION", " no hallucination ", "NO  HALLUCINATION"]),
    )


pairs = texts.flatmap(lambda g: st.tuples(st.just(g), variants(g)))


@settings(max_examples=300, deadline=None)
@given(st.lists(pairs, min_size=1, max_size=12))
def test_vectorised_scorer_matches_the_reference(items: list[tuple[str, str]]) -> None:
    golds, preds = [g for g, _ in items], [p for _, p in items]
    got = summarize(compare(golds, preds), np.ones(len(items), dtype=bool))
    assert got == pytest.approx(reference(golds, preds), rel=1e-12, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=8))
def test_batch_tokens_match_the_regex(captions: list[str]) -> None:
    table = tokenize_texts(captions)
    for i, text in enumerate(captions):
        lo, hi = table.offsets[i], table.offsets[i + 1]
        clean = strip_tags(text)
        assert table.cleans[i] == clean
        assert list(zip(table.starts[lo:hi].tolist(), table.ends[lo:hi].tolist(), strict=True)) == tokenize(
            clean
        )
        assert table.flags[lo:hi].tolist() == official_flags(text)
        _, ranges = read_tags(text)
        r_lo, r_hi = table.range_offsets[i], table.range_offsets[i + 1]
        assert table.range_texts[r_lo:r_hi] == [text[r.start : r.end] for r in ranges]
        first = table.first_range[lo:hi]
        for (s, e), k in zip(tokenize(clean), first.tolist(), strict=True):  # the first pair it overlaps
            hits = [j for j, r in enumerate(ranges) if s < r.clean_end and r.clean_start < e]
            assert k == (r_lo + hits[0] if hits else -1)
        # pieces and sentence ends reproduce the sentence-alone token counts
        sentence = table.ends_before[lo:hi] + 0
        counts: dict[int, int] = {}
        for first, n_pieces in zip(sentence.tolist(), table.pieces[lo:hi].tolist(), strict=True):
            for j in range(n_pieces):
                counts[first + j] = counts.get(first + j, 0) + 1
        assert [c for _, c in sorted(counts.items())] == [c for c in sentence_token_counts(clean) if c]


def test_batch_spans_several_chunks() -> None:
    captions = [f"w{i} {H('x' + str(i))} y.z" for i in range(CHUNK_TEXTS * 2 + 3)]
    table = tokenize_texts(captions)
    assert table.counts().tolist() == [3] * len(captions)
    assert table.flags.reshape(-1, 3).tolist() == [[False, True, False]] * len(captions)
    assert table.range_texts[-1] == f"x{len(captions) - 1}"
    assert table.first_range.reshape(-1, 3)[:, 1].tolist() == list(range(len(captions)))


@settings(max_examples=200, deadline=None)
@given(st.lists(pairs, min_size=1, max_size=8))
def test_aligned_equals_official_when_the_words_agree(items: list[tuple[str, str]]) -> None:
    # keep the pairs whose words agree (re-tagged gold, NO HALLUCINATION)
    same = [(g, p) for g, p in items if is_no_hallucination(p) or strip_tags(g) == strip_tags(p)]
    if not same:
        return
    golds, preds = [g for g, _ in same], [p for _, p in same]
    official, aligned = compare(golds, preds), compare(golds, preds, "aligned")
    assert official.flags == aligned.flags
    assert official.exact.tolist() == aligned.exact.tolist()


def test_items_spread_over_several_chunks_score_like_one_by_one() -> None:
    from analysis.benchmarks.detailverifybench.scoring import ITEMS_PER_CHUNK, compare_prepared, prepare

    golds = [f"a {H('red')} car {i}." if i % 3 else f"x{i} y." for i in range(ITEMS_PER_CHUNK * 2 + 5)]
    preds = [g if i % 2 else "NO HALLUCINATION" for i, g in enumerate(golds)]
    labels = [[{"text": "red", "labels": ["Object Color Hallucination"]}]] * len(golds)
    whole = compare(golds, preds, labels=labels)
    # "x0 y." answered NO HALLUCINATION, "a red car 1." answered itself, then NO HALLUCINATION, itself
    assert whole.flags[:4] == ["00", "0100", "0000", "00"]
    assert [len(whole.flags), whole.exact.size, whole.token["f1"].size] == [len(golds)] * 3
    # per-item numbers do not depend on the chunk an item falls in
    single = [compare([g], [p]) for g, p in zip(golds[-7:], preds[-7:], strict=True)]
    assert whole.token["f1"][-7:].tolist() == [c.token["f1"][0] for c in single]
    assert whole.flags[-7:] == [c.flags[0] for c in single]
    tagged = sum(1 for i in range(len(golds)) if i % 3)
    caught = sum(1 for i in range(len(golds)) if i % 3 and i % 2)
    assert whole.label_hits == {"Object Color Hallucination": (caught, tagged)}
    again = compare_prepared(prepare(golds, preds), "official", labels)
    assert again.flags == whole.flags and again.label_hits == whole.label_hits
