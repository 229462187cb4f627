#!/usr/bin/env bash
# Install headless Chromium for the replay-viewer browser test (tests/tools/test_viewer.py).
# Does nothing when a Chromium is already on the machine. Needs root and apt (Debian package `chromium`).
set -euo pipefail
for exe in /usr/bin/chromium chromium chromium-browser google-chrome; do
  if command -v "$exe" >/dev/null 2>&1; then
    echo "chromium present: $(command -v "$exe")"
    exit 0
  fi
done
if [ "$(id -u)" != "0" ]; then
  echo "error: installing chromium needs root (apt-get); run as root or install the 'chromium' package" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium
