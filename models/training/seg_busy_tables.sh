#!/bin/bash
# The committed back segmenter (models/back_seg.onnx) since 2026-11-29, sixteenth session: the model
# of seg_real_negatives.sh fine-tuned on this machine's CPU with busy tables beside its own data
# (BACKS.md, "Busy tables").
#
#   bash models/training/seg_busy_tables.sh [SCRATCH] [REAL_CARDS]
#
# SCRATCH (default /tmp/sg2) holds the synthetic scenes of `gpu_back_seg.sh prepare` (rendered there
# first when missing, about 17 minutes on two cores); REAL_CARDS defaults to ../shared/data/real-cards.
# This script adds SCRATCH/busy (busy_scenes.sh: 200 flat busy surfaces and 300 camera views of them
# with no card, and 520 scenes of the train designs drawn on those surfaces; about 5-11 minutes)
# unless it is there. The training takes about 25 minutes on one core (one torch thread).
# It starts from the model committed before this one, named by its git revision, so that the recipe
# gives the same starting point after this script's own model is committed.
set -euo pipefail
base_rev=441e473  # models/back_seg.onnx of seg_real_negatives.sh (real photos as negatives)
# shellcheck source=SCRIPTDIR/seg_data.sh
source "$(dirname "$0")/seg_data.sh"
busy="$scratch/busy"  # gpu_back_seg.sh prepare makes it too
[ -d "$busy/bb/masks" ] || bash "$here/models/training/busy_scenes.sh" "$busy"
git -C "$here" show "$base_rev:models/back_seg.onnx" > "$scratch/back_seg_real_negatives.onnx"
# as seg_real_negatives.sh (its synthetic scenes, the real negatives twice over), and the busy
# tables: the scenes on them and their camera views with no card, once each
/usr/bin/python3 "$here/models/training/train_back_seg.py" "$scratch/back_seg.onnx" \
    "$scratch/seg_b" "$scratch/seg_r" "$scratch/s7_b" "$scratch/s7_r" "$scratch/lo" \
    "$negatives/train" "$negatives/train" \
    "$busy/bb" "$busy/br" "$busy/bl" "$busy/surfaces/negatives" \
    --centres --init "$scratch/back_seg_real_negatives.onnx" --lr 3e-4 --epochs 16 --minutes 32 --seed 7
echo "seg_busy_tables: $scratch/back_seg.onnx (copy it to models/back_seg.onnx; judge it with eval-backs and eval-count)"
