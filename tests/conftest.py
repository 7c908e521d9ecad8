"""Test-wide settings."""

import os
import tempfile

from hypothesis import settings

# Tables cached by `serve` (and anything else using the default cache folder) go to a throwaway
# folder, never the user's ~/.cache.
os.environ.setdefault("HALLUSCOPE_CACHE_DIR", tempfile.mkdtemp(prefix="halluscope-cache-"))
# The default label store is a per-user folder (analysis.store.db.default_data_dir): a test that
# opens it, or a server it starts, writes into a throwaway one, never the user's.
os.environ.setdefault("HALLUSCOPE_DATA_DIR", tempfile.mkdtemp(prefix="halluscope-data-"))

# In CI the property tests draw the same examples every run (derandomize), so a red build always
# reproduces; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
