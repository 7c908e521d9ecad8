"""Real file-system faults for store tests: a read-only folder and a full disk.

A small ``tmpfs`` is mounted (as root; CI and this machine run the suite as root), read-only or
of a few hundred kilobytes, so SQLite meets the kernel's own EROFS / ENOSPC. Without root, a
read-only folder is made with ``chmod`` instead and a full disk cannot be made (skipped, saying so).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(folder: Path, options: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, check=False
    )
    return done.returncode == 0


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


@contextmanager
def frozen_later(folder: Path) -> Iterator[Callable[[], None]]:
    """``folder`` writable until the ``freeze()`` it yields is called, then read-only with its files.

    As root, a small ``tmpfs`` remounted read-only (the kernel refuses every write, root's too);
    else the folder and its files lose their write bits.
    """
    if os.geteuid() != 0:
        folder.mkdir(parents=True, exist_ok=True)

        def chmod_freeze() -> None:
            for entry in folder.iterdir():
                entry.chmod(0o444)
            folder.chmod(0o555)

        try:
            yield chmod_freeze
        finally:
            folder.chmod(0o755)
        return
    if not _mount(folder, "size=8m"):
        pytest.skip("cannot mount a tmpfs here")

    def remount_freeze() -> None:
        done = subprocess.run(["mount", "-o", "remount,ro", str(folder)], capture_output=True, check=False)
        assert done.returncode == 0, done.stderr

    try:
        yield remount_freeze
    finally:
        _unmount(folder)


@contextmanager
def read_only_folder(folder: Path) -> Iterator[Path]:
    """``folder`` as a folder nobody can write in: :func:`frozen_later`, frozen at once."""
    with frozen_later(folder) as freeze:
        freeze()
        yield folder


@contextmanager
def small_disk(folder: Path, size: str = "2m") -> Iterator[Path]:
    """``folder`` as a file system of ``size`` that :func:`fill` can fill to the last block."""
    if os.geteuid() != 0 or not _mount(folder, f"size={size}"):
        pytest.skip("a full disk needs root to mount a small tmpfs")
    try:
        yield folder
    finally:
        _unmount(folder)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until the file system has no block left."""
    filler = folder / "filler.bin"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:  # ENOSPC: try smaller pieces, down to one byte
                continue
    finally:
        os.close(fd)
    return filler
