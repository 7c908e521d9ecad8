"""Test-wide settings."""

import os

from hypothesis import settings

# In CI the property tests draw the same examples every run (derandomize), so a red build always
# reproduces; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
