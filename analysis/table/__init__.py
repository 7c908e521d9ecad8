"""The item table: its columns, defined once with a docstring each, and whole-column helpers."""
