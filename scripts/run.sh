#!/usr/bin/env bash
# Quick start, command 1: set everything up, build, and start nertzref on its embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${NERTZ_BUILD_DIR:-build}
exec "$build/app/cli/nertzref-cli" tour "$@"
