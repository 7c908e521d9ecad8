"""``halluscope report``: one self-contained HTML file, or the leaderboard tables for a paper."""
