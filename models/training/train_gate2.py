"""Trains a second gate (tried in the eleventh session, not committed as a model: models/MODEL.md,
"Speed of the live path, and a second gate"): a small conv net that sees only the patches the first
gate passed and tells the reader's work from its waste; exports OUT (input N x 1 x 40 x 24 float
0..1, output softmax 2: "the reader reads nothing here", "read it").

usage: train_gate2.py OUT.onnx DATA.npz [DATA.npz ...] [--reader ../index_cnn.onnx] [--epochs N]
                      [--minutes M] [--seed S] [--threads T] [--rank-floor P] [--pos-repeat K]
                      [--heldout H.npz ...]

DATA: make_patches.py --after-gate ../index_gate.onnx output (every candidate the first gate passes,
labelled with its card or 52). The target is distilled from the committed reader: a patch is worth
reading when it is a labelled index or when the reader gives one rank (its four suits summed) at
least --rank-floor (0.3: the detector reports faces from 0.5, and its suit steps only move
probability between suits). So the second gate learns to pass what the reader would use, whatever
the reader's own mistakes, and would need retraining whenever the reader changes.

10% of DATA is kept aside; the report gives, per threshold, the share of all patches passed and of
the worth-reading ones (also of those the reader reads at >= 0.5 and >= 0.8). Seeded; ~5 minutes on
one core for 390k patches.
"""
import argparse, os, sys, time
import cv2
import numpy as np
import torch
import torch.nn as nn
from train_index_cnn import export, fit, normalise, probs

cv2.setNumThreads(1)


class Gate2Net(nn.Module):
    """3x3 conv of stride 2 to 8 channels (20 x 12), 2x2 max pool (10 x 6), 480 -> 32 -> 2: about
    33 k multiply-adds a patch, 1/15 of the reader."""
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                                 nn.Flatten(), nn.Linear(8 * 10 * 6, 32), nn.ReLU(inplace=True), nn.Linear(32, 2))

    def forward(self, x):
        return self.net(x)


def reader_ranks(reader_path, x):
    """The reader's (cv2.dnn) best rank probability of each normalised patch, its four suits summed,
    and its best face probability."""
    net = cv2.dnn.readNetFromONNX(reader_path)
    ranks, faces = [], []
    for k in range(0, len(x), 2048):
        net.setInput(np.ascontiguousarray(x[k:k + 2048]))
        p = net.forward()[:, :52].reshape(-1, 4, 13)        # suit major
        ranks.append(p.sum(1).max(1)); faces.append(p.reshape(-1, 52).max(1))
    return np.concatenate(ranks), np.concatenate(faces)


def load(files):
    xs, ys = [], []
    for f in files:
        d = np.load(f); xs.append(d['x']); ys.append(d['y'])
    return normalise(np.concatenate(xs))[:, None], np.concatenate(ys)


def report(title, pass_p, worth, face):
    print(f'{title}: {len(worth)} patches, {worth.mean():.3f} worth reading, '
          f'{(face >= 0.5).mean():.3f} read >= 0.5', file=sys.stderr)
    for thr in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5):
        k = pass_p >= thr
        print(f'  threshold {thr}: passes {k.mean():.3f} of all; worth reading {k[worth].mean():.4f}, '
              f'read >= 0.5 {k[face >= 0.5].mean():.4f}, >= 0.8 {k[face >= 0.8].mean():.4f} '
              f'(misses {int((~k & (face >= 0.8)).sum())} of {int((face >= 0.8).sum())})', file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('out'); ap.add_argument('data', nargs='+')
    ap.add_argument('--reader', default=os.path.join(here, '..', 'index_cnn.onnx'))
    ap.add_argument('--epochs', type=int, default=8); ap.add_argument('--minutes', type=float, default=12)
    ap.add_argument('--seed', type=int, default=21); ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--rank-floor', type=float, default=0.3)
    ap.add_argument('--pos-repeat', type=int, default=4, help='worth-reading patches are this many times in each epoch')
    ap.add_argument('--heldout', nargs='*', default=[], help='make_patches.py --after-gate data of other scenes, reported')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed); np.random.seed(a.seed)
    t0 = time.time()
    x, y = load(a.data)
    rank, face = reader_ranks(a.reader, x)
    worth = (y < 52) | (rank >= a.rank_floor)
    print(f'{len(y)} patches: {int((y < 52).sum())} labelled index, {int((rank >= a.rank_floor).sum())} with a rank '
          f'read >= {a.rank_floor}, {int(worth.sum())} worth reading ({time.time() - t0:.0f}s)', file=sys.stderr)
    perm = np.random.default_rng(a.seed).permutation(len(y))
    nval = len(y) // 10
    v, t = perm[:nval], perm[nval:]
    t = np.concatenate([t] + [t[worth[t]]] * (a.pos_repeat - 1))
    xt = torch.from_numpy(x[t]); wt = torch.from_numpy(worth[t].astype(np.int64))
    net = fit(Gate2Net(), xt, wt, a.epochs, a.seed, a.minutes, 'gate2', batch=256, lr=5e-3)
    export(net, a.out, 2)
    report('kept aside (train designs)', probs(net, torch.from_numpy(x[v]))[:, 1].numpy(), worth[v], face[v])
    for h in a.heldout:
        xh, yh = load([h])
        rh, fh = reader_ranks(a.reader, xh)
        report(f'{h}', probs(net, torch.from_numpy(xh))[:, 1].numpy(), (yh < 52) | (rh >= a.rank_floor), fh)
    print(f'total {time.time() - t0:.0f}s', file=sys.stderr)


if __name__ == '__main__':
    main()
