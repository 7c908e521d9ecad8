"""What the benchmarks' :meth:`~analysis.benchmarks.base.Benchmark.slicing` functions share.

Columns as text, and fields of the ``extra`` JSON read once per distinct value (a million rows
hold few distinct ones).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import orjson
import pandas as pd

Texts = npt.NDArray[np.object_]


def text(table: pd.DataFrame, column: str) -> Texts:
    """``column`` as Python strings, ``""`` for a missing value."""
    values = table[column].astype("string").fillna("")
    return values.to_numpy(dtype=object)


def from_extra(table: pd.DataFrame, keys: Mapping[str, str]) -> dict[str, Texts]:
    """Fields of each row's ``extra`` JSON object: ``{attribute name: field}`` -> ``{name: values}``.

    A value that is not text, a number or a boolean, a missing field and unreadable JSON give ``""``.
    """
    codes, distinct = pd.factorize(table["extra"].astype("string").fillna(""), use_na_sentinel=False)
    parsed = [_object(str(t)) for t in distinct]
    out = {}
    for name, field in keys.items():
        values = np.array([_plain(p.get(field)) for p in parsed] + [""], dtype=object)
        out[name] = values[codes] if len(codes) else np.array([], dtype=object)
    return out


def clusters_or(primary: Texts, fallback: Texts) -> Texts:
    """``primary`` where a row has one, else ``fallback`` (a pair id, else the row's media)."""
    return np.where(primary != "", primary, fallback).astype(object)


def _object(raw: str) -> dict[str, object]:
    try:
        value = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return ""
