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
GAP_MIN, GAP_MAX = 4, 60     # decoding: samples between neighbouring edges (40 until 2026-11-29)
END_CUT = 0.78 * ALONG / 1.45  # no edge within ~0.78 of a card width of the row's top end
FRAME = 'box'    # 'box': the row's rotated box; 'corners': the homography of its four corners


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


def row_corners(points, across=False):
    """The row's four corners, the C++ `rowCorners` twin: the quadrilateral around the convex hull
    of `points` that its sides make when the hull's shortest sides are cut away one by one (each
    time the side whose cutting, its neighbours extended until they meet, adds the least area),
    ordered so that corners 0-1 and 3-2 are the row's long sides (its short sides with `across`).
    None when the four sides hold more than 1.1 times the hull's area, or a corner lies farther
    outside the hull than 20% of the mean short side."""
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2))
    h = [p.astype(np.float64) for p in hull.reshape(-1, 2)]
    if len(h) < 4:
        return None
    hull_area = cv2.contourArea(np.array(h, np.float32))

    def cross(a, b):
        return a[0] * b[1] - a[1] * b[0]

    while len(h) > 4:
        m = len(h)
        best, at, meet = -1.0, 0, None
        for i in range(m):
            a, b, c, d = h[(i - 1) % m], h[i], h[(i + 1) % m], h[(i + 2) % m]
            r, s_ = b - a, c - d
            den = cross(r, s_)
            if abs(den) < 1e-9:
                continue
            t, u = cross(c - b, s_) / den, cross(r, c - b) / den
            if t < 0 or u > 0:  # the extensions meet behind a side
                continue
            p = b + r * t
            added = 0.5 * abs(cross(c - b, p - b))
            if best < 0 or added < best:
                best, at, meet = added, i, p
        if best < 0:
            return None
        h[at] = meet
        del h[(at + 1) % m]
    q = np.array(h)
    if cv2.contourArea(q.astype(np.float32)) > 1.1 * hull_area:
        return None
    side = [np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)]
    reach = 0.2 * min(side[0] + side[2], side[1] + side[3]) / 2
    if any(-cv2.pointPolygonTest(hull, (float(x), float(y)), True) > reach for x, y in q):
        return None
    if (side[0] + side[2] < side[1] + side[3]) != across:
        q = np.roll(q, -1, axis=0)
    return q


def corner_frame(q):
    """Length, thickness and the homography from the row's rectangle (x along, y across, in picture
    px: the mean lengths of its opposite sides) to the picture."""
    ln = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]))
    th = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
    rect = np.array([[0, 0], [ln, 0], [ln, th], [0, th]], np.float32)
    return ln, th, cv2.getPerspectiveTransform(rect, q.astype(np.float32))


def features(img, H, ln, th):
    """The row's rectangle 0..ln x 0..th (x along it, y across) mapped into the picture by the
    homography H, as the net's input: NB*3 x n (the C++ `ribbonFeatures` twin), and the samples
    per picture px."""
    k = ALONG / th
    n = int(round(ln * k)) + 1
    vs = th * (0.1 + 0.8 * (np.arange(NB * 4) + 0.5) / (NB * 4))
    us = np.arange(n) / k
    UU, VV = np.meshgrid(us, vs)
    P = cv2.perspectiveTransform(np.stack([UU, VV], -1).reshape(-1, 1, 2).astype(np.float64), H).reshape(NB * 4, n, 2)
    R = cv2.remap(img, P[..., 0].astype(np.float32), P[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
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
    # the row's long sides are along a: read it along them (across when the row is short)
    q = row_corners(P, across=np.ptp(pa) < np.ptp(pb)) if FRAME == 'corners' else None
    if q is not None:
        if jitter:
            q = q + rng.uniform(-jitter, jitter, q.shape) * 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
        ln, th, H = corner_frame(q)
        # the row's start is the end nearer the first card
        x0, x1 = cv2.perspectiveTransform(cen[[0, -1]].reshape(-1, 1, 2), np.linalg.inv(H))[:, 0, 0]
        if x0 > x1:  # flip the rectangle along x
            ln, th, H = corner_frame(q[[1, 0, 3, 2]])
    else:  # the rotated box along a, from the first card's side
        u0, u1, v0, v1 = pa.min(), pa.max(), pb.min(), pb.max()
        if jitter:
            t = v1 - v0
            u0 += rng.uniform(-jitter, jitter) * t
            u1 += rng.uniform(-jitter, jitter) * t
            v0 += rng.uniform(-jitter, jitter) * t
            v1 += rng.uniform(-jitter, jitter) * t
        ln, th = u1 - u0, v1 - v0
        o = a * u0 + b * v0
        H = np.array([[a[0], b[0], o[0]], [a[1], b[1], o[1]], [0, 0, 1]])
    F, k = features(img, H, ln, th)
    Hi = np.linalg.inv(H)
    edges = [cv2.perspectiveTransform(np.array(c['quad'], float).reshape(-1, 1, 2), Hi)[:, 0, 0].min() * k
             for c in r if c['visible_fraction'] >= 0.05]
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
    global WIDTH, DILATIONS, FRAME
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('train', nargs='+')
    ap.add_argument('--val', required=True)
    ap.add_argument('--epochs', type=int, default=30)
    ap.add_argument('--width', type=int, default=32, help='channels of each layer')
    ap.add_argument('--dilations', default='1,2,4,8,1', help='one layer each')
    ap.add_argument('--frame', choices=('box', 'corners'), default='box',
                    help="the row's frame: its rotated box, or its four corners in perspective")
    ap.add_argument('--threads', type=int, default=1)
    args = ap.parse_args()
    WIDTH = args.width
    DILATIONS = tuple(int(d) for d in args.dilations.split(','))
    FRAME = args.frame
    torch.set_num_threads(args.threads)
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
