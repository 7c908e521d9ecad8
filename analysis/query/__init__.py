"""Queries over the loaded item table: filters, pages of rows, one item's detail.

Whole-column work on the table; only the one inspected item becomes a Python object.
"""
