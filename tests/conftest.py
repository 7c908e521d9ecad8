"""Test-wide settings."""

import os
import tempfile

from hypothesis import settings

# Tables cached by `serve` (and anything else using the default cache folder) go to a throwaway
# folder, never the user's ~/.cache.
os.environ.setdefault("HALLUSCOPE_CACHE_DIR", tempfile.mkdtemp(prefix="halluscope-cache-"))

# In CI the property tests draw the same examples every run (derandomize), so a red build always
# reproduces; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
