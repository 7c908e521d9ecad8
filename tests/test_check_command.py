"""``scripts/check``, the one check command, stops at a lint failure instead of going on to the tests.

It once ran ``ruff check . && ruff format --check .`` under ``set -e``: a command before ``&&``
that fails does not stop such a script, so a lint error was reported and the run still passed.
The command is run here on a copy in a folder of its own, holding one file that breaks the line
length, so the repository is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_lint_error_fails_the_check(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "check", tmp_path / "scripts" / "check")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff]\nline-length = 110\n[tool.ruff.lint]\nselect = ["E501"]\n'
    )
    (tmp_path / "too_long.py").write_text(f'TEXT = "{"a" * 120}"\n')
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HALLUSCOPE_TEST_PG_URL": "postgresql://unused",  # no throwaway server for this run
    }
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "check"), "--collect-only"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "E501" in done.stdout + done.stderr
    assert "== mypy" not in done.stdout  # stopped at the lint step
