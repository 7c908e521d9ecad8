"""Test-wide settings."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# In CI the property tests draw the same examples every run (derandomize), so a red build always
# reproduces; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _no_default_store_in_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # The default label store is a per-user folder (analysis.store.db.default_data_dir): a test
    # that opens it, or a server it starts, must never write into the real one.
    folder: Path = tmp_path_factory.mktemp("default-data-dir")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HALLUSCOPE_DATA_DIR", str(folder))
        yield
