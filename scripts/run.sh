#!/usr/bin/env bash
# Quick start, command 1: set everything up, build, and start nertzref on its embedded defaults:
# the Qt app on the default league database, with the camera or, with none, the demo clip.
# On a machine with no display ($DISPLAY and $WAYLAND_DISPLAY both empty) a window cannot open:
# it says so and runs the CLI's guided tour instead (nertzref --screenshot DIR shows the screens).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${NERTZ_BUILD_DIR:-build}
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/gui/nertzref" "$@"
fi
echo "run: no display here (DISPLAY and WAYLAND_DISPLAY are empty), so the nertzref window cannot open."
echo "run: showing the CLI tour instead; on a desktop this command starts the app. To see the screens"
echo "run: headless: $build/app/gui/nertzref --screenshot DIR   (QT_QPA_PLATFORM=offscreen)"
echo
exec "$build/app/cli/nertzref-cli" tour
