"""Generate halluscope's bundled sample sets: ``python samples/generate.py [--out DIR] [--no-media]``.

Writes, for each of the five benchmarks, small synthetic gold and prediction files in the
benchmark's native format, real media (mp4 with and without audio, wav, png/jpg), a README and
two indexes: ``manifest.json`` (read by the app: media roots, gold files, prediction files with
model, task and gold) and ``media.json`` (every media file with its kind and what a check may
expect of it: duration, audio track, a ``broken`` flag on the deliberately unreadable video).

Deterministic: fixed seeds everywhere, so two runs write byte-identical JSON files. Media is
encoded with ffmpeg's bit-exact flags and one thread; it has come out identical across runs on
one machine, but another ffmpeg/x264 build may encode differently.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the private _gen_* modules sit next to this script
sys.dont_write_bytecode = True  # keep __pycache__ out of the committed samples folder

import _gen_avhbench  # noqa: E402
import _gen_cdh  # noqa: E402
import _gen_cmm  # noqa: E402
import _gen_dvb  # noqa: E402
import _gen_readme  # noqa: E402
import _gen_vidhalluc  # noqa: E402
from _gen_common import write_json  # noqa: E402

BUILDERS = {
    "avhbench": _gen_avhbench.build,
    "cmm": _gen_cmm.build,
    "vidhalluc": _gen_vidhalluc.build,
    "cdh-bench": _gen_cdh.build,
    "detailverifybench": _gen_dvb.build,
}


def generate(out: Path, *, media: bool = True) -> dict[str, Any]:
    """Write every sample set under ``out``; return the manifest.

    A full run (with media) first removes the five benchmark folders so no stale file survives;
    ``media=False`` only (re)writes the JSON files.
    """
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"benchmarks": {}}
    media_index: dict[str, Any] = {}
    for bench, build in BUILDERS.items():
        if media and (out / bench).exists():
            shutil.rmtree(out / bench)
        entry, index = build(out, media)
        manifest["benchmarks"][bench] = entry
        media_index.update(index)
    write_json(out / "manifest.json", manifest)
    write_json(out / "media.json", dict(sorted(media_index.items())))
    _gen_readme.write(out)
    return manifest


def _summary(out: Path) -> str:
    files = [p for p in out.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    return f"{len(files)} files, {total / 1e6:.2f} MB"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    parser.add_argument("--no-media", action="store_true", help="write the JSON files only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    generate(args.out, media=not args.no_media)
    print(f"wrote {args.out}: {_summary(args.out)} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
