"""Charts as pure functions, ``DataFrame -> plotly Figure``.

The common ones, the benchmarks' own (collected from the registry), the leaderboard charts, and
the pre-grouped counts a filter change draws from.
"""
