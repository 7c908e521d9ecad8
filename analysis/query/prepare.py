"""The columns the filters and charts read, derived once at load time (their names start with ``_``)."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.compute as pc  # type: ignore[import-untyped, unused-ignore]

from analysis.stats.metrics import NO, UNPARSED, YES
from analysis.table.columns import single_chunks


def flag_items(table: pd.DataFrame, flagged: Collection[str]) -> pd.DataFrame:
    """Set ``_flagged`` (the rows of items an audit finding names), in place: the one setter of it."""
    table["_flagged"] = table["item_id"].isin(list(flagged)).to_numpy(dtype=bool)
    return table


def prepare(
    table: pd.DataFrame,
    flagged: Collection[str] | None = None,
    *,
    text: pd.arrays.ArrowStringArray | None = None,
) -> pd.DataFrame:
    """Add the derived columns filters and charts read; ``flagged`` are item ids the audit named.

    Without ``flagged`` a table that has ``_flagged`` keeps it (rows re-derived after a
    correction stay flagged as the audit said); one that has none gets no flag.

    Every text column is made one contiguous Arrow array: taking a page of rows from an array of
    many chunks (one per file, per block read) first joins the chunks, a cost that grows with the
    table; from one chunk it costs what the page holds. ``text``: the table's :func:`search_text`
    if already made (in another thread while the rest is derived).
    """
    out = single_chunks(table.reset_index(drop=True))
    out["_text"] = search_text(out) if text is None else text
    if flagged is not None or "_flagged" not in out:
        flag_items(out, flagged or ())
    parsed = out["parsed"].fillna("").str.strip().str.lower()
    out["_pred_code"] = np.select([parsed == "yes", parsed == "no"], [YES, NO], UNPARSED).astype(np.int8)
    gold = out["gold"].fillna("").str.strip().str.lower()
    out["_gold_yes"] = (gold == "yes").to_numpy(dtype=bool)
    out["_binary"] = gold.isin(["yes", "no"]).to_numpy(dtype=bool)
    both = out["correct"].notna() & out["alt_correct"].notna()
    out["_differs"] = (both & (out["correct"] != out["alt_correct"])).fillna(False).to_numpy(dtype=bool)
    return out


def search_text(table: pd.DataFrame) -> pd.arrays.ArrowStringArray:
    """Lower-cased question, answer, item id, pair and side, one line each (what search reads).

    One Arrow join and one lower-casing over whole columns (pandas' ``+`` on text columns makes
    a new array per operator).
    """
    text = pa.large_string()
    parts = [
        pc.cast(pa.chunked_array(table[c].array._pa_array), text)
        for c in ("question", "raw_answer", "item_id", "pair_id", "side")
    ]
    joined = pc.binary_join_element_wise(*[pc.fill_null(p, "") for p in parts], pa.scalar("\n", text))
    return pd.arrays.ArrowStringArray(pc.utf8_lower(joined))
