"""Corrected gold written back in each benchmark's own file format, read by the same loaders.

``write_native(benchmark, paths, labels, out_dir)`` writes, under ``out_dir``, a corrected copy of
every given file that carries gold (gold files, and prediction files with gold inside), at its
path relative to the given files' common folder, with the corrected gold in place and every other
field kept. What a copy changes is the benchmark's own ``write_corrected`` (see each package's
``native`` module); an input is never overwritten.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from analysis import benchmarks
from analysis.errors import InputError


def gold_map(labels: pd.DataFrame) -> dict[str, str]:
    """Item id -> current corrected gold, from :func:`analysis.store.labels.current_labels`."""
    rows = labels[(labels["field"] == "gold") & labels["value"].notna()]
    return dict(zip(rows["item_id"].astype(str), rows["value"].astype(str), strict=True))


def common_folder(paths: Sequence[Path]) -> Path:
    """The deepest folder holding every path (a single file: its folder)."""
    folders = [str(Path(p).resolve().parent) for p in paths]
    return Path(os.path.commonpath(folders)) if folders else Path()


def write_native(benchmark: str, paths: Sequence[Path], labels: pd.DataFrame, out_dir: Path) -> list[Path]:
    """Write corrected copies of the files of ``paths`` that carry gold; returns the files written."""
    bench = benchmarks.get(benchmark)
    gold = gold_map(labels)
    base = common_folder(paths)
    planned: list[tuple[Path, Path]] = []
    for path in paths:
        target = out_dir / Path(path).resolve().relative_to(base)
        if target.resolve() == Path(path).resolve():
            raise InputError(path, "the output folder holds the input file; choose another --out")
        planned.append((Path(path), target))
    written = []
    for path, target in planned:
        text = bench.write_corrected(path, gold)
        if text is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
