"""Reading the JSON and JSONL files that benchmark pipelines write, with errors that say where.

Every reader raises :class:`~analysis.errors.InputError` naming the file, the record (a line
number for JSONL, an index or key for JSON) and the field. Nothing here knows a benchmark.
"""

from __future__ import annotations

import functools
import gc
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import orjson

from analysis.errors import InputError

P = ParamSpec("P")
R = TypeVar("R")

MAX_LINE_BYTES = 16 * 1024 * 1024
"""A JSONL line longer than this is refused: no benchmark record comes near it."""

MAX_TEXT_CHARS = 4 * 1024 * 1024
"""A string field longer than this is refused (a runaway model output or a corrupt file)."""


@dataclass
class Records:
    """JSON objects read from one file, with how to name each of them in an error."""

    path: Path
    items: list[Any]
    labels: list[str] = field(default_factory=list)
    """Per-item names (``line 7``, ``record 3``, ``key 'x'``); empty means ``record <index + 1>``."""

    def where(self, index: int) -> str:
        """Name record ``index`` the way a person would look for it in the file.

        JSON list records count from 1, like JSONL lines, so "record 3" and "line 3" both mean
        the third object a person meets reading the file.
        """
        if self.labels:
            return self.labels[index]
        return record_name(index)

    def error(self, index: int, problem: str, field_name: str | None = None) -> InputError:
        """Build the error for a problem in record ``index`` (and field, when known)."""
        return InputError(self.path, problem, record=self.where(index), field=field_name)

    def __len__(self) -> int:
        return len(self.items)


def record_name(index: int) -> str:
    """How an error names the object at 0-based ``index`` of a JSON list: ``record <index + 1>``."""
    return f"record {index + 1}"


BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark some editors put first in a file: read past, wherever a file is read."""


def without_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte order mark."""
    return data[3:] if data.startswith(BOM) else data


def check_file(path: Path) -> None:
    """Refuse, by name, a path that is not a readable regular file (before anything opens it)."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a folder, expected a file")
    if not path.is_file():  # a pipe would block the open until something writes to it
        raise InputError(path, "is not a regular file (a pipe or a device): give a file")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:  # PermissionError above all: bad input, not an internal error
        raise InputError(path, f"cannot be read ({exc.strerror or type(exc).__name__})") from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


_STRICT = json.JSONDecoder(object_pairs_hook=_pairs_once)
"""Decodes like ``json.loads`` but raises on a key repeated inside one object. orjson (and most
parsers) keep the last value silently, which changed one benchmark's accuracy from 0.651 to 0.628 on a
file whose records named ``label`` twice; a repeated key is an ambiguous record, so it is refused."""


def keys_in(value: Any) -> int:
    """How many object keys ``value`` holds, at every depth (an explicit stack: no recursion limit)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return count


def key_ends(data: bytes) -> int:
    """How many places in a JSON text could end an object key (at least the number of keys written).

    Each ``":`` is one; where a quote is followed by white space (rare), each ``"`` then white
    space then ``:`` is one more. A whole file is read as numbers (:func:`key_ends_as_numbers`);
    a short text (one line of a file checked line by line) by the bytes' own search, which
    costs a sixth as much there (3 against 19 microseconds for a 700-byte record).
    """
    return key_ends_as_numbers(data) if len(data) >= _NUMBERS_FROM else key_ends_searched(data)


_NUMBERS_FROM = 1 << 16
"""Texts of at least this many bytes have their key ends counted as numbers."""


def key_ends_searched(data: bytes) -> int:
    """:func:`key_ends` by ``bytes.count``, a translation and a search (for short texts)."""
    count = data.count(b'":')
    if b'"\x00' in data.translate(_SPACE_AS_NUL):  # rare: a quote then white space (maybe a colon)
        count += len(_SPACED_KEY_END.findall(data))
    return count


_SPACE_AS_NUL = bytes.maketrans(b" \t\n\r", b"\x00\x00\x00\x00")
"""JSON's white space made one byte, so one search finds a quote followed by any of it."""


def key_ends_as_numbers(data: bytes, *, chunk: int = 1 << 22) -> int:
    """:func:`key_ends` in one pass over the bytes as numbers, ``chunk`` bytes at a time.

    A few MB of temporaries, whatever the file, and a fifth of the time of
    :func:`key_ends_searched` on a whole file (0.06 s against 0.29 s for 75 MB of records), which
    every JSON file loaded pays once.
    """
    import numpy as np  # here: this module is imported by commands that answer before numpy loads

    text = np.frombuffer(data, dtype=np.uint8)
    count = 0
    spaced = False
    for start in range(0, max(len(text) - 1, 0), chunk):
        quote = text[start : min(start + chunk, len(text) - 1)] == _QUOTE
        after = text[start + 1 : start + 1 + len(quote)]
        count += int(np.count_nonzero(quote & (after == _COLON)))
        # a byte up to 32 after a quote: JSON's white space is among them (nothing else there is
        # valid JSON), so the exact search below runs whenever a quote meets white space
        spaced = spaced or bool(np.any(quote & (after <= _SPACE)))
    if spaced:
        count += len(_SPACED_KEY_END.findall(data))
    return count


_QUOTE, _COLON, _SPACE = ord('"'), ord(":"), ord(" ")
_SPACED_KEY_END = re.compile(rb'"[ \t\r\n]+:')
_NOT_AFTER = bytes(1 if b in b"\\{[,:" else 0 for b in range(256))
"""In orjson's compact text, a ``":`` may not end a key only after one of ``\\{[,:``: an escaped
quote (or backslash) before a colon, or a string's opening quote (always after one of ``{[,:``)
before a colon. Those bytes are 1 here (a table looked up by byte); every other byte 0."""


def keys_at_most(value: Any, *, chunk: int = 1 << 22) -> int | None:
    """A count of the object keys in ``value`` that is never more than the true one, at C speed.

    Counted on orjson's compact text of ``value``: every key ends there with ``":``, and each
    ``":`` that might not be a key's end (first in the text, or after a byte of :data:`_NOT_AFTER`)
    is left out. The text is read as numbers ``chunk`` bytes at a time (0.17 s for 100,000
    records of 27 keys, against 0.37 s by the bytes' own translation and counts). None when
    ``value`` cannot be written.
    """
    try:
        dump = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None
    import numpy as np  # here: this module is imported by commands that answer before numpy loads

    text = np.frombuffer(dump, dtype=np.uint8)
    not_after = np.frombuffer(_NOT_AFTER, dtype=np.uint8).astype(bool)
    count = 0
    for start in range(1, max(len(text) - 1, 1), chunk):  # from 1: a ``":`` first is never a key's end
        end = min(start + chunk, len(text) - 1)
        ends = (text[start:end] == _QUOTE) & (text[start + 1 : end + 1] == _COLON)
        before = np.flatnonzero(ends) + (start - 1)  # where the byte before each such quote is
        count += len(before) - int(np.count_nonzero(not_after[text[before]]))
    return count


def surely_unique_keys(data: bytes, value: Any) -> bool:
    """True when ``value``, parsed from ``data``, cannot have lost a key to a repeat.

    Keys counted in the value (at most) <= keys the value has <= keys written <= places in the
    text that could end a key: when the two ends meet, every key written is in the value. False
    means only that the slow, exact check must decide (a repeat, or a string that looks like one).

    The value's keys are counted exactly by walking it when its text is mostly long strings
    (:data:`WALK_BYTES_PER_KEY` bytes a key or more: a walk costs per key), else at C speed on
    its compact text (which costs per byte).
    """
    ends = key_ends(data)
    if ends == 0:  # no place in the text could end a key: there is no key, so none repeated
        return True
    counted = keys_in(value) if len(data) >= WALK_BYTES_PER_KEY * ends else keys_at_most(value)
    return counted is not None and counted == ends


WALK_BYTES_PER_KEY = 64
"""Above this many bytes of text a key, walking the parsed value counts its keys sooner than
writing it out again (measured at 1M rows: long captions, 222 bytes a key, 0.055 s walked
against 0.253 s written; short questions, 35 bytes a key, 0.116 s against 0.062 s)."""


def check_unique_keys(
    path: Path, data: bytes, record: str | None = None, *, value: Any = None, parsed: int | None = None
) -> None:
    """Refuse a JSON document (already known to parse) in which an object repeats a key.

    The error names the record: ``record``, else the list index or top-level key holding it.
    A fast test comes first: the keys of the parsed ``value`` (or the count ``parsed`` of them)
    are never more than the keys written, and those never more than :func:`key_ends` of the text;
    when the two ends meet, no key was written twice and nothing is parsed again. Only otherwise
    (a repeated key, or a string holding an escaped quote before a colon) is the text decoded key by key.
    """
    if value is not None or parsed is not None:
        have = parsed if parsed is not None else keys_in(value)
        if have == key_ends(data):
            return
    text = data.decode("utf-8")
    try:
        _STRICT.decode(text)
    except _DuplicateKey as exc:
        where = record if record is not None else _locate_duplicate(text)
        raise InputError(
            path,
            "key given twice in one record (which value is meant is ambiguous)",
            record=where,
            field=exc.key,
        ) from None
    except ValueError:  # orjson accepted what the stdlib refuses (never seen): orjson's reading stands
        return


def _locate_duplicate(text: str) -> str | None:
    """Where the object that repeats a key sits, for the error (on the error path only).

    The top-level list index or key holding it (``record 3``, ``key 'g'``), then each key or index
    below that leads to it (``key 'g', key 'clip 1'``); None when the repeat is at the top level.
    """
    parts = _duplicate_path(text, 0, top=True)
    return ", ".join(parts) if parts else None


def _duplicate_path(text: str, at: int, *, top: bool) -> list[str]:
    """The keys (or indexes) from the value at ``at`` down to the object that repeats a key."""
    decoder = json.JSONDecoder()
    at = skip(text, at)
    opener = text[at : at + 1]
    if opener not in ("[", "{"):
        return []
    at += 1
    index = 0
    while True:
        at = skip(text, at, ", \t\r\n")
        if at >= len(text) or text[at] in "]}":
            return []
        key = None
        if opener == "{":
            key, at = decoder.raw_decode(text, at)
            at = skip(text, skip(text, at) + 1)  # past the colon
        start = at
        _, at = decoder.raw_decode(text, at)
        try:
            _STRICT.decode(text[start:at])
        except _DuplicateKey:
            here = (record_name(index) if top else f"item {index + 1}") if key is None else f"key {key!r}"
            return [here, *_duplicate_path(text[start:at], 0, top=False)]
        index += 1


JSON_SPACE = " \t\r\n"
"""The white space JSON allows between values."""


def skip(text: str, at: int, chars: str = JSON_SPACE) -> int:
    """The first position from ``at`` on whose character is not one of ``chars``."""
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def _decode_problem(exc: Exception) -> str:
    text = str(exc)
    if "utf-8" in text.lower() or "unicode" in text.lower():
        return "not valid UTF-8 text"
    return f"invalid JSON ({text.split(':')[0]})"


def check_text(path: Path, head: bytes) -> None:
    """Refuse a file whose first bytes (``head``) hold NUL bytes or a UTF-16 mark: never UTF-8 text.

    Such a file was read as a table with NUL bytes in its header, or as invalid JSON; the one thing
    wrong with it is its encoding.
    """
    kind = binary_kind(head)
    if kind is not None:  # told before the NUL bytes: a PNG was once called UTF-16 text
        raise InputError(path, f"is {kind}, not a text file")
    if b"\x00" in head or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        wide = " (UTF-16 or UTF-32, by its bytes)" if head.count(b"\x00") * 8 > len(head) else ""
        raise InputError(path, f"is not UTF-8 text{wide}: save it as UTF-8")


_SIGNATURES: tuple[tuple[bytes, int, bytes, str], ...] = (
    (b"", 0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"", 0, b"\xff\xd8\xff", "a JPEG image"),
    (b"", 0, b"GIF87a", "a GIF image"),
    (b"", 0, b"GIF89a", "a GIF image"),
    (b"RIFF", 8, b"WEBP", "a WebP image"),
    (b"RIFF", 8, b"WAVE", "a WAV audio file"),
    (b"RIFF", 8, b"AVI ", "an AVI video"),
    (b"\x00\x00", 4, b"ftyp", "an MP4 or MOV video"),
    (b"", 0, b"\x1aE\xdf\xa3", "a WebM or Matroska video"),
    (b"", 0, b"ID3", "an MP3 audio file"),
    (b"", 0, b"OggS", "an Ogg audio or video file"),
    (b"", 0, b"fLaC", "a FLAC audio file"),
    (b"", 0, b"%PDF-", "a PDF document"),
    (b"", 0, b"PK\x03\x04", "a ZIP archive (unzip it first)"),
    (b"", 0, b"\x1f\x8b", "a gzip archive (unzip it first)"),
    (b"", 0, b"PAR1", "a Parquet table"),
    (b"", 0, b"SQLite format 3\x00", "an SQLite database"),
)
"""(start, offset, magic, kind): a file that starts with ``start`` and holds ``magic`` at
``offset`` is that kind of binary file (for one given in place of results or gold)."""


def binary_kind(head: bytes) -> str | None:
    """What a binary file is, by the signature at its start (``a PNG image``); None for anything else."""
    for start, offset, magic, kind in _SIGNATURES:
        if head.startswith(start) and head[offset : offset + len(magic)] == magic:
            return kind
    return None


def read_bytes(path: Path) -> bytes:
    """Read a whole file; refuse missing, empty and non-UTF-8 files with a clear error."""
    check_file(path)
    data = without_bom(path.read_bytes())
    check_text(path, data[:65536])
    if not data.strip():
        raise InputError(path, "file is empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            path, f"not valid UTF-8 text (byte 0x{data[exc.start]:02x})", record=f"line {line}"
        ) from None
    return data


def read_json(path: Path) -> Any:
    """Parse a whole JSON document."""
    data = read_bytes(path)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(path, _json_problem(data, exc), record=f"line {exc.lineno}") from None
    if not surely_unique_keys(data, value):
        check_unique_keys(path, data, value=value)
    return value


def _json_problem(data: bytes, exc: orjson.JSONDecodeError) -> str:
    """Say what is wrong; suggest truncation only for a JSON document that stops early."""
    head = data.lstrip()[:1]
    if head not in (b"[", b"{", b'"'):
        return f"not a JSON file (it starts with {data.lstrip()[:12]!r}): expected JSON or JSON Lines"
    at_end = exc.pos >= len(data.rstrip()) - 1
    hint = "; is the file truncated?" if at_end else ""
    return f"invalid JSON at column {exc.colno} ({exc.msg}){hint}"


def iter_jsonl(path: Path, *, check_keys: bool = True) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, value)`` for each non-blank line of a JSONL file.

    ``check_keys=False`` leaves the repeated-key check to the caller (:func:`read_jsonl` checks
    the whole file at once).
    """
    check_file(path)
    seen = False
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1:
                line = without_bom(line)
                check_text(path, line[:65536])
            if len(line) > MAX_LINE_BYTES:
                raise InputError(
                    path,
                    f"line is {len(line):,} bytes, over the {MAX_LINE_BYTES:,}-byte limit for one record",
                    record=f"line {number}",
                )
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                problem = _decode_problem(exc)
                if not seen and _one_document(path):  # a pretty-printed file: valid JSON, not JSON Lines
                    problem = _NOT_LINES
                raise InputError(path, problem, record=f"line {number}") from None
            seen = True
            if check_keys:
                check_unique_keys(path, line, f"line {number}", value=value)
            yield number, value
    if not seen:
        raise InputError(path, "file is empty")


_NOT_LINES = "is one JSON document written over several lines, not JSON Lines (a record a line)"


def _one_document(path: Path) -> bool:
    """Whether the whole file is one JSON document (asked only when its first line is not one)."""
    try:
        orjson.loads(without_bom(path.read_bytes()))
    except (orjson.JSONDecodeError, OSError, MemoryError):
        return False
    return True


def read_jsonl(path: Path) -> Records:
    """Read a JSONL file whose every line is a JSON object."""
    items: list[Any] = []
    labels: list[str] = []
    for number, value in iter_jsonl(path, check_keys=False):
        if not isinstance(value, dict):
            raise InputError(path, f"expected a JSON object, got {type_name(value)}", record=f"line {number}")
        items.append(value)
        labels.append(f"line {number}")
    if not surely_unique_keys(without_bom(path.read_bytes()), items):  # then line by line, to name the record
        for _ in iter_jsonl(path):
            pass
    return Records(path, items, labels)


def looks_like_jsonl(path: Path) -> bool:
    """True when the file holds more than one top-level JSON value, one per line."""
    with path.open("rb") as handle:
        if not without_bom(handle.read(4096)).lstrip().startswith(b"{"):
            return False  # a JSON list (often one long line) is told without reading that line
        handle.seek(0)
        first = without_bom(handle.readline(MAX_LINE_BYTES))
        rest = b""
        while not rest.strip():
            rest = handle.readline(MAX_LINE_BYTES)
            if not rest:
                break
    if not first.strip().startswith(b"{") or not rest.strip():
        return False
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return True


def read_records(path: Path) -> Records:
    """Read a list of JSON objects from a JSON array file or a JSONL file (by content, not name)."""
    check_file(path)
    if looks_like_jsonl(path):
        return read_jsonl(path)
    value = read_json(path)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise InputError(path, f"expected a JSON list of objects, got {type_name(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(
                path, f"expected a JSON object, got {type_name(item)}", record=record_name(index)
            )
    return Records(path, value)


def read_object(path: Path) -> dict[str, Any]:
    """Read a JSON file whose top level must be an object (``{key: ...}``)."""
    value = read_json(path)
    if not isinstance(value, dict):
        raise InputError(path, f"expected a JSON object at the top level, got {type_name(value)}")
    return value


def type_name(value: object) -> str:
    """Name a JSON value's type the way JSON does (string, number, object...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def require(
    records: Records,
    index: int,
    key: str,
    kinds: tuple[type, ...] = (str,),
    *,
    optional: bool = False,
) -> Any:
    """Return ``records.items[index][key]`` after checking its type; errors name record and field.

    ``optional`` allows the key to be absent or null (then ``None`` is returned).
    """
    item = records.items[index]
    if key not in item or item[key] is None:
        if optional:
            return None
        problem = "missing" if key not in item else "is null"
        raise records.error(index, f"{problem}, expected {_kinds(kinds)}", key)
    value = item[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise records.error(index, f"expected {_kinds(kinds)}, got {type_name(value)}", key)
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise records.error(index, f"is {len(value):,} characters, over the {MAX_TEXT_CHARS:,} limit", key)
    return value


def require_column(
    records: Records,
    key: str,
    kinds: tuple[type, ...] = (str,),
    *,
    optional: bool = False,
) -> list[Any]:
    """Return one field of every record as a list, checked like :func:`require`.

    The fast path reads the column in one comprehension; only when some value is off does it walk
    the records again to name the first bad one.
    """
    values = [item.get(key) for item in records.items]
    ok = all(
        (v is None and optional) or (type(v) in kinds and not (type(v) is str and len(v) > MAX_TEXT_CHARS))
        for v in values
    )
    if not ok:
        for index in range(len(values)):
            require(records, index, key, kinds, optional=optional)
    return values


def _kinds(kinds: Iterable[type]) -> str:
    names = {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        list: "a list",
        dict: "an object",
    }
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


Loader = Callable[[Path], Records]


def without_gc_pauses(load: Callable[P, R]) -> Callable[P, R]:
    """Run ``load`` with the cyclic garbage collector paused (its state restored after).

    Reading a file creates a few hundred thousand dicts, lists and strings, none in a cycle;
    each few hundred allocations the collector would walk every object alive, the whole parsed
    file included, which took about half of a large file's table build. Reference counting
    still frees everything; a cycle made meanwhile is collected at the next pass after.
    """

    @functools.wraps(load)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return load(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return paused
