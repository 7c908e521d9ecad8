"""Pair validation: per-clip checks as store labels, decisions, kept-pair export, previews.

The pairs themselves (which clips, what the data says of them) come from the benchmark that
declares ``PAIRS`` (:class:`analysis.benchmarks.base.PairSpec`).
"""
