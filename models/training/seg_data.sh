#!/bin/bash
# Sourced by the CPU fine-tune recipes of the back segmenter (seg_real_negatives.sh,
# seg_busy_tables.sh) with their arguments [SCRATCH] [REAL_CARDS]: sets `here`, `scratch` (default
# /tmp/sg2, holding the synthetic scenes of `gpu_back_seg.sh prepare`, rendered there first when
# missing, about 17 minutes on two cores), `real` (default ../shared/data/real-cards) and `negatives`
# (SCRATCH/real_negatives, made again by real_negatives.py).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=${1:-/tmp/sg2}
real=${2:-$here/../shared/data/real-cards}
[ -d "$real/phone" ] || { echo "$(basename "$0"): no real photos at $real" >&2; exit 2; }
if [ ! -d "$scratch/seg_b/masks" ]; then
    bash "$here/models/training/gpu_back_seg.sh" prepare "$scratch"
fi
negatives="$scratch/real_negatives"
rm -rf "$negatives"
/usr/bin/python3 "$here/models/training/real_negatives.py" "$real" "$negatives"
