#!/usr/bin/python3
"""Trains the ribbon-spread edge finder of the back counter (issue 5) and writes it as C++.

A ribbon spread (face-down cards overlapping in a row, a strip of each showing) is seen in its own
frame at the picture's full resolution: u along the row, v across it (the cards' long side). The
row is resampled so that its thickness (a card's height) is ALONG = 160 samples along u, and
48 samples across (the middle 80%), averaged into NB = 12 bands of 4; the colour of each band
(B, G, R) at every u is one 36-channel step of a 1-D sequence (minus the channel's mean, over the
row's spread + 4). A 1-D dilated convolutional net (5 layers of 32 channels, dilations 1 2 4 8 1,
batch norm folded away at export) marks every u where one card's visible strip ends and the next
card's begins. The C++ reader (`ribbonCards` in vision/src/backs/back_finder.cpp) chains the marks
from either end of the row (gaps of 4-40 samples, even steps favoured, the card on top taking the
last ~card width) and keeps the end that reads better.

Data: `nertzref-cli synth --kind ribbon --designs train` folders only (never held-out designs).
A row is the cards dealt one after another up to a fully visible one (the generator deals each
ribbon bottom card first and ends it with the card on top); its frame comes from the cards' quads,
the ends jittered by up to 2% of the thickness (as a found blob's box would be); labels are the
near edges of the cards showing >= 5% (the counting truth of `eval-count`). Rows are also seen
from their other end (the labels mirrored).

  /usr/bin/python3 models/training/train_ribbon_edges.py OUT.inc --val VAL_DIR TRAIN_DIR...

One torch thread; about 6 s an epoch per 1,000 rows here. Writes OUT.inc (C++ arrays, included by
vision/src/backs/back_finder.cpp) and prints validation rows counted exactly (both ends tried).
"""
import argparse, glob, json, os, time
import cv2
import numpy as np
import torch

NB = 12          # bands across the row
ALONG = 160.0    # the row's thickness (a card's height) in samples along it
DILATIONS = (1, 2, 4, 8, 1)
WIDTH = 32
KERNEL = 5
GAP_MIN, GAP_MAX = 4, 40     # decoding: samples between neighbouring edges
END_CUT = 0.78 * ALONG / 1.45  # no edge within ~0.78 of a card width of the row's top end


def ribbons(cards):
    """The generator's ribbons: back cards in dealing order, each ended by a fully visible card."""
    out, cur = [], []
    for c in cards:
        if c['side'] != 'back':
            continue
        cur.append(c)
        if c['visible_fraction'] > 0.9:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def features(img, a, b, u0, u1, v0, v1):
    """The row u0..u1 (along a) x v0..v1 (along b) as NB*3 x n, as the C++ reader computes it."""
    thick = v1 - v0
    k = ALONG / thick
    n = int(round((u1 - u0) * k)) + 1
    vs = v0 + thick * (0.1 + 0.8 * (np.arange(NB * 4) + 0.5) / (NB * 4))
    us = u0 + np.arange(n) / k
    UU, VV = np.meshgrid(us, vs)
    X = (UU * a[0] + VV * b[0]).astype(np.float32)
    Y = (UU * a[1] + VV * b[1]).astype(np.float32)
    R = cv2.remap(img, X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    F = R.reshape(NB, 4, n, 3).mean(1).transpose(0, 2, 1).reshape(NB * 3, n)
    F = F - F.mean(1, keepdims=True)
    return (F / (F.std() + 4.0)).astype(np.float32), k


def sample(img, r, rng, jitter):
    Q = np.array([c['quad'] for c in r], float)
    cen = Q.mean(1)
    a = cen[-1] - cen[0]
    if np.linalg.norm(a) < 1e-6:
        return None
    a /= np.linalg.norm(a)
    b = np.array([-a[1], a[0]])
    if np.ptp(cen @ b) > 0.1 * np.ptp(Q.reshape(-1, 2) @ b):  # not one straight row
        return None
    P = Q.reshape(-1, 2)
    pa, pb = P @ a, P @ b
    u0, u1, v0, v1 = pa.min(), pa.max(), pb.min(), pb.max()
    if jitter:
        t = v1 - v0
        u0 += rng.uniform(-jitter, jitter) * t
        u1 += rng.uniform(-jitter, jitter) * t
        v0 += rng.uniform(-jitter, jitter) * t
        v1 += rng.uniform(-jitter, jitter) * t
    F, k = features(img, a, b, u0, u1, v0, v1)
    edges = [((np.array(c['quad']) @ a).min() - u0) * k for c in r if c['visible_fraction'] >= 0.05]
    # the first card's near edge is the row's start: not a boundary
    return F, np.array([e for e in edges if e >= 3], np.float32), len(edges)


def load(dirs, rng, jitter):
    out = []
    for d in dirs:
        for f in sorted(glob.glob(d + '/cards/*.json')):
            s = json.load(open(f))
            img = cv2.imread(d + '/' + s['image'])
            for r in ribbons(s['cards']):
                if len(r) >= 3:
                    x = sample(img, r, rng, jitter)
                    if x is not None:
                        out.append(x)
    return out


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        self.norms = torch.nn.ModuleList()
        cin = NB * 3
        for d in DILATIONS:
            self.convs.append(torch.nn.Conv1d(cin, WIDTH, KERNEL, padding=(KERNEL - 1) // 2 * d, dilation=d))
            self.norms.append(torch.nn.BatchNorm1d(WIDTH))
            cin = WIDTH
        self.head = torch.nn.Conv1d(WIDTH, 1, 1)

    def forward(self, x):
        for c, n in zip(self.convs, self.norms):
            x = torch.relu(n(c(x)))
        return self.head(x)[:, 0]


def target(n, edges, sigma=1.5):
    if len(edges) == 0:
        return np.zeros(n, np.float32)
    u = np.arange(n)[None]
    return np.exp(-0.5 * ((u - edges[:, None]) / sigma) ** 2).max(0).astype(np.float32)


def peaks(E, thr=0.2):
    return [i for i in range(1, len(E) - 1) if E[i] >= thr and E[i] >= E[i - 1] and E[i] > E[i + 1]]


def decode(E, tau=0.5, lam=0.3):
    """The chain of edges read from the start of the row, and its score (the C++ reader's twin):
    sum of (p - tau) over the edges, minus lam * |gap change| / gap."""
    pk = [p for p in peaks(E) if 4 <= p <= len(E) - END_CUT]
    best, back = {}, {}
    first = {i: E[p] - tau for i, p in enumerate(pk) if p <= GAP_MAX}
    for j in range(len(pk)):
        for i in range(j):
            g = pk[j] - pk[i]
            if g < GAP_MIN or g > GAP_MAX:
                continue
            v0 = first[i] + E[pk[j]] - tau if i in first else -1e9
            arg = None
            for (h, i2), s in best.items():
                if i2 == i:
                    g0 = pk[i] - pk[h]
                    v = s + E[pk[j]] - tau - lam * abs(g - g0) / g0
                    if v > v0:
                        v0, arg = v, h
            if v0 > -1e8:
                best[(i, j)] = v0
                back[(i, j)] = arg
    cands = [(s, (None, i)) for i, s in first.items()] + [(s, k) for k, s in best.items()]
    if not cands:
        return [0], 0.0
    sc, k = max(cands)
    if k[0] is None:
        return [0, pk[k[1]]], sc
    out = [pk[k[1]], pk[k[0]]]
    while back.get(k) is not None:
        h = back[k]
        out.append(pk[h])
        k = (h, k[0])
    return [0] + out[::-1], sc


def count_both(E):
    f, sf = decode(E)
    r, sr = decode(E[::-1].copy())
    return len(f) if sf >= sr else len(r)


def export(net, path):
    net.eval()
    with open(path, 'w') as f:
        f.write('// Generated by models/training/train_ribbon_edges.py; do not edit.\n')
        f.write(f'// {NB} bands x 3 colours in, layers of {WIDTH} channels, kernel {KERNEL}, batch norm folded.\n')
        f.write(f'inline constexpr int kBands = {NB};\ninline constexpr float kAlong = {ALONG}f;\n')
        f.write(f'inline constexpr int kLayers = {len(DILATIONS)};\ninline constexpr int kWidth = {WIDTH};\n')
        f.write(f'inline constexpr int kKernel = {KERNEL};\n')
        f.write('inline constexpr int kDilation[] = {' + ','.join(str(d) for d in DILATIONS) + '};\n')
        ws, bs = [], []
        for c, n in zip(net.convs, net.norms):
            s = (n.weight / torch.sqrt(n.running_var + n.eps)).detach()
            w = (c.weight.detach() * s[:, None, None]).numpy()
            b = ((c.bias.detach() - n.running_mean) * s + n.bias.detach()).numpy()
            ws.append(w.ravel())
            bs.append(b.ravel())
        ws.append(net.head.weight.detach().numpy().ravel())
        bs.append(net.head.bias.detach().numpy().ravel())
        f.write('inline const float kW[] = {' + ','.join(f'{v:.7g}f' for v in np.concatenate(ws)) + '};\n')
        f.write('inline const float kB[] = {' + ','.join(f'{v:.7g}f' for v in np.concatenate(bs)) + '};\n')


def main():
    global WIDTH, DILATIONS
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('train', nargs='+')
    ap.add_argument('--val', required=True)
    ap.add_argument('--epochs', type=int, default=30)
    ap.add_argument('--width', type=int, default=32, help='channels of each layer')
    ap.add_argument('--dilations', default='1,2,4,8,1', help='one layer each')
    args = ap.parse_args()
    WIDTH = args.width
    DILATIONS = tuple(int(d) for d in args.dilations.split(','))
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    t0 = time.time()
    train = load(args.train, rng, 0.0) + load(args.train, rng, 0.02)
    val = load([args.val], rng, 0.0)
    print(f'{len(train)} training rows, {len(val)} validation rows ({time.time() - t0:.0f} s)', flush=True)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), 2e-3)
    batch = 16
    steps = args.epochs * ((len(train) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    pos = torch.tensor(4.0)
    for ep in range(args.epochs):
        net.train()
        perm = rng.permutation(len(train))
        tot = 0.0
        for i in range(0, len(perm), batch):
            items = [train[j] for j in perm[i:i + batch]]
            n = max(x[0].shape[1] for x in items)
            X = np.zeros((len(items), NB * 3, n), np.float32)
            T = np.zeros((len(items), n), np.float32)
            M = np.zeros_like(T)
            for q, (F, e, _) in enumerate(items):
                f, ee = F, e
                if rng.random() < 0.5:  # the row read from its other end
                    f, ee = f[:, ::-1], F.shape[1] - 1 - e
                if rng.random() < 0.5:
                    f = f * rng.uniform(0.7, 1.3) + rng.normal(0, 0.05, f.shape)
                X[q, :, :F.shape[1]] = f
                T[q, :F.shape[1]] = target(F.shape[1], ee)
                M[q, :F.shape[1]] = 1
            X, T, M = map(torch.from_numpy, (X, T, M))
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(net(X), T, reduction='none', pos_weight=pos) * M).sum() / M.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss)
        net.eval()
        ok = err = 0
        with torch.no_grad():
            for F, _, truth in val:
                c = count_both(torch.sigmoid(net(torch.from_numpy(F[None])))[0].numpy())
                ok += c == truth
                err += abs(c - truth)
        print(f'epoch {ep} loss {tot / ((len(perm) + batch - 1) // batch):.4f} validation rows exact '
              f'{ok}/{len(val)}, mean |error| {err / max(len(val), 1):.2f} ({time.time() - t0:.0f} s)', flush=True)
    export(net, args.out)
    print('wrote', args.out)


if __name__ == '__main__':
    main()
