#!/usr/bin/env bash
# Installs the Debian packages nertzref needs (only when something is missing), then configures
# and builds into build/ (or $NERTZ_BUILD_DIR). Safe to run again; used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ ninja-build pkgconf git
  libsqlite3-dev sqlite3 libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  qt6-base-dev qt6-multimedia-dev qt6-charts-dev qt6-svg-dev
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev libopencv-videoio-dev
  libopencv-dnn-dev libopencv-ml-dev libopencv-features2d-dev libopencv-calib3d-dev
  gnome-cards-data kdegames-card-data-kf5 librsvg2-bin xvfb xauth lcov
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=${NERTZ_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${NERTZ_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"
