"""Leaderboards: every model of a benchmark by its official metrics, with intervals and paired tests."""
