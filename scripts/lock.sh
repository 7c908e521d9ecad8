#!/usr/bin/env bash
# Regenerate the lock files from pyproject.toml. An upgrade is a deliberate commit: run this, then
# `bash scripts/setup.sh && scripts/check`, and commit the new lock files only when the suite passes.
#
#   requirements.lock  every package the app, the tests, the PostgreSQL driver and the STH embedder
#                      need, at exact versions (what scripts/setup.sh and .ci/run install)
#   requirements.txt   the runtime subset at the same versions, then the project itself (what
#                      Hugging Face Spaces and the README's first command install)
#
# torch is the CPU build this kind of machine keeps on disk (torch==2.13.0 resolves to it): the CUDA
# build from the registry is several GB and nothing here uses a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pip_q=(-q --disable-pip-version-check)

python3 -m venv "$tmp/full"
"$tmp/full/bin/python" -m pip install "${pip_q[@]}" "torch==2.13.0"
"$tmp/full/bin/python" -m pip install "${pip_q[@]}" ".[dev,embed,postgres]"
{
  echo "# The whole dependency set (runtime, dev, embed, postgres) at exact versions."
  echo "# Made by scripts/lock.sh from pyproject.toml on $(date -u +%Y-%m-%d) with $("$tmp/full/bin/python" -V)."
  "$tmp/full/bin/python" -m pip freeze --exclude halluscope
} >requirements.lock

python3 -m venv "$tmp/run"
"$tmp/run/bin/python" -m pip install "${pip_q[@]}" -c requirements.lock .
{
  echo "# Runtime dependencies at the versions of requirements.lock, then the project (Spaces installs this)."
  echo "# Made by scripts/lock.sh; do not edit by hand."
  "$tmp/run/bin/python" -m pip freeze --exclude halluscope
  echo "."
} >requirements.txt
echo "lock.sh: $(grep -c '==' requirements.lock) pins in requirements.lock, $(grep -c '==' requirements.txt) in requirements.txt" >&2
