#!/bin/bash
# The committed back segmenter (models/back_seg.onnx) since 2026-11-29: the model before it
# fine-tuned on this machine's CPU with real photos that show no face-down card beside the
# synthetic scenes it was trained on (BACKS.md, "Real photos as negatives").
#
#   bash models/training/seg_real_negatives.sh [SCRATCH] [REAL_CARDS]
#
# SCRATCH (default /tmp/sg2) holds the synthetic scenes of `gpu_back_seg.sh prepare` (rendered
# there first when missing, about 17 minutes on two cores); REAL_CARDS defaults to
# ../shared/data/real-cards. The training takes about 20 minutes on one core (one torch thread).
# It starts from the model committed before this one, named by its git revision, so that the
# recipe gives the same starting point after this script's own model is committed.
set -euo pipefail
base_rev=e996279  # the last revision whose models/back_seg.onnx was trained on synthetic scenes only
# shellcheck source=SCRIPTDIR/seg_data.sh
source "$(dirname "$0")/seg_data.sh"
git -C "$here" show "$base_rev:models/back_seg.onnx" > "$scratch/back_seg_synthetic.onnx"
# the real negatives twice over (420 of 2,070 scenes); the same-back pair scenes (sb)
# left out, as in the least harmful fine-tune of "Two cards of one back"
/usr/bin/python3 "$here/models/training/train_back_seg.py" "$scratch/back_seg.onnx" \
    "$scratch/seg_b" "$scratch/seg_r" "$scratch/s7_b" "$scratch/s7_r" "$scratch/lo" \
    "$negatives/train" "$negatives/train" \
    --centres --init "$scratch/back_seg_synthetic.onnx" --lr 5e-4 --epochs 12 --minutes 24 --seed 7
echo "seg_real_negatives: $scratch/back_seg.onnx (copy it to models/back_seg.onnx; judge it with eval-backs and eval-count)"
