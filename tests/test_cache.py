"""Cache entries on disk: what is written reads back, and an entry of another format is not trusted.

What is cached and under which key is tested through the loader (``tests/test_catalog_cache.py``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.load.cache import FORMAT, read_frame, write_frame

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
