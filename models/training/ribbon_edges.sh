#!/bin/bash
# The ribbon-spread edge finder committed as vision/src/backs/ribbon_edges_weights.inc since
# 2026-11-29, seventeenth session (BACKS.md, "Wide ribbon spreads"): the fifth session's recipe
# ("Rows read in perspective") with two more folders of ribbons spread 0.14-0.4 of a card's height
# apart (`synth --ribbon-shift`), so that a ribbon laid wider than the generator's default (0.04-0.14)
# is read too.
#
#   bash models/training/ribbon_edges.sh [SCRATCH] [OUT.inc]
#
# SCRATCH (default /tmp/rows) receives the scenes (about 1,600 ribbon scenes of the train designs,
# 6-10 minutes on two cores); OUT defaults to vision/src/backs/ribbon_edges_weights.inc. Training:
# 25 epochs, two torch threads, about 15-20 minutes on this machine. Rebuild afterwards (the weights
# are compiled in).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
scratch=${1:-/tmp/rows}
out=${2:-$here/vision/src/backs/ribbon_edges_weights.inc}
cli=${NERTZ_CLI:-$here/build/app/cli/nertzref-cli}
[ -x "$cli" ] || { echo "ribbon_edges: no $cli (bash scripts/setup.sh builds it)" >&2; exit 2; }
mkdir -p "$scratch"
synth() { "$cli" synth --designs train --kind ribbon "$@" >/dev/null; }
looks=(--plain-backs 0.3 --plain-tables 0.3 --pepper 0.2 --real-hands 0.8)
wide=(--ribbon-shift 0.14,0.4)
[ -d "$scratch/rows_21" ] || synth --out "$scratch/rows_21" --scenes 200 --seed 21
[ -d "$scratch/rows_22" ] || synth --out "$scratch/rows_22" --scenes 200 --seed 22
[ -d "$scratch/rows_23" ] || synth --out "$scratch/rows_23" --scenes 200 --seed 23
[ -d "$scratch/rows_24" ] || synth --out "$scratch/rows_24" --scenes 250 --seed 24 "${looks[@]}"
[ -d "$scratch/rows_25" ] || synth --out "$scratch/rows_25" --scenes 250 --seed 25
[ -d "$scratch/rows_w26" ] || synth --out "$scratch/rows_w26" --scenes 250 --seed 26 "${wide[@]}"
[ -d "$scratch/rows_w27" ] || synth --out "$scratch/rows_w27" --scenes 250 --seed 27 "${wide[@]}" "${looks[@]}"
[ -d "$scratch/val_11" ] || synth --out "$scratch/val_11" --scenes 60 --seed 11
/usr/bin/python3 "$here/models/training/train_ribbon_edges.py" "$out" \
    "$scratch/rows_21" "$scratch/rows_22" "$scratch/rows_23" "$scratch/rows_24" "$scratch/rows_25" \
    "$scratch/rows_w26" "$scratch/rows_w27" --val "$scratch/val_11" \
    --epochs 25 --width 48 --dilations 1,2,4,8,16,1 --frame corners --threads 2
echo "ribbon_edges: $out (rebuild, then judge with eval-count on ribbon, batch and loose sets)"
