"""The docs cover the code (datasette's ``test_docs.py`` habit): a new option or benchmark fails here.

- every subcommand of ``analysis.cli.main.build_parser()`` has a section ``## `halluscope NAME` `` in
  ``docs/cli.md``, and every option string and positional argument of it appears in that section;
- every registered benchmark has ``docs/benchmarks/<id>.md``;
- every relative link in ``docs/**/*.md`` and ``README.md`` points at a file that exists;
- code, README and the docs themselves cite ``docs/``, never the notes the docs were written from.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from analysis.benchmarks import REGISTRY
from analysis.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CLI_MD = DOCS / "cli.md"

# Subcommands the contract names; some are still being built on other branches. One that the
# parser lacks is skipped, never failed; one the parser has is always checked.
CONTRACT_COMMANDS = ("score", "audit", "items", "import", "export", "serve", "report")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("build_parser() has no subcommands")


def _section(text: str, command: str) -> str:
    """The part of cli.md under ``## `halluscope COMMAND` ``, up to the next ``## `` heading."""
    heading = re.compile(rf"^## `halluscope {re.escape(command)}`.*$", re.M)
    match = heading.search(text)
    if match is None:
        return ""
    rest = text[match.end() :]
    end = re.search(r"^## ", rest, re.M)
    return rest[: end.start()] if end else rest


def _arguments(sub: argparse.ArgumentParser) -> list[str]:
    """How each argument is written in the docs: its option strings, or its positional metavar."""
    out: list[str] = []
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            out.extend(action.option_strings)
        else:
            out.append(str(action.metavar or action.dest).upper())
    return out


def _commands_to_check() -> list[str]:
    existing = list(_subcommands())
    return list(dict.fromkeys([*CONTRACT_COMMANDS, *existing]))


@pytest.mark.parametrize("command", _commands_to_check())
def test_every_subcommand_has_a_section(command: str) -> None:
    subs = _subcommands()
    if command not in subs:
        pytest.skip(f"`halluscope {command}` does not exist yet")
    text = CLI_MD.read_text(encoding="utf-8")
    assert _section(text, command).strip(), f"docs/cli.md has no section '## `halluscope {command}`'"


@pytest.mark.parametrize("command", _commands_to_check())
def test_every_option_is_documented(command: str) -> None:
    subs = _subcommands()
    if command not in subs:
        pytest.skip(f"`halluscope {command}` does not exist yet")
    section = _section(CLI_MD.read_text(encoding="utf-8"), command)
    missing = [arg for arg in _arguments(subs[command]) if arg not in section]
    assert not missing, f"docs/cli.md, section `halluscope {command}`, does not mention {missing}"


def test_argument_walk_sees_the_options() -> None:
    # guards the walk itself: if argparse internals changed, the tests above would pass vacuously
    args = _arguments(_subcommands()["score"])
    assert {"BENCHMARK", "PREDICTIONS", "--gold", "--task", "--parser", "--json"} <= set(args)


def test_section_finder_needs_the_exact_heading() -> None:
    text = "## `halluscope score`\nscore text --gold\n## `halluscope scores`\nother\n"
    assert "--gold" in _section(text, "score")
    assert "other" not in _section(text, "score")
    assert _section(text, "audit") == ""


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_benchmark_has_a_page(name: str) -> None:
    page = DOCS / "benchmarks" / f"{name}.md"
    assert page.is_file(), f"{page.relative_to(ROOT)} is missing"
    text = page.read_text(encoding="utf-8")
    for heading in ("Files", "Official scoring", "Quirks", "Audit", "Reference numbers"):
        assert re.search(rf"^##+ .*{heading}", text, re.M | re.I), f"{name}.md has no '{heading}' heading"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_benchmark_page_names_its_parsers_and_tasks(name: str) -> None:
    bench = REGISTRY[name]
    text = (DOCS / "benchmarks" / f"{name}.md").read_text(encoding="utf-8")
    missing = [
        word
        for word in (*bench.PARSERS, *bench.TASKS)
        if not re.search(rf"`(--parser |--task )?{re.escape(word)}`", text)
    ]
    assert not missing, f"docs/benchmarks/{name}.md does not name {missing}"


def test_the_index_lists_every_page() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS).as_posix()
        if rel != "README.md":
            assert f"({rel})" in index, f"docs/README.md does not link {rel}"


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _relative_links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # links inside code blocks are examples
    out = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL (http:, mailto:) or an anchor on the same page
        out.append(target.split("#", 1)[0])
    return out


def _markdown_files() -> list[Path]:
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_point_at_files(path: Path) -> None:
    broken = [t for t in _relative_links(path) if not (path.parent / t).exists()]
    assert not broken, f"{path.relative_to(ROOT)} links to missing files: {broken}"


def test_link_finder_sees_links() -> None:
    sample = ROOT / "README.md"
    assert "docs/cli.md" in _relative_links(sample)


SPEC_CITATION = re.compile(r"shared/spec|\.\./shared")


def _citing_files() -> list[Path]:
    files = [ROOT / "app.py", ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    for folder in ("analysis", "components", "bench", "samples"):
        files.extend(p for p in sorted((ROOT / folder).rglob("*.py")) if "media" not in p.parts)
    return files


def test_code_cites_docs_not_the_specs() -> None:
    offenders = [
        p.relative_to(ROOT).as_posix()
        for p in _citing_files()
        if SPEC_CITATION.search(p.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"these cite shared/spec or ../shared instead of docs/: {offenders}"


DOCS_CITATION = re.compile(r"\bdocs/[\w./-]*\w\.md")


def test_cited_docs_exist() -> None:
    cited = {
        (p.relative_to(ROOT).as_posix(), m.group())
        for p in _citing_files()
        for m in DOCS_CITATION.finditer(p.read_text(encoding="utf-8"))
    }
    assert any(source == "README.md" for source, _ in cited), "README.md cites no docs/ page"
    missing = sorted((source, target) for source, target in cited if not (ROOT / target).is_file())
    assert not missing, f"citations of docs/ pages that do not exist: {missing}"


def test_the_readme_serve_synopsis_lists_every_serve_option() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("halluscope serve FILE...")
    synopsis = readme[start : readme.index("```", start)]
    options = [a for a in _arguments(_subcommands()["serve"]) if a.startswith("--")]
    missing = [o for o in options if not re.search(rf"\[{re.escape(o)}\b", synopsis)]
    assert not missing, f"README's serve synopsis lacks {missing}"
