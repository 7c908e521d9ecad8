"""Tell, from a file's content, which benchmark it belongs to, which task, and whether it is gold.

Private helper of :mod:`analysis.load.catalog` and of the command line's refusals (:func:`expect`).
The first records (or the JSON object) are read once and offered to every registered benchmark's
``recognise``, in ``DETECT_RANK`` order; a sample manifest is recognised here. Names are never
trusted over content, except where a benchmark says content cannot settle it (a gold file that
holds only yes/no answers is told from a prediction file by its released name).
"""

from __future__ import annotations

import json
import re
from itertools import islice
from pathlib import Path
from typing import Any

from analysis import benchmarks
from analysis.benchmarks.base import Benchmark, Content, Detected, Role
from analysis.errors import InputError
from analysis.files import harness
from analysis.files.readers import iter_jsonl, looks_like_jsonl, read_json, skip, without_bom

__all__ = ["SAMPLE", "Detected", "NoBenchmarkNamed", "Role", "detect", "expect"]

SAMPLE = 20
"""How many records are looked at to decide (keys differ slightly from record to record)."""

WHOLE_BELOW = 4 * 1024 * 1024
"""A JSON file at least this large is told by its first records, read from its head, instead of
by parsing all of it (a 60 MB file took a second): its reader parses and checks it all anyway."""

HEAD_BYTES = 1024 * 1024
"""How much of a large JSON file's head is read to find its first records."""


class NoBenchmarkNamed(InputError):
    """An lmms-eval samples file whose name names no benchmark: its records cannot tell which.

    Its ``doc_id`` rows join a benchmark's gold, so a caller that knows the one benchmark whose
    gold came with it (:func:`analysis.load.catalog.load_paths`) may still load it as that one's.
    """


def detect(path: Path) -> Detected:
    """Read ``path`` and say what it is; InputError when it matches no known format.

    An lmms-eval ``--log_samples`` file holds only ``doc_id``, the answers and lmms-eval's own
    fields: its benchmark is the one its name names (``2026-01-01_samples_avhbench_av.jsonl``),
    else :class:`NoBenchmarkNamed`.
    """
    found, content = _identify(path)
    if found is not None:
        return found
    if isinstance(content, dict):
        raise InputError(path, "cannot tell which benchmark this JSON object belongs to")
    keys = {k for record in content for k in record}
    if harness.format_of_keys(keys) == "lmms-eval":
        return _lmms_eval_samples(path)
    shown = ", ".join(sorted(keys)[:8]) or "no fields"
    raise InputError(path, f"cannot tell which benchmark this file belongs to (records have {shown})")


def _lmms_eval_samples(path: Path) -> Detected:
    readers_of = [b.NAME for b in benchmarks.REGISTRY.values() if "lmms-eval" in b.HARNESS_FORMATS]
    words = f"-{re.sub(r'[^a-z0-9]+', '-', path.stem.lower())}-"
    named = [name for name in readers_of if f"-{name}-" in words or f"-{name.replace('-', '')}-" in words]
    if len(named) == 1:
        return Detected(named[0], None, "predictions", by_name=True)
    raise NoBenchmarkNamed(
        path,
        "an lmms-eval samples file: its records (doc_id, resps) do not say which benchmark they "
        f"answer; give it with the gold of one benchmark only, or put the benchmark in its name "
        f"({' or '.join(readers_of)}, e.g. {path.stem}_{readers_of[0]}{path.suffix})",
    )


def _content(path: Path) -> Content | Detected:
    """What detection looks at (a manifest is told here); a missing file or a folder is an InputError."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a folder, expected a file")
    if harness.sniff(path) == "vlmevalkit" and harness.is_tabular(path):  # a workbook or a table
        return harness.read_tabular(path).items[:SAMPLE]
    if looks_like_jsonl(path):
        return [v for _, v in islice(iter_jsonl(path), SAMPLE) if isinstance(v, dict)]
    if path.stat().st_size >= WHOLE_BELOW:
        head = json_head(path)
        if head is not None:
            return head
    value = read_json(path)
    if isinstance(value, list):
        return [v for v in value[:SAMPLE] if isinstance(v, dict)]
    if isinstance(value, dict):
        if isinstance(value.get("benchmarks"), dict):
            return Detected("", None, "manifest")
        return value
    raise InputError(path, "expected a JSON list or object at the top level")


def json_head(path: Path, limit: int = HEAD_BYTES) -> Content | None:
    """The first :data:`SAMPLE` records of a JSON list (or entries of an object) in its head.

    Read from the file's first ``limit`` bytes; None when they are not all there (the caller
    then reads the whole file).

    A manifest is never told this way: None for an object whose first key is ``benchmarks``.
    """
    with path.open("rb") as handle:
        data = without_bom(handle.read(limit))
    text = data.decode("utf-8", errors="ignore")  # a character cut at the end is dropped
    at = skip(text, 0)
    opener = text[at : at + 1]
    if opener not in ("[", "{"):
        return None
    decoder = json.JSONDecoder()
    items: list[Any] = []
    entries: dict[str, Any] = {}
    at += 1
    try:
        while len(items) + len(entries) < SAMPLE:
            at = skip(text, at)
            if text[at : at + 1] in ("]", "}"):
                break  # the whole value was in the head
            if opener == "{":
                key, at = decoder.raw_decode(text, at)
                at = skip(text, at)
                if not isinstance(key, str) or text[at : at + 1] != ":" or key == "benchmarks":
                    return None
                value, at = decoder.raw_decode(text, skip(text, at + 1))
                entries[key] = value
            else:
                value, at = decoder.raw_decode(text, at)
                items.append(value)
            at = skip(text, at)
            if text[at : at + 1] not in (",", "]", "}"):
                return None
            at += text[at : at + 1] == ","
    except ValueError:  # a record runs past the head (or the file is malformed): read it all
        return None
    if opener == "{":
        return entries
    return [v for v in items if isinstance(v, dict)]


def _identify(path: Path) -> tuple[Detected | None, Content]:
    content = _content(path)
    if isinstance(content, Detected):
        return content, {}
    return _recognise(path, content), content


def _recognise(path: Path, content: Content) -> Detected | None:
    for bench in sorted(benchmarks.REGISTRY.values(), key=lambda b: b.DETECT_RANK):
        found = bench.recognise(path, content)
        if found is not None:
            return found
    return None


def expect(path: Path, benchmark: Benchmark, role: Role, task: str | None = None) -> None:
    """Refuse ``path`` when its content shows it is not a ``role`` file of ``benchmark``.

    A file whose kind content cannot tell (or that cannot be read) passes: the benchmark's reader
    then says precisely what it lacks. Only a confident "this is something else" is refused, with
    what the file is and what was expected (``docs/cli.md``: gold passed as predictions, and the
    reverse, is never scored as all-skipped).
    """
    try:
        found, content = _identify(path)
    except InputError:
        return
    if found is None:
        return
    wanted = f"expected {benchmark.NAME} {role}: {benchmark.FILES[role]}"
    if found.role == "manifest":
        raise InputError(path, f"this is a sample manifest, not a data file; {wanted}")
    if found.benchmark != benchmark.NAME:
        if _one_flat_object(content):  # perhaps one of ours after all: the reader says what it lacks
            return  # (its role was another benchmark's guess: "this is <ours> predictions" misnamed it)
        seen = f"{found.benchmark} {found.role}"
        raise InputError(path, f"this looks like {seen}, not {benchmark.NAME}; {wanted}")
    if found.role != role and not found.by_name:
        what = benchmark.FILES[found.role]
        raise InputError(path, f"this is {benchmark.NAME} {found.role}, {what}; {wanted}")
    if task is not None and found.task is not None and found.task != task:
        raise InputError(path, f"this is a {benchmark.NAME} {found.task} file, but --task is {task}")


def expect_benchmark(path: Path, benchmark: Benchmark) -> None:
    """Refuse ``path`` when its content shows it is another benchmark's file (of either role)."""
    try:
        found, content = _identify(path)
    except InputError:
        return
    if found is None or found.role == "manifest":
        return
    if found.benchmark != benchmark.NAME and not _one_flat_object(content):
        raise InputError(path, f"this looks like {found.benchmark} {found.role}, not {benchmark.NAME}")


def with_formats_tried(exc: InputError, path: Path, benchmark: Benchmark, role: Role) -> InputError:
    """``exc``, the reader's refusal of ``path``, saying which formats were tried if none matched.

    When content matches no known format, a missing field is a sign of another format, not of one
    bad record (``docs/formats.md``).
    """
    if exc.path != str(path) or not exc.problem.startswith("missing"):
        return exc
    try:
        found, content = _identify(path)
    except InputError:
        return exc
    # a flat object another benchmark might have written is no match either (``{"_comment": ...}``)
    if found is not None and (found.benchmark == benchmark.NAME or not _one_flat_object(content)):
        return exc
    harnesses = sorted(benchmark.HARNESS_FORMATS)
    tried = f"{benchmark.NAME} {role} ({benchmark.FILES[role]})"
    if harnesses and role == "predictions":
        tried += f", and the {' and '.join(harnesses)} files"
    problem = f"{exc.problem}; the file matches no format tried: {tried}"
    return InputError(exc.path, problem, record=exc.record, field=exc.field)


def _one_flat_object(content: Content) -> bool:
    """One object with some text values: one JSONL record, or an ``{id: text}`` results file.

    Content cannot say which, so such a file is never refused as another benchmark's: the reader
    of the benchmark asked for decides.
    """
    return isinstance(content, dict) and any(isinstance(v, str) for v in content.values())
