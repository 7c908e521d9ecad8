"""The lock files cover pyproject.toml: a dependency added without re-locking fails here.

``scripts/lock.sh`` makes ``requirements.lock`` (everything) and ``requirements.txt`` (the runtime
subset for Spaces, at the same versions); installs come from them, never from open ranges.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line == ".":
            continue
        name, sep, version = line.partition("==")
        assert sep, f"{path.name}: {line!r} is not pinned with =="
        key = canonicalize_name(name.split("[")[0])
        assert key not in pins, f"{path.name}: {name} pinned twice"
        pins[key] = Version(version)
    return pins


def _requirements() -> dict[str, list[Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"runtime": [Requirement(r) for r in project["dependencies"]]}
    for extra, reqs in project["optional-dependencies"].items():
        groups[extra] = [Requirement(r) for r in reqs]
    return groups


LOCK = _pins(ROOT / "requirements.lock")
RUNTIME = _pins(ROOT / "requirements.txt")


@pytest.mark.parametrize("group", sorted(_requirements()))
def test_every_dependency_is_locked_within_its_range(group: str) -> None:
    for req in _requirements()[group]:
        key = canonicalize_name(req.name)
        assert key in LOCK, f"{req} ({group}) is not in requirements.lock: run scripts/lock.sh"
        assert req.specifier.contains(LOCK[key], prereleases=True), (
            f"requirements.lock pins {req.name}=={LOCK[key]}, outside {req} ({group})"
        )


def test_runtime_lock_is_the_full_lock_restricted() -> None:
    for req in _requirements()["runtime"]:
        assert canonicalize_name(req.name) in RUNTIME, f"{req.name} missing from requirements.txt"
    for key, version in RUNTIME.items():
        assert LOCK.get(key) == version, f"requirements.txt {key}=={version}, lock {LOCK.get(key)}"
    # the embedder (torch) stays out of the Space: it is an extra, and the CUDA build is GBs
    assert "torch" not in RUNTIME


def test_requirements_txt_installs_the_project_last() -> None:
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines() if ln.strip()]
    assert lines[-1] == "."
