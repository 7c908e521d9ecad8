"""Figure primitives for charts-as-data: side-by-side panels, a quiet style, wrapped labels.

Plain dicts in, a plotly Figure out; the charts of the core and of each benchmark package draw with these.
"""
