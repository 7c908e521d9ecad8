"""Placeholder for the cdh-bench module (being written)."""

from __future__ import annotations

NAME = "cdh-bench"
VERSION = "0"
TASKS: tuple[str, ...] = ()
TASK_REQUIRED = False
PARSERS: tuple[str, ...] = ("official",)
ALT_PARSER = "official"
