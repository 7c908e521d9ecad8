"""Statistics as pure functions over arrays: metrics, per-cluster tallies, bootstrap intervals, paired tests.

The bottom of the core: nothing here reads a file, knows a benchmark or keeps state.
"""
