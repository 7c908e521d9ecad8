#!/usr/bin/env bash
# Install everything the app and the tests need on a fresh Debian machine (run as root or with sudo),
# into the active Python environment (a virtual environment, or the system's python3).
#   Debian packages: chromium (browser tests), ffmpeg (media checks), postgresql (the store's
#   PostgreSQL tests; scripts/check starts a throwaway server).
#   Python: exactly the versions in requirements.lock (see scripts/lock.sh), then the project
#   itself, editable and without resolving anything again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
need=()
for pkg in chromium ffmpeg; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup.sh: installing Debian packages: ${need[*]}" >&2
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi

pip_q=(-q --disable-pip-version-check)
python3 -m pip install "${pip_q[@]}" -r requirements.lock
python3 -m pip install "${pip_q[@]}" --no-deps -e .
echo "setup.sh: installed $(grep -c '==' requirements.lock) locked packages and halluscope into $(python3 -c 'import sys; print(sys.prefix)')" >&2
