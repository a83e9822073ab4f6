#!/bin/bash
# The back segmenter of seg_busy_tables.sh fine-tuned on this machine's CPU with close-ups beside
# its own data (BACKS.md, "Close-ups"): a phone held over a few cards of the table sees them 0.3-0.7
# of the picture's short side, at a slant of up to 60 degrees, face-up cards beside the backs, as
# the real photos of ../shared/data/real-cards show them. The segmenter had seen cards of 0.16-0.4.
# TRIED, NOT KEPT (2026-12-01, thirty-second session): with COPIES 1 and 2 the close-up sets were
# counted little better and the batch, loose and ribbon sets worse (figures in BACKS.md); the
# committed models/back_seg.onnx stays seg_busy_tables.sh's. Kept as the recipe of that try.
#
#   bash models/training/seg_close_ups.sh [SCRATCH] [REAL_CARDS] [COPIES]
#
# SCRATCH (default /tmp/sg2) holds the scenes of `gpu_back_seg.sh prepare` (rendered first when
# missing, about 17 minutes on two cores, with the busy tables of busy_scenes.sh); the close-ups
# (600 train-design scenes, SCRATCH/cu_a square-stretched as the real set's exporter did, cu_b of
# random sizes; about 6 minutes) are rendered unless there. COPIES (default 1): how many times the
# close-ups are read each epoch. The training takes about 40 minutes on one core (one torch thread).
# It starts from the model of seg_busy_tables.sh, named by its git revision.
set -euo pipefail
base_rev=9aad7d1  # models/back_seg.onnx of seg_busy_tables.sh (busy tables)
copies=${3:-1}
# shellcheck source=SCRIPTDIR/seg_data.sh
source "$(dirname "$0")/seg_data.sh"
busy="$scratch/busy"
[ -d "$busy/bb/masks" ] || bash "$here/models/training/busy_scenes.sh" "$busy"
cli=${NERTZ_CLI:-$here/build/app/cli/nertzref-cli}
close=(--kind backs --designs train --masks --card-size 0.3,0.7 --max-tilt 60 --plain-backs 0.3
       --real-hands 0.5 --pepper 0.2)
[ -d "$scratch/cu_a/masks" ] || "$cli" synth "${close[@]}" --out "$scratch/cu_a" --scenes 300 --seed 501 --size square >/dev/null
[ -d "$scratch/cu_b/masks" ] || "$cli" synth "${close[@]}" --out "$scratch/cu_b" --scenes 300 --seed 502 --size random >/dev/null
git -C "$here" show "$base_rev:models/back_seg.onnx" > "$scratch/back_seg_busy_tables.onnx"
ups=()
for _ in $(seq "$copies"); do ups+=("$scratch/cu_a" "$scratch/cu_b"); done
# as seg_busy_tables.sh (its synthetic scenes, the real negatives twice over, the busy tables), and
# the close-ups
/usr/bin/python3 "$here/models/training/train_back_seg.py" "$scratch/back_seg_close_ups_c$copies.onnx" \
    "$scratch/seg_b" "$scratch/seg_r" "$scratch/s7_b" "$scratch/s7_r" "$scratch/lo" \
    "$negatives/train" "$negatives/train" \
    "$busy/bb" "$busy/br" "$busy/bl" "$busy/surfaces/negatives" "${ups[@]}" \
    --centres --init "$scratch/back_seg_busy_tables.onnx" --lr 3e-4 --epochs 12 --minutes 40 --seed 7
echo "seg_close_ups: $scratch/back_seg_close_ups_c$copies.onnx (copy it to models/back_seg.onnx; judge it with eval-count and count_real_photos.sh)"
