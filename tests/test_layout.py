"""The layout the architecture relies on: layers, one seam per benchmark, no cycles, no stdlib names.

The import graph is read from the source (every ``import`` statement, also those inside functions
and under ``TYPE_CHECKING``), so a cycle cannot hide behind a lazy import.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, Path]:
    found = {}
    for path in [*ROOT.glob("analysis/**/*.py"), *ROOT.glob("components/**/*.py"), ROOT / "app.py"]:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*kept, base] if base else kept)
            # ``from pkg import sub`` depends on the submodule; ``from mod import name`` on the module
            targets += [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    out = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_is_named_like_a_standard_library_one() -> None:
    clashes = [str(p.relative_to(ROOT)) for p in _modules().values() if p.stem in sys.stdlib_module_names]
    assert clashes == []


LAYERS = (
    "errors",
    "stats",
    "files",
    "table",
    "plot",
    "benchmarks",
    "store",
    "query",
    "boards",
    "charts",
    "failures",
    "suspects",
    "load",
    "review",
    "report",
    "cli",
)
"""The subpackages of ``analysis/``, lowest first (docs/architecture.md): a module imports only from
its own layer and the layers below it; ``components/`` and ``app.py`` sit above them all."""


def _layer(module: str) -> int:
    if module == "app":
        return len(LAYERS) + 1
    if module.startswith("components"):
        return len(LAYERS)
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 else 0  # ``analysis`` itself: a face over errors


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets if _layer(t) > _layer(m))


def test_every_analysis_module_sits_in_a_layer() -> None:
    modules = [m for m in _modules() if m.startswith("analysis.")]
    assert [m for m in modules if m.split(".")[1] not in LAYERS] == []


def test_no_import_goes_up_a_layer() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _upward(graph) == []


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {
        "analysis.stats.metrics": {"analysis.load.catalog"},
        "analysis.cli.main": {"analysis.stats.metrics"},
    }
    assert _upward(graph) == ["analysis.stats.metrics -> analysis.load.catalog"]


def test_docs_architecture_lists_the_layers_in_order() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = re.findall(r"^\| *\d+ *\| *`analysis/(\w+)", text, re.M)
    assert tuple(reversed(found)) == LAYERS


def _benchmark_words() -> dict[str, tuple[str, ...]]:
    from analysis.benchmarks import REGISTRY

    return {
        name: tuple(dict.fromkeys([name, bench.TITLE, *bench.VOCABULARY])) for name, bench in REGISTRY.items()
    }


def _registry_list_lines(path: Path) -> set[int]:
    """Lines of the registry's PACKAGES tuple: the one place the core names the packages."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PACKAGES" for t in node.targets):
            return set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return set()


def _mentions(words: dict[str, tuple[str, ...]]) -> list[str]:
    """Every line of the core and the app outside a benchmark's package that says one of its words."""
    found = []
    packages = ROOT / "analysis" / "benchmarks"
    for path in [*ROOT.glob("analysis/**/*.py"), *ROOT.glob("components/**/*.py"), ROOT / "app.py"]:
        own = path.relative_to(packages).parts[0] if path.is_relative_to(packages) else None
        exempt = _registry_list_lines(path) if path == packages / "__init__.py" else set()
        text = path.read_text(encoding="utf-8")
        for name, terms in words.items():
            if own is not None and own.replace("_", "-") == name:
                continue
            if own is not None:
                # inside another benchmark's package only the id and display name count: its own
                # data may use a plain word of this one's vocabulary (DetailVerifyBench's label type
                # "Counterfactual Hallucination" names no other benchmark)
                terms = terms[:2]
            pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in terms), re.I)
            for number, line in enumerate(text.splitlines(), 1):
                if number not in exempt and pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number} ({name}): {line.strip()[:80]}")
    return found


def test_no_code_outside_a_benchmark_package_names_it() -> None:
    """A benchmark's id, display name and own vocabulary appear in its package and nowhere else in
    the core or the app (docstrings and comments included); the registry's list of packages aside."""
    assert _mentions(_benchmark_words()) == []


def test_the_name_check_finds_a_planted_mention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = ROOT / "analysis" / "stats" / "metrics.py"
    original = planted.read_text(encoding="utf-8")
    words = {"toy": ("toy-bench", "Toy Bench", "zorblax")}
    assert _mentions(words) == []
    monkeypatch.setattr(
        Path,
        "read_text",
        lambda self, encoding=None: (
            original + "\n# counts Zorblax\n" if self == planted else Path.read_bytes(self).decode()
        ),
    )
    line = original.count("\n") + 2
    assert [m.split(" ")[0] for m in _mentions(words)] == [f"analysis/stats/metrics.py:{line}"]


CLAIMED_ARGUMENTS = ("benchmark",)
"""Test arguments a common third-party pytest plugin takes for its own fixture: pytest-benchmark
claims ``benchmark``, and a test's parameter of that name stopped CI's whole browser run with an
INTERNALERROR (CI's Python had the plugin; our lock does not). ``pyproject.toml`` turns the plugin
off; this keeps the name out of the tests too, for a run that turns it back on."""


def _claimed_arguments(folder: Path) -> list[str]:
    """``path:line name(argument)`` for every test or fixture in ``folder`` taking a claimed argument."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            fixture = any("fixture" in ast.unparse(d) for d in node.decorator_list)
            if not (node.name.startswith("test") or fixture):
                continue
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            found += [
                f"{path.name}:{node.lineno} {node.name}({a.arg})" for a in args if a.arg in CLAIMED_ARGUMENTS
            ]
    return found


def test_no_test_takes_an_argument_a_common_plugin_claims() -> None:
    assert _claimed_arguments(ROOT / "tests") == []


def test_the_argument_check_finds_a_planted_test(tmp_path: Path) -> None:
    (tmp_path / "test_planted.py").write_text(
        "import pytest\n\n\n"
        "@pytest.mark.parametrize('benchmark', ['cmm'])\n"
        "def test_x(benchmark):\n    pass\n\n\n"
        "@pytest.fixture\ndef made(benchmark):\n    return benchmark\n\n\n"
        "def helper(benchmark):\n    return benchmark\n",
        encoding="utf-8",
    )
    assert _claimed_arguments(tmp_path) == [
        "test_planted.py:5 test_x(benchmark)",
        "test_planted.py:10 made(benchmark)",
    ]
