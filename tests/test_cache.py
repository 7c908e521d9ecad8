"""Cache entries on disk: what is written reads back, and an entry of another format is not trusted.

What is cached and under which key is tested through the loader (``tests/test_catalog_cache.py``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.load.cache import FORMAT, read_column, read_frame, write_frame

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "cmm" / "predictions"


def test_an_entry_of_another_format_is_not_trusted(tmp_path: Path) -> None:
    frame = pd.DataFrame({"a": pd.array(["x", None], dtype="string")})
    entry = tmp_path / "e.arrow"
    assert write_frame(entry, frame, {"note": 1})
    back = read_frame(entry)
    assert back is not None and back[1] == {"format": FORMAT, "note": 1}
    pd.testing.assert_frame_equal(back[0], frame)
    assert write_frame(entry, frame, {"format": "table-1"})  # as an older halluscope would have
    assert read_frame(entry) is None


_CATEGORIES = pd.Index(["b", "a", "unused"], dtype="string")


def _every_kind(rows: int) -> pd.DataFrame:
    """A column of each kind an item table holds, with and without missing values."""
    half = rows // 2
    return pd.DataFrame({
        "text": pd.array([f"t{i}" if i % 3 else None for i in range(rows)], dtype="string"),
        "text_full": pd.array([f"é{i}" for i in range(rows)], dtype="string"),
        "category": pd.Categorical([("b", "a", None)[i % 3] for i in range(rows)], categories=_CATEGORIES),
        "flag": np.arange(rows) % 2 == 0,
        "verdict": pd.array([(True, False, None)[i % 3] for i in range(rows)], dtype="boolean"),
        "verdict_full": pd.array([i < half for i in range(rows)], dtype="boolean"),
        "code": (np.arange(rows) % 5).astype(np.int8),
        "score": np.where(np.arange(rows) % 4 == 0, np.nan, np.arange(rows) / 7),
        "count": pd.array([i if i % 2 else None for i in range(rows)], dtype="Int64"),
        "labels": [[i] if i % 2 else None for i in range(rows)],
    })  # fmt: skip


@pytest.mark.parametrize("rows", [0, 1, 7, 1000])
def test_a_column_read_alone_equals_that_column_of_the_whole_entry(tmp_path: Path, rows: int) -> None:
    # stacking reads entries a column at a time, most through shortcuts past pandas' conversion
    frame = _every_kind(rows)
    entry = tmp_path / "e.arrow"
    assert write_frame(entry, frame, {})
    whole = read_frame(entry)
    assert whole is not None
    for name in frame.columns:
        alone = read_column(entry, name)
        pd.testing.assert_series_equal(alone, whole[0][name], check_exact=True)
        assert alone.dtype == whole[0][name].dtype, name
        if isinstance(alone.dtype, pd.CategoricalDtype):
            pd.testing.assert_index_equal(alone.cat.categories, whole[0][name].cat.categories, exact=True)
