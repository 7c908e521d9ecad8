"""One test over the whole registry: every benchmark module offers the same interface and card."""

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.benchmarks import REGISTRY, UnknownBenchmark, get
from analysis.errors import UsageError
from analysis.files.harness import FORMATS

ROOT = Path(__file__).resolve().parents[1]

# overall keys and group names per benchmark (and task), from docs/cli.md
CONTRACT: dict[tuple[str, str | None], tuple[set[str], set[str]]] = {
    ("avhbench", None): (
        {"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n", "unparsed"},
        {"task"},
    ),
    ("cmm", None): (
        {"accuracy", "precision", "recall", "f1", "yes_ratio", "pa", "hr", "n"},
        {"sub_category", "granularity"},
    ),
    ("vidhalluc", "bqa"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "mcq"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "tsh"): ({"accuracy", "n"}, set()),
    ("vidhalluc", "sth"): ({"mcc", "classification_score", "description_score", "score", "n"}, set()),
    ("cdh-bench", None): (set(), {"task", "task/category"}),
    ("detailverifybench", None): (
        {
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
        },
        {"domain"},
    ),
}
CDH_KEYS = {"cf_acc", "cs_acc", "cfad", "ccr", "rpd", "n_cf", "n_cs"}
LABEL_TYPE_KEYS = {"token_recall", "hits", "n_tokens"}
"""DetailVerifyBench's recall per gold label type (a group only when the gold file is given)."""


NAMES = ("NAME", "TASKS", "TASK_REQUIRED", "PARSERS")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_the_names_read_without_the_package_say_what_the_package_says(name: str) -> None:
    # the command line checks --task and --parser against names.py before the package (and
    # pandas) is imported: both must agree, and names.py must import nothing
    import ast
    import subprocess
    import sys

    folder = ROOT / "analysis" / "benchmarks" / REGISTRY._modules[name].rsplit(".", 1)[-1]
    tree = ast.parse((folder / "names.py").read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in imports)
    probe = (
        "import json, sys; from analysis.benchmarks import names; c = names(sys.argv[1]); "
        f"print(json.dumps({{k: getattr(c, k) for k in {NAMES!r}}})); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('analysis.benchmarks.'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, name], capture_output=True, text=True, cwd=ROOT, check=True
    )
    said, loaded = (json.loads(line) for line in done.stdout.splitlines())
    assert loaded == [], f"reading names.py imported {loaded}"
    bench = get(name)
    assert said == {
        k: list(v) if isinstance(v, tuple) else v for k, v in ((k, getattr(bench, k)) for k in NAMES)
    }


@pytest.mark.parametrize("name", [n for n in REGISTRY if REGISTRY.early(n) is not None])
def test_an_early_read_loads_without_its_package_or_pandas(name: str) -> None:
    # `halluscope score` starts early.read before it imports the package: loading early.py must
    # import neither the package (it would import pandas) nor pandas itself
    import subprocess
    import sys

    probe = (
        "import json, sys; from analysis.benchmarks import early; m = early(sys.argv[1]); "
        "print(json.dumps([callable(m.read), sorted(k for k in sys.modules "
        "if k.startswith(('analysis.benchmarks.', 'pandas', 'duckdb')))]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, name], capture_output=True, text=True, cwd=ROOT, check=True
    )
    readable, loaded = json.loads(done.stdout)
    assert readable and loaded == [], f"loading early.py imported {loaded}"


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
    assert set(FORMATS) - {"native"} >= bench.HARNESS_FORMATS, name


@pytest.mark.parametrize("name", [n for n, b in REGISTRY.items() if not b.HARNESS_FORMATS])
def test_a_benchmark_that_reads_no_harness_format_refuses_them(name: str, tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text('{"doc_id": 0, "resps": [["yes"]]}\n', encoding="utf-8")
    for fmt in set(FORMATS) - {"native"}:
        with pytest.raises(UsageError):
            REGISTRY[name].load(path, fmt=fmt)


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
    if name == "detailverifybench" and gold is not None:
        groups = groups | {"label_type"}
    assert set(report) == {"benchmark", "task", "parser", "n_scored", "n_skipped", "overall", "groups"}
    assert report["benchmark"] == name
    assert set(report["overall"]) == overall_keys
    assert set(report["groups"]) == groups
    for group, rows in report["groups"].items():
        for metrics in rows.values():
            expected = CDH_KEYS if name == "cdh-bench" else overall_keys
            assert set(metrics) == (LABEL_TYPE_KEYS if group == "label_type" else expected)
    assert report["n_scored"] > 0
    json.dumps(report, allow_nan=False)  # plain JSON: no NaN, no numpy types


@pytest.mark.parametrize("name", list(REGISTRY))
def test_score_refuses_an_unknown_parser_by_name(name: str) -> None:
    from analysis.table.columns import empty_table

    bench = REGISTRY[name]
    task = bench.TASKS[0] if bench.TASK_REQUIRED else None
    with pytest.raises(ValueError) as err:
        bench.score(empty_table(), task=task, parser="no-such-parser")
    message = str(err.value)
    assert "unknown parser 'no-such-parser'" in message
    assert name in message and bench.PARSERS[0] in message


# --- the protocol: every part, for every benchmark (a missing part is an error, never a skip) ---


def _protocol_parts() -> tuple[list[str], list[str]]:
    from analysis.benchmarks.base import Benchmark

    attributes = [a for a in Benchmark.__annotations__ if a.isupper()]
    methods = [m for m in vars(Benchmark) if not m.startswith("_") and callable(vars(Benchmark)[m])]
    return attributes, methods


def test_the_protocol_lists_every_part() -> None:
    attributes, methods = _protocol_parts()
    expected = {"DETECT_RANK", "TAKES_GOLD", "NEEDS_GOLD", "TRY_EACH_GOLD", "CHARTS", "DERIVED"}
    assert expected <= set(attributes)
    assert {
        "load",
        "load_gold",
        "score",
        "audit",
        "recognise",
        "gold_kind",
        "rescore",
        "write_corrected",
        "derive",
        "native_keys",
    } <= set(methods)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_protocol_part_is_there(name: str) -> None:
    from analysis.benchmarks.base import Chart, Derived

    bench = REGISTRY[name]
    attributes, methods = _protocol_parts()
    for attribute in attributes:
        assert hasattr(bench, attribute), f"{name} lacks {attribute}"
    for method in methods:
        assert callable(getattr(bench, method, None)), f"{name} lacks {method}()"
    assert isinstance(bench.DETECT_RANK, int)
    assert bench.TAKES_GOLD in (True, False) and bench.TRY_EACH_GOLD in (True, False)
    assert {None, *bench.TASKS} >= bench.NEEDS_GOLD
    assert all(isinstance(c, Chart) for c in bench.CHARTS)
    assert all(isinstance(d, Derived) and d.cell in ("key", "sum", "row") for d in bench.DERIVED.values())
    chart_names = [c.name for c in bench.CHARTS]
    assert len(set(chart_names)) == len(chart_names)
    if bench.NEEDS_GOLD:
        assert bench.TAKES_GOLD, f"{name} needs gold for some task but takes none"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_one_package_sample_folder_and_test_folder_per_benchmark(name: str) -> None:
    module = REGISTRY[name]
    package = Path(module.__file__)  # type: ignore[attr-defined]
    assert package.name == "__init__.py" and package.parent.parent == ROOT / "analysis" / "benchmarks"
    assert package.parent.name == name.replace("-", "_")
    assert (ROOT / "samples" / name).is_dir()
    assert (ROOT / "tests" / "benchmarks" / name).is_dir()


def _sample_files() -> list[tuple[str, str, str | None, str]]:
    """(benchmark, path, task, role) of every file the sample manifest lists."""
    manifest = ROOT / "samples" / "manifest.json"
    if not manifest.exists():
        return []
    data = json.loads(manifest.read_text(encoding="utf-8"))
    out: list[tuple[str, str, str | None, str]] = []
    for name, entry in data["benchmarks"].items():
        out += [(name, g, None, "gold") for g in entry.get("gold", [])]
        out += [(name, p["path"], p.get("task"), "predictions") for p in entry["predictions"]]
    return out


@pytest.mark.parametrize(("name", "path", "task", "role"), _sample_files())
def test_each_benchmark_recognises_its_own_files(name: str, path: str, task: str | None, role: str) -> None:
    from analysis.load.detect import detect

    found = detect(ROOT / "samples" / path)
    assert (found.benchmark, found.role) == (name, role)
    if task is not None:
        assert found.task == task


@pytest.mark.parametrize(("name", "path", "task", "role"), _sample_files())
def test_gold_kinds_are_known_for_every_sample_item(
    name: str, path: str, task: str | None, role: str
) -> None:
    from analysis.benchmarks.base import GoldKind

    bench = REGISTRY[name]
    file = ROOT / "samples" / path
    if role != "gold":
        return
    table = bench.load_gold([file])
    found = [
        bench.gold_kind(str(t), None if g is None or g is pd.NA else str(g))
        for t, g in zip(table["task"], table["gold"], strict=True)
    ]
    assert found and all(isinstance(k, GoldKind) for k in found)
    kinds = {k.name for k in found}
    assert kinds != {"text"} or name == "avhbench"  # only AVHBench's captioning references are free text
    for kind in found:  # a form the review panel can build, with what that form needs
        assert kind.form != "choice" or kind.choices
        assert kind.form != "choice-and-text" or (kind.choices and kind.compose and kind.split)
        assert kind.form != "tagged" or kind.tagging is not None


@pytest.mark.parametrize(("name", "path", "task", "role"), _sample_files())
def test_an_uncorrected_copy_reads_back_as_the_original(
    name: str, path: str, task: str | None, role: str, tmp_path: Path
) -> None:
    """write_corrected with no corrections is the identity on what the loaders read."""
    bench = REGISTRY[name]
    file = ROOT / "samples" / path
    text = bench.write_corrected(file, {})
    if text is None:  # a prediction file without gold inside
        assert role == "predictions"
        return
    copy = tmp_path / file.name
    copy.write_text(text, encoding="utf-8")
    if role == "gold":
        before, after = bench.load_gold([file]), bench.load_gold([copy])
    else:
        t, g = {p: (t, g) for p, t, g in _predictions_with_gold()}[path]
        before, after = bench.load(file, gold=g, task=t), bench.load(copy, gold=g, task=t)
    cols = ["item_id", "gold", "correct", "alt_correct", "scored"]
    pd.testing.assert_frame_equal(before[cols], after[cols])


def _predictions_with_gold() -> list[tuple[str, str | None, Path | None]]:
    data = json.loads((ROOT / "samples" / "manifest.json").read_text(encoding="utf-8"))
    return [
        (p["path"], p.get("task"), ROOT / "samples" / p["gold"] if p.get("gold") else None)
        for entry in data["benchmarks"].values()
        for p in entry["predictions"]
    ]


def _first_sample_table(name: str) -> pd.DataFrame:
    """The item table of the benchmark's first sample prediction file (with its gold, where it has one)."""
    pred = next(p for n, p in _sample_predictions() if n == name)
    gold = ROOT / "samples" / pred["gold"] if pred.get("gold") else None
    return REGISTRY[name].load(ROOT / "samples" / str(pred["path"]), gold=gold, task=pred.get("task"))


@pytest.mark.parametrize("name", list(REGISTRY))
def test_derive_gives_every_declared_column_for_the_rows(name: str) -> None:
    bench = REGISTRY[name]
    table = _first_sample_table(name)
    import numpy as np

    rows = np.arange(len(table), dtype=np.intp)
    values = bench.derive(table, rows)
    assert set(values) == set(bench.DERIVED)
    for column in values.values():
        assert len(column) == len(table)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_native_keys_name_each_row_and_tell_items_apart(name: str) -> None:
    # Row for row, plain JSON values under the files' field names; on a sample prediction file
    # (one model) no two rows share a key, so each finds one record.
    bench = REGISTRY[name]
    table = _first_sample_table(name)
    keys = bench.native_keys(table)
    assert len(keys) == len(table) and all(isinstance(k, dict) and k for k in keys)
    assert all(json.loads(json.dumps(k)) == k for k in keys)
    seen = {json.dumps(k, sort_keys=True) for k in keys}
    assert len(seen) == table["item_id"].nunique()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_rows_of_a_gold_file_alone_are_never_scored(name: str) -> None:
    # Seen in a review of the CLI: `items` on AVHBench's QA.json and CMM's rows file said
    # "scored": true (with no answer), where the other benchmarks' gold files said false
    from analysis.benchmarks.shared.gold_only import GOLD_ONLY

    data = json.loads((ROOT / "samples" / "manifest.json").read_text(encoding="utf-8"))
    for gold in data["benchmarks"][name]["gold"]:
        table = REGISTRY[name].load_gold([ROOT / "samples" / gold])
        assert len(table) and not table["scored"].any(), gold
        assert set(table["skip_reason"].astype(str)) == {GOLD_ONLY}, gold
        assert set(table["model"].astype(str)) == {""}, gold


@pytest.mark.parametrize("name", list(REGISTRY))
def test_rescore_of_no_changed_row_changes_no_verdict(name: str) -> None:
    import numpy as np

    bench = REGISTRY[name]
    table = _first_sample_table(name)
    out = table.copy()
    bench.rescore(out, np.zeros(len(out), dtype=bool), {})
    pd.testing.assert_frame_equal(out[["correct", "alt_correct"]], table[["correct", "alt_correct"]])


@pytest.mark.parametrize("name", [n for n, b in REGISTRY.items() if b.PAIRS is not None])
def test_a_pair_spec_s_ids_are_its_catalogue_s_in_order(name: str) -> None:
    # the Pairs tab lists ids() when it is built and opens catalogue() rows later: any benchmark
    # that declares pairs gives the same ids in the same order, on the samples and shuffled
    from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest

    if not SAMPLE_MANIFEST.exists():
        pytest.skip("samples/manifest.json not generated (python samples/generate.py)")
    spec = REGISTRY[name].PAIRS
    assert spec is not None
    table = load_manifest(SAMPLE_MANIFEST).table
    for rows in (table, table.sample(frac=1.0, random_state=1).reset_index(drop=True)):
        ids = spec.ids(rows)
        assert ids and ids == spec.catalogue(rows)["pair_id"].astype(str).tolist()
