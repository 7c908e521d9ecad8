#!/usr/bin/env bash
# Install everything the app and the tests need on a fresh Debian machine (run as root or with sudo).
# Debian packages: chromium (browser tests), ffmpeg (media checks). Python: the project with its
# dev and embed extras; torch is pinned to the CPU build that this kind of machine keeps on disk.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
need=()
for pkg in chromium ffmpeg; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi

python3 -m pip install -q --disable-pip-version-check "torch==2.13.0"
python3 -m pip install -q --disable-pip-version-check -e ".[dev,embed]"
