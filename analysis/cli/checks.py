"""Checks of a command's options that need no file and no benchmark package: run first.

A usage error is then told before pandas, a benchmark or the store is imported (``halluscope``
answers a mistyped option at once; issue 24 asks under 0.3 s). Each raises :class:`UsageError`.
"""

from __future__ import annotations

import argparse

from analysis.errors import InputError, UsageError
from analysis.files.table_formats import guess_format


def check_export(args: argparse.Namespace) -> str:
    """``export``: the format (``--format``, else the extension of ``--out``), and native's ``--gold``."""
    fmt: str | None = args.format
    if fmt is None:
        try:
            fmt = guess_format(args.out, None)
        except InputError:
            raise UsageError(
                f"--out {args.out}: cannot tell the format from the extension "
                f"{args.out.suffix or '(none)'}: name a .csv, .jsonl or .parquet file, "
                "or give --format"
            ) from None
    if fmt == "native" and not args.gold:
        raise UsageError("--format native needs --gold with the files to correct")
    if fmt == "native" and args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: is a file; --format native writes its copies into a folder")
    return fmt


def check_slices(args: argparse.Namespace) -> None:
    """``slices``: ``--max-depth`` 1 to 3, ``--alpha`` between 0 and 1."""
    if not 1 <= args.max_depth <= 3:
        raise UsageError(f"--max-depth must be 1, 2 or 3, not {args.max_depth}")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, not {args.alpha}")


def check_suspects(args: argparse.Namespace) -> None:
    """``suspects``: ``--top`` 1 or more."""
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top must be 1 or more, not {args.top}")
