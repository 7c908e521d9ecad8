"""The one error type for bad input: it names the file, the record and the field."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """A user's file cannot be read as the benchmark's format.

    The message is a single line meant for people: ``file: record: field: problem``, with the
    record (a line number, an index or a key) and the field left out when they do not apply.
    """

    def __init__(
        self,
        path: str | Path,
        problem: str,
        *,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.problem = problem
        self.record = record
        self.field = field
        super().__init__(self.line())

    def line(self) -> str:
        """Return the single-line message, e.g. ``a.jsonl: line 3: field 'pred': expected a string``."""
        parts = [self.path]
        if self.record is not None:
            parts.append(self.record)
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        parts.append(self.problem)
        return ": ".join(parts).replace("\n", " ")


class UsageError(Exception):
    """Bad command-line usage (exit 2)."""


class InvalidLabel(ValueError):
    """A label value that does not fit its field, benchmark or task."""


class StoreError(Exception):
    """The label store cannot be opened or used as asked (bad URL, unsafe path, damaged file).

    The message is one line naming the database; defined here, beside :class:`InputError`, so the
    command line can report it without importing the store.
    """


class ReadOnlyStore(StoreError):
    """The database or its folder cannot be written (read-only file system, permissions)."""


class WriteRefused(StoreError):
    """The database refused a write (disk full, read-only, locked too long): the reason says which."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message
