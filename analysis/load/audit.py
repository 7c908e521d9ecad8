"""Audits of the loaded gold files, and the rows their findings name (``_flagged``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from analysis import benchmarks
from analysis.benchmarks.base import Finding
from analysis.load.read import attempt
from analysis.load.sources import Source
from analysis.query.prepare import flag_items


def audit_gold(
    gold_by_bench: Mapping[str, list[Source]], roots: Mapping[str, tuple[Path, ...]], errors: list[str]
) -> dict[str, list[Finding]]:
    """Findings per benchmark of its gold files (media under its first root); failures go to ``errors``."""
    findings: dict[str, list[Finding]] = {}
    for bench_id, gold in gold_by_bench.items():
        root = roots.get(bench_id, (None,))[0]
        paths = [g.path for g in gold]
        found = attempt(errors, paths[0], _audit_one, bench_id, paths, root)
        if found is not None:
            findings[bench_id] = found
    return findings


def _audit_one(bench_id: str, paths: list[Path], root: Path | None) -> list[Finding]:
    return benchmarks.get(bench_id).audit(paths, media_root=root)


def mark_flagged(table: pd.DataFrame, findings: Mapping[str, list[Finding]]) -> pd.DataFrame:
    """Set ``_flagged`` on the rows of every item an audit finding names: the one place it is set.

    Audits are never cached: a restart from the cache audits again and marks the rows here.
    """
    return flag_items(table, {i for fs in findings.values() for f in fs for i in f.item_ids})
