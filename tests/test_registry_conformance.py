"""One test over the whole registry: every benchmark module offers the same interface and card."""

import json
from pathlib import Path

import pytest

from analysis.benchmarks import REGISTRY, UnknownBenchmark, get

ROOT = Path(__file__).resolve().parents[1]

# overall keys and group names per benchmark (and task), from shared/spec/cli.md
CONTRACT: dict[tuple[str, str | None], tuple[set[str], set[str]]] = {
    ("avhbench", None): (
        {"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n", "unparsed"},
        {"task"},
    ),
    ("cmm", None): ({"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n"},
                    {"sub_category", "granularity"}),
    ("vidhalluc", "bqa"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "mcq"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "tsh"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "sth"): ({"mcc", "classification_score", "description_score", "score", "n"}, set()),
    ("cdh-bench", None): (set(), {"task", "task/category"}),
    ("detailverifybench", None): (
        {"token_precision", "token_recall", "token_f1", "token_iou", "sentence_precision",
         "sentence_recall", "sentence_f1", "response_precision", "response_recall", "response_f1", "n"},
        {"domain"},
    ),
}
CDH_KEYS = {"cf_acc", "cs_acc", "cfad", "ccr", "rpd", "n_cf", "n_cs"}


@pytest.mark.parametrize("name", list(REGISTRY))
def test_module_interface(name: str) -> None:
    bench = REGISTRY[name]
    assert name == bench.NAME
    assert isinstance(bench.VERSION, str) and bench.VERSION
    assert bench.PARSERS and bench.ALT_PARSER in bench.PARSERS
    assert bench.TASK_REQUIRED in (True, False)
    if bench.TASK_REQUIRED:
        assert bench.TASKS
    for fn in ("load", "load_gold", "score", "audit", "cluster_stats"):
        assert callable(getattr(bench, fn)), f"{name}.{fn}"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_module_opens_with_its_card(name: str) -> None:
    doc = (REGISTRY[name].__doc__ or "").lower()  # type: ignore[attr-defined]
    for word in ("official", "version", "quirk", "changelog"):
        assert word in doc, f"{name}'s card does not mention {word!r}"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_case_file_has_a_reason_per_case(name: str) -> None:
    path = ROOT / "tests" / "cases" / f"{name}.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) >= 10, f"{path} has only {len(lines)} cases"
    for case in lines:
        assert str(case.get("why", "")).strip(), f"{path}: a case without its reason: {case}"


def test_unknown_benchmark_suggests_the_closest() -> None:
    with pytest.raises(UnknownBenchmark, match="did you mean 'cdh-bench'"):
        get("cdh_bnch")
    assert get("CDH_Bench").NAME == "cdh-bench"


def _sample_predictions() -> list[tuple[str, dict[str, str | None]]]:
    manifest = ROOT / "samples" / "manifest.json"
    if not manifest.exists():
        return []
    data = json.loads(manifest.read_text(encoding="utf-8"))
    out = []
    for name, entry in data["benchmarks"].items():
        for pred in entry["predictions"]:
            out.append((name, pred))
    return out


@pytest.mark.parametrize(("name", "pred"), _sample_predictions())
def test_sample_scores_follow_the_contract(name: str, pred: dict[str, str | None]) -> None:
    bench = get(name)
    samples = ROOT / "samples"
    gold = samples / pred["gold"] if pred.get("gold") else None
    task = pred.get("task")
    table = bench.load(samples / str(pred["path"]), gold=gold, task=task)
    report = bench.score(table, task=task, parser=bench.PARSERS[0])
    overall_keys, groups = CONTRACT[(name, task if name == "vidhalluc" else None)]
    assert set(report) == {"benchmark", "task", "parser", "n_scored", "n_skipped", "overall", "groups"}
    assert report["benchmark"] == name
    assert set(report["overall"]) == overall_keys
    assert set(report["groups"]) == groups
    for rows in report["groups"].values():
        for metrics in rows.values():
            expected = CDH_KEYS if name == "cdh-bench" else overall_keys
            assert set(metrics) == expected
    assert report["n_scored"] > 0
    json.dumps(report, allow_nan=False)  # plain JSON: no NaN, no numpy types


@pytest.mark.parametrize("name", list(REGISTRY))
def test_score_refuses_an_unknown_parser_by_name(name: str) -> None:
    from analysis.table import empty_table

    bench = REGISTRY[name]
    task = bench.TASKS[0] if bench.TASK_REQUIRED else None
    with pytest.raises(ValueError) as err:
        bench.score(empty_table(), task=task, parser="no-such-parser")
    message = str(err.value)
    assert "unknown parser 'no-such-parser'" in message
    assert name in message and bench.PARSERS[0] in message
