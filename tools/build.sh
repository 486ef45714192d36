#!/usr/bin/env bash
# Installs what is missing, configures build/ (once) and builds eddy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
if [ ! -f build/build.ninja ]; then
  meson setup build
fi
ninja -C build
