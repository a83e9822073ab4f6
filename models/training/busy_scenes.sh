#!/bin/bash
# The busy-table training data of the back segmenter (BACKS.md, "Busy tables"), in OUT:
#
#   bash models/training/busy_scenes.sh OUT
#
#   OUT/surfaces    busy_tables.py seed 1: 200 flat busy surfaces (tables/) and 300 camera views of
#                   them with no card (negatives/: masks all zero); about 3 minutes
#   OUT/bb, br, bl  train-design scenes on those surfaces (synth --backgrounds ... --background-share
#                   1 --masks): 300 batches, 120 ribbons, 100 loose sorts; about 8 minutes
# Used by seg_busy_tables.sh (the CPU fine-tune) and gpu_back_seg.sh prepare (packed as gpu/d3).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: busy_scenes.sh OUT}
cli=${NERTZ_CLI:-$here/build/app/cli/nertzref-cli}
[ -x "$cli" ] || { echo "busy_scenes: no $cli (bash scripts/setup.sh builds it)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
/usr/bin/python3 "$here/models/training/busy_tables.py" "$out/surfaces" --tables 200 --negatives 300 --seed 1
on_busy=(--designs train --masks --backgrounds "$out/surfaces/tables" --background-share 1)
"$cli" synth "${on_busy[@]}" --out "$out/bb" --scenes 300 --seed 301 --kind backs --real-hands 0.5 --plain-backs 0.15 >/dev/null
"$cli" synth "${on_busy[@]}" --out "$out/br" --scenes 120 --seed 302 --kind ribbon >/dev/null
"$cli" synth "${on_busy[@]}" --out "$out/bl" --scenes 100 --seed 303 --kind loose >/dev/null
