"""Resolving the media paths written in benchmark files against the folders a user configured.

Benchmark files name their media in many ways: relative to a release folder (``./files/x.mp4``),
by bare file name (``00191.mp4``), or by an absolute path on the author's machine
(``/home/me/Bench/images/...``). A :class:`MediaResolver` maps each reference to a file that
exists *inside* one of its roots, or to nothing. Nothing outside the roots is ever returned, whatever
the reference says (``..``, absolute paths, symbolic links leaving the root): the app serves only
what this module returns, so this check is the security boundary of media serving.

Layouts a resolver copes with:

- a first folder spelled differently in a benchmark's files and in its released archive: each
  benchmark lists such pairs (``MEDIA_ALIASES``) and each spelling is tried for the other;
- an archive that unpacks one folder deeper: a file name is also looked up by name anywhere under
  the roots (an index built once, on first use), when that name is unique there;
- ``"None"``, ``"null"`` or an empty string: no file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

MISSING_SPELLINGS = frozenset({"", "none", "null", "nan"})
"""Values that mean "no file" (some files write the string ``"None"``)."""

Aliases = tuple[tuple[str, str], ...]
"""First-folder spellings tried for one another: ``(("raw", "reorg_raw"),)`` tries each for the other."""

MAX_INDEX_FILES = 500_000
"""The by-name index stops growing past this many files (a root that is a whole disk)."""


class MediaResolver:
    """Find media files inside a fixed set of root folders, never outside them."""

    def __init__(self, roots: Sequence[Path], aliases: Aliases = ()) -> None:
        self.roots: tuple[Path, ...] = tuple(
            dict.fromkeys(Path(os.path.realpath(r)) for r in roots if Path(r).is_dir())
        )
        self.aliases = tuple(dict.fromkeys([*aliases, *((new, old) for old, new in aliases)]))
        self._by_name: dict[str, Path | None] | None = None

    def resolve(self, reference: str | None) -> Path | None:
        """Return the existing file inside a root that ``reference`` names, or None."""
        parts = reference_parts(reference)
        if not parts:
            return None
        for candidate in _candidates(parts, self.aliases):
            for root in self.roots:
                found = self._inside(root, candidate)
                if found is not None:
                    return found
        return self._by_name_lookup(parts[-1])

    def contains(self, path: Path) -> bool:
        """True when ``path`` (after following links) lies inside one of the roots."""
        real = Path(os.path.realpath(path))
        return any(real == root or real.is_relative_to(root) for root in self.roots)

    def _inside(self, root: Path, relative: PurePosixPath) -> Path | None:
        real = Path(os.path.realpath(root.joinpath(*relative.parts)))
        if not real.is_relative_to(root) or not real.is_file():
            return None
        return real

    def _by_name_lookup(self, name: str) -> Path | None:
        if self._by_name is None:
            self._by_name = self._index()
        found = self._by_name.get(name)
        # The index was built from walking the roots, but a link may have changed since.
        return found if found is not None and self.contains(found) and found.is_file() else None

    def _index(self) -> dict[str, Path | None]:
        # A name found twice maps to None: a benchmark may hold an "image.png" in every item's
        # folder, and guessing one of them would show the wrong image.
        index: dict[str, Path | None] = {}
        count = 0
        for root in self.roots:
            for folder, _dirs, files in os.walk(root):
                for name in files:
                    index[name] = None if name in index else Path(folder) / name
                    count += 1
                if count >= MAX_INDEX_FILES:
                    return index
        return index


def reference_parts(reference: str | None) -> tuple[str, ...]:
    """Split a media reference into safe path components (no ``.``, ``..``, drive or root).

    ``..`` components are dropped rather than applied: a reference is only ever looked for below a
    root, so climbing out of it can never be meant.
    """
    if reference is None:
        return ()
    text = str(reference).strip()
    if text.lower() in MISSING_SPELLINGS or "\x00" in text:
        return ()
    text = text.replace("\\", "/")
    if len(text) > 1 and text[1] == ":":  # a Windows drive letter
        text = text[2:]
    return tuple(p for p in text.split("/") if p not in {"", ".", ".."})


def _candidates(parts: tuple[str, ...], aliases: Aliases) -> list[PurePosixPath]:
    """Relative paths to try, most specific first: the whole path, its alias, then its tails."""
    out: list[PurePosixPath] = []
    for start in range(len(parts)):
        tail = parts[start:]
        out.append(PurePosixPath(*tail))
        for old, new in aliases:
            if tail[0] == old and len(tail) > 1:
                out.append(PurePosixPath(new, *tail[1:]))
    return list(dict.fromkeys(out))
