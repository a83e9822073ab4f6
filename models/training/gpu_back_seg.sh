#!/bin/bash
# The back segmenter's training on a GPU machine lent by the device tool (BACKS.md, "Two cards of
# one back"). Three steps:
#
#   here:        bash models/training/gpu_back_seg.sh prepare [SCRATCH]
#                  renders the scenes (nertzref-cli synth, train designs, about 17 minutes on two
#                  cores) into SCRATCH (default /tmp/sg2) and packs them into gpu/d1 and gpu/d2 of
#                  the checkout (each under the 64 MiB the device tool carries; gpu/ is ignored)
#                  and, since 2026-11-29 (BACKS.md, "Busy tables"), the busy-table scenes of
#                  busy_scenes.sh into SCRATCH/busy, packed into gpu/d3 (about 50 MB)
#   device, 1:   run  command "bash models/training/gpu_back_seg.sh stash"  carry ["gpu/d1"]
#   device, 1b:  run  command "bash models/training/gpu_back_seg.sh stash d3"  carry ["gpu/d3"]
#   device, 2:   run  command "bash models/training/gpu_back_seg.sh train"  carry ["gpu/d2"]
#                  (at once: the machine keeps /root/sg while it is warm; train uses what is there)
#                  trains three models side by side for MINUTES (default 5) and leaves their
#                  weights and logs in $OUT: A (fine-tuned from models/back_seg.onnx), B and C (from
#                  scratch, two seeds and batch sizes)
#   here:        /usr/bin/python3 models/training/train_back_seg.py OUT.onnx - --centres --export-from A.pt
#                  (the exporter every committed model was made with), then judge each with
#                  NERTZ_MODEL_DIR=... nertzref-cli eval-count on the train-design sets.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
step=${1:-}
case "$step" in
prepare)
    scratch=${2:-/tmp/sg2}
    cli=${NERTZ_CLI:-$here/build/app/cli/nertzref-cli}
    [ -x "$cli" ] || { echo "gpu_back_seg: no $cli (bash scripts/setup.sh builds it)" >&2; exit 2; }
    mkdir -p "$scratch"
    looks=(--plain-backs 0.3 --plain-tables 0.3 --pepper 0.2 --real-hands 0.8)
    synth() { "$cli" synth --designs train --masks "$@" >/dev/null; }
    (synth --out "$scratch/seg_b" --scenes 500 --seed 101 --kind backs
     synth --out "$scratch/s7_b" --scenes 450 --seed 201 --kind backs "${looks[@]}"
     synth --out "$scratch/lo" --scenes 250 --seed 203 --kind loose --same-back-pairs 0.3) &
    (synth --out "$scratch/seg_r" --scenes 250 --seed 102 --kind ribbon
     synth --out "$scratch/s7_r" --scenes 200 --seed 202 --kind ribbon "${looks[@]}"
     synth --out "$scratch/sb" --scenes 450 --seed 205 --kind backs --same-back-pairs 0.5 \
         --plain-backs 0.15 --real-hands 0.5) &
    wait
    # real photos that show no face-down card (BACKS.md, "Real photos as negatives"), where the
    # checkout has ../shared/data: packed as the folder `train` (about 10 MB), read twice by `train`
    real=${NERTZ_REAL_CARDS:-$here/../shared/data/real-cards}
    negatives=()
    if [ -d "$real/phone" ]; then
        rm -rf "$scratch/real_negatives"
        /usr/bin/python3 "$here/models/training/real_negatives.py" "$real" "$scratch/real_negatives"
        negatives=("$scratch/real_negatives/train")
    fi
    # busy tables (checked, printed, tiled cloths): scenes on them and views with no card
    NERTZ_CLI=$cli bash "$here/models/training/busy_scenes.sh" "$scratch/busy"
    rm -rf "$here/gpu/d1" "$here/gpu/d2" "$here/gpu/d3"
    /usr/bin/python3 "$here/models/training/pack_seg_data.py" "$here/gpu/d1" "$scratch/seg_b" "$scratch/seg_r" "$scratch/s7_r" "${negatives[@]}"
    /usr/bin/python3 "$here/models/training/pack_seg_data.py" "$here/gpu/d2" "$scratch/s7_b" "$scratch/sb" "$scratch/lo"
    /usr/bin/python3 "$here/models/training/pack_seg_data.py" "$here/gpu/d3" "$scratch/busy/bb" "$scratch/busy/br" \
        "$scratch/busy/bl" "$scratch/busy/surfaces/negatives"
    du -sb "$here/gpu/d1" "$here/gpu/d2" "$here/gpu/d3"
    ;;
stash)
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    python3 -c "import torch, cv2, onnx; print(torch.__version__, torch.cuda.is_available(), cv2.__version__)"
    pack=${2:-d1}  # d1, then d3 (the busy tables): each call carries one pack
    [ -d "gpu/$pack" ] || { echo "gpu_back_seg: no gpu/$pack (carry it)" >&2; exit 2; }
    mkdir -p /root/sg && cp -r "gpu/$pack"/* /root/sg/ && du -sh /root/sg
    ;;
train)
    mkdir -p /root/sg
    [ -d gpu/d2 ] && cp -r gpu/d2/* /root/sg/
    du -sh /root/sg
    out=${OUT:?run through the device tool, which sets OUT}
    minutes=${MINUTES:-5}
    dirs=$(ls -d /root/sg/*)
    # the real negatives twice over, as seg_real_negatives.sh reads them
    [ -d /root/sg/train ] && dirs="$dirs /root/sg/train"
    t=models/training/train_back_seg.py
    # shellcheck disable=SC2086
    python3 $t /tmp/A.onnx $dirs --centres --device cuda --workers 5 --epochs 100 --minutes "$minutes" \
        --val-every 5 --init models/back_seg.onnx --lr 5e-4 --state "$out/A.pt" >"$out/A.log" 2>&1 &
    # shellcheck disable=SC2086
    python3 $t /tmp/B.onnx $dirs --centres --device cuda --workers 5 --epochs 250 --minutes "$minutes" \
        --val-every 10 --seed 5 --state "$out/B.pt" >"$out/B.log" 2>&1 &
    # shellcheck disable=SC2086
    python3 $t /tmp/C.onnx $dirs --centres --device cuda --workers 5 --epochs 250 --minutes "$minutes" \
        --val-every 10 --batch 16 --lr 4e-3 --seed 6 --state "$out/C.pt" >"$out/C.log" 2>&1 &
    wait
    tail -n 3 "$out"/*.log
    ;;
*)
    echo "usage: gpu_back_seg.sh prepare [SCRATCH] | stash [d1|d3] | train (see the head of this file)" >&2
    exit 2
    ;;
esac
