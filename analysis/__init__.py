"""halluscope's core: loaders, parsers, metrics, spans and audits for five benchmarks.

Nothing in this package imports Gradio; the app in ``components/`` and ``app.py`` is a thin
layer over it, and ``tests/test_core_without_gradio.py`` proves the separation.
"""

from analysis.errors import InputError

__all__ = ["InputError"]
