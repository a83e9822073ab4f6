"""Averages the weights of readers trained by train_index_cnn.py (a "model soup"): OUT.pt gets the mean
of every floating-point tensor of IN.pt ..., the other tensors of the first. The readers must share
one architecture and one start (e.g. a fine-tune and a fine-tune of it): v3.1 is the mean of two
(models/MODEL.md). Export it with `train_index_cnn.py OUTDIR DATA... --from-state` after copying it to
OUTDIR/index_cnn.pt.

usage: average_readers.py OUT.pt IN.pt IN.pt [IN.pt ...]
"""
import sys

import torch


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    states = [torch.load(p, map_location='cpu') for p in sys.argv[2:]]
    keys = set(states[0])
    for p, s in zip(sys.argv[3:], states[1:]):
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            sys.exit(f'{p}: not the architecture of {sys.argv[2]}')
    out = {k: (sum(s[k].float() for s in states) / len(states)).to(states[0][k].dtype)
           if states[0][k].is_floating_point() else states[0][k] for k in states[0]}
    torch.save(out, sys.argv[1])
    print(f'{sys.argv[1]}: mean of {len(states)} readers ({len(out)} tensors)', file=sys.stderr)


if __name__ == '__main__':
    main()
