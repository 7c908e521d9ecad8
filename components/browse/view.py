"""What one viewer is shown of the items: the rows a filter keeps, a table page, one item.

:class:`ItemView` shows the catalog as loaded (a visitor, the CLI's tests). The review feature
hands the browse handlers its own view per request (corrected gold for a reviewer, no gold at all
for a blind one, see :mod:`components.review.gold`), so the table, the inspector, the charts and
the API endpoints that share these handlers all show the same thing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from analysis.load.catalog import Catalog
from analysis.query import Filters, display_frame


class ItemView:
    """The plain view: every column of the catalog, official gold."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def rows(self, filters: Filters) -> npt.NDArray[np.intp]:
        """Positions of the rows passing ``filters`` (the catalog remembers the last few)."""
        return self.catalog.rows_for(filters)

    def frame(self, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
        """The shown table for ``rows``."""
        return display_frame(self.catalog.table, rows)

    def inspect(self, row: int | None, position: str = "") -> tuple[Any, ...]:
        """Status, media, item, spans and other answers of ``row`` (see ``inspect_row``)."""
        from components.browse.inspector import inspect_row

        return inspect_row(self.catalog, row, position)

    def charts(self, filters: Filters, rows: npt.NDArray[np.intp] | None = None) -> tuple[Any, ...]:
        """The chart note and figures of the view."""
        from components.browse.charts import chart_updates

        return chart_updates(self.catalog, filters, rows)


def as_view(source: Catalog | ItemView) -> ItemView:
    """A view from itself, or the plain view of a catalog."""
    return source if isinstance(source, ItemView) else ItemView(source)
