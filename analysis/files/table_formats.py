"""The table formats a corrections file is written and read in, told from a name or an extension.

Kept apart from the store (which imports pandas and SQLAlchemy) so that ``halluscope export`` can
refuse an ``--out`` it cannot write before anything heavy is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from analysis.errors import InputError

Format = Literal["csv", "jsonl", "parquet"]
FORMATS: tuple[str, ...] = ("csv", "jsonl", "parquet")
_ALIASES = {"parq": "parquet", "pq": "parquet", "json": "jsonl", "ndjson": "jsonl"}


def guess_format(path: Path, fmt: str | None) -> Format:
    """The format named, else the one the file's extension says."""
    name = (fmt or path.suffix.lstrip(".")).lower()
    name = _ALIASES.get(name, name)
    if name not in FORMATS:
        raise InputError(path, f"unknown corrections format {name!r} (known: {', '.join(FORMATS)})")
    return name  # type: ignore[return-value]
