"""Two models' verdicts on the same items: the flip table's cells, by item.

Here, in the query layer, so that a cell of the flip table can be a filter of the Items tab and the
comparison (:mod:`analysis.failures.compare`) counts the same rows.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt
import pandas as pd

CELLS = ("both right", "only A wrong", "only B wrong", "both wrong")
"""The flip table's cells, in order."""
KEYS = ("item_id", "task")
"""What makes two rows the same item (an item id is unique within a benchmark's task)."""


def verdict_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows that count: scored, with a verdict (the official parser's ``correct``)."""
    usable = table["scored"].to_numpy(dtype=bool) & table["correct"].notna().to_numpy(dtype=bool)
    return table[usable]


def paired_rows(table: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """One row per item both models were scored on, in the order of A's rows.

    Columns ``item_id``, ``task``, ``a`` and ``b`` (the verdicts) and ``cell`` (the flip table's).
    """
    rows = verdict_rows(table)
    model = rows["model"].astype(str)
    left = _verdicts(rows[model == a])
    right = _verdicts(rows[model == b])
    both = left.merge(right, on=list(KEYS), suffixes=("_a", "_b"), how="inner", validate="one_to_one")
    va = both["correct_a"].to_numpy(dtype=bool)
    vb = both["correct_b"].to_numpy(dtype=bool)
    cell = np.select([va & vb, ~va & vb, va & ~vb], CELLS[:3], CELLS[3])
    return pd.DataFrame({"item_id": both["item_id"], "task": both["task"], "a": va, "b": vb, "cell": cell})


def _verdicts(rows: pd.DataFrame) -> pd.DataFrame:
    """A model's verdicts by item; a repeated answer to one item counts once (its first)."""
    out = rows[[*KEYS, "correct"]].astype({"item_id": str, "task": str})
    return out.drop_duplicates(list(KEYS), keep="first")


Flip = tuple[str, str, str]
"""``(A, B, cell)``: the items of one cell of the flip table of model A against model B."""
_FLIP = re.compile(r"(?P<cell>.+?) · A = (?P<a>.+?) · B = (?P<b>.+)")


def describe_flip(flip: Flip) -> str:
    """A cell as the Items tab's filter shows it: ``only A wrong · A = m1 · B = m2``."""
    a, b, cell = flip
    return f"{cell} · A = {a} · B = {b}"


def parse_flip(text: str) -> Flip | tuple[()]:
    """The cell of :func:`describe_flip`'s text (empty for blank). Raises ValueError otherwise."""
    if not text.strip():
        return ()
    m = _FLIP.fullmatch(text.strip())
    if m is None or m["cell"] not in CELLS:
        raise ValueError(
            f"not a flip-table cell: {text.strip()!r} (write e.g. 'only A wrong · A = m1 · B = m2')"
        )
    return (m["a"].strip(), m["b"].strip(), m["cell"])


def in_cell(table: pd.DataFrame, a: str, b: str, cell: str) -> npt.NDArray[np.bool_]:
    """Which rows of ``table`` (any model) are of an item in ``cell`` of A against B."""
    pairs = paired_rows(table, a, b)
    keys = pairs.loc[pairs["cell"] == cell, list(KEYS)]
    if not len(keys):
        return np.zeros(len(table), dtype=bool)
    wanted = pd.MultiIndex.from_frame(keys.astype(str))
    mine = pd.MultiIndex.from_arrays([table[k].astype(str) for k in KEYS])
    return np.asarray(mine.isin(wanted), dtype=bool)
