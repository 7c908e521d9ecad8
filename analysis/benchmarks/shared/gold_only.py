"""Rows read from a gold file alone: no model answered them, so no scorer counts them.

Every benchmark marks them alike (``halluscope items`` on a gold file, the app's gold-only rows):
``scored`` False, and one skip reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.table.columns import same_text_column

GOLD_ONLY = "gold only: no model answer"
"""The skip reason of a row with no model answer."""


def as_gold_only(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (rows of a gold file, no model) with every row unscored, for :data:`GOLD_ONLY`."""
    table["scored"] = np.zeros(len(table), dtype=bool)
    table["skip_reason"] = same_text_column(GOLD_ONLY, len(table))
    return table
