#!/usr/bin/python3
"""Trains the ribbon-row edge finder of the back counter (issue 5) and writes its weights as C++.

A row of overlapping face-down cards (a ribbon spread) is seen in its own frame (x along the row,
the card's long side across it) and resampled to 64 rows; each column of 64 grey values (normalised
by the row's mean and spread) is one step of a 1-D sequence. A tiny 1-D convolutional net marks
the columns where one card's visible strip ends and the next begins; the finder counts the marks.

Data: `nertzref-cli synth --kind ribbon --designs train` folders only (never held-out designs).
Rows are the connected blobs of the labelled back-card outlines; the labels are the covering
cards' edges inside the row that no later (upper) card hides.

  /usr/bin/python3 models/training/train_row_edges.py OUT.inc SYNTH_DIR...
writes OUT.inc (C++ initialiser lists, included by vision/src/backs/row_edges.cpp).
One torch thread; a few minutes.
"""
import glob, json, sys, time
import cv2
import numpy as np
import torch

H = 64          # resampled row thickness
EPOCHS = 30
PROCEDURAL = 600  # procedurally drawn rows added to the synth scenes' rows
CARDART = '/tmp/cardart'
WORK = 640      # the finder's working long side


def row_frame(contour):
    box = cv2.minAreaRect(contour)
    pts = cv2.boxPoints(box)
    e1, e2 = pts[1] - pts[0], pts[2] - pts[1]
    if np.linalg.norm(e1) < np.linalg.norm(e2):
        e1, e2 = e2, e1
    L, T = float(np.linalg.norm(e1)), float(np.linalg.norm(e2))
    u, v = e1 / L, e2 / T
    o = np.array(box[0]) - u * L / 2 - v * T / 2
    return u, v, o, L, T


def row_input(gray, u, v, o, L, T):
    """The row resampled to H x W (W = L * H / T), normalised; as the C++ side does."""
    k = H / T
    W = max(4, int(round(L * k)))
    # image -> resampled row frame: x' = k * u.(p - o), y' = k * v.(p - o)
    M = np.array([[k * u[0], k * u[1], -k * (u @ o)], [k * v[0], k * v[1], -k * (v @ o)]])
    r = cv2.warpAffine(gray, M, (W, H), flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    r = (r - r.mean()) / (r.std() + 4.0)
    return r, k


def scene_rows(jf):
    s = json.load(open(jf))
    d = jf.rsplit('/cards/', 1)[0]
    im = cv2.imread(d + '/' + s['image'])
    sc = min(1.0, WORK / max(im.shape[:2]))
    im = cv2.resize(im, None, fx=sc, fy=sc, interpolation=cv2.INTER_AREA)
    gray = cv2.GaussianBlur(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    cards = [(np.array(c['quad']) * sc, c['visible_fraction']) for c in s['cards'] if c['side'] == 'back']
    return rows_from(gray, cards)


def rows_from(gray, cards):
    """Rows (input, edge target, cards showing >= 5%) of a picture; `cards`: (quad, visible
    fraction) bottom to top, quads in the picture's pixels."""
    mask = np.zeros(gray.shape, np.uint8)
    for q, _ in cards:
        cv2.fillPoly(mask, [np.round(q).astype(np.int32)], 255)
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in cs:
        if cv2.contourArea(c) < 300:
            continue
        u, v, o, L, T = row_frame(c)
        x, k = row_input(gray, u, v, o, L, T)
        W = x.shape[1]
        spans = []  # (order, left, right) in resampled columns
        for i, (q, vis) in enumerate(cards):
            ctr = q.mean(0)
            if cv2.pointPolygonTest(c, (float(ctr[0]), float(ctr[1])), False) < 0:
                continue
            xs = np.sort([(p - o) @ u * k for p in q])
            spans.append((i, (xs[0] + xs[1]) / 2, (xs[2] + xs[3]) / 2, vis))
        edges = []
        for i, a, b, vis in spans:
            for e, left in ((a, True), (b, False)):
                # an inner boundary: cards on both sides of it (not the row's own ends)
                if left and not any(a2 < e - 1.5 for _, a2, _, _ in spans):
                    continue
                if not left and not any(b2 > e + 1.5 for _, _, b2, _ in spans):
                    continue
                hidden = any(j > i and a2 < e - 0.5 and e + 0.5 < b2 for j, a2, b2, _ in spans)
                if not hidden:
                    edges.append(e)
        y = np.zeros(W, np.float32)
        for e in edges:
            xs = np.arange(W)
            y = np.maximum(y, np.exp(-0.5 * ((xs - e) / 0.8) ** 2))
        n = sum(1 for _, _, _, vis in spans if vis >= 0.05)
        out.append((x, y, n))
    return out


def load_train_backs(cache):
    """Back pictures (BGRA) of the designs not held out (models/training/designs.json)."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    held = set(json.load(open(os.path.join(here, 'designs.json')))['heldout'])
    backs = []
    for f in sorted(glob.glob(cache + '/*/backs/*.png')):
        if f.split('/')[-3] in held:
            continue
        backs.append(cv2.imread(f, cv2.IMREAD_UNCHANGED))
    return backs


def procedural_rows(backs, count, rng):
    """Ribbon rows drawn directly: a wider range of steps (4% to 25% of the card's height) than
    the scene generator lays, uneven steps, turned cards, table colours, blur, noise, JPEG."""
    out = []
    for _ in range(count):
        H = int(rng.uniform(50, 150))
        n = int(rng.integers(2, 23))
        step = H * rng.uniform(0.04, 0.25)
        img_w = int(H * 0.8 + step * n * 1.2 + 60)
        img_h = int(H * 1.6 + 40)
        table = np.empty((img_h, img_w, 3), np.float32)
        table[:] = rng.uniform(20, 230, 3)
        table += rng.normal(0, rng.uniform(2, 12), table.shape)
        img = table
        cards = []
        x = 30.0
        ang0 = rng.uniform(-0.03, 0.03)
        for i in range(n):
            b = backs[int(rng.integers(len(backs)))]
            if rng.random() < 0.3:  # a recoloured deck
                bgr = cv2.cvtColor(b[:, :, :3], cv2.COLOR_BGR2HSV_FULL)
                bgr[:, :, 0] = (bgr[:, :, 0].astype(int) + int(rng.integers(256))) % 256
                b = np.dstack([cv2.cvtColor(bgr, cv2.COLOR_HSV2BGR_FULL), b[:, :, 3]])
            s = H / b.shape[0]
            w = b.shape[1] * s
            a = ang0 + rng.uniform(-0.015, 0.015)
            cx, cy = x + w / 2, img_h / 2 + rng.uniform(-2, 2)
            ca, sa = np.cos(a), np.sin(a)
            M = np.array([[s * ca, -s * sa, 0], [s * sa, s * ca, 0]])
            M[:, 2] = [cx, cy] - M[:, :2] @ [b.shape[1] / 2, b.shape[0] / 2]
            warped = cv2.warpAffine(b, M, (img_w, img_h), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
            al = warped[:, :, 3:4].astype(np.float32) / 255
            # a soft shadow on what lies under the card's leading edge
            sh = cv2.GaussianBlur(al, (0, 0), 1.5)[:, :, None] if al.ndim == 2 else cv2.GaussianBlur(al[:, :, 0], (0, 0), 1.5)[:, :, None]
            img = img * (1 - 0.25 * sh * rng.uniform(0, 1)) 
            img = img * (1 - al) + warped[:, :, :3].astype(np.float32) * al
            corners = np.array([[0, 0], [b.shape[1], 0], [b.shape[1], b.shape[0]], [0, b.shape[0]]], np.float64)
            q = corners @ M[:, :2].T + M[:, 2]
            cards.append([q, 1.0])
            x += step * rng.uniform(0.9, 1.1)
        for i in range(n - 1):
            cards[i][1] = float(np.clip((cards[i + 1][0][:, 0].min() - cards[i][0][:, 0].min()) / w, 0, 1))
        # light gradient, perspective, blur, noise, JPEG
        g = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.9, 1.2), img_w)[None, :, None]
        img = np.clip(img * g, 0, 255).astype(np.uint8)
        src = np.float32([[0, 0], [img_w, 0], [img_w, img_h], [0, img_h]])
        jit = rng.uniform(-0.08, 0.08, (4, 2)) * [img_w * 0.3, img_h]
        P = cv2.getPerspectiveTransform(src, np.float32(src + jit))
        img = cv2.warpPerspective(img, P, (img_w, img_h), borderMode=cv2.BORDER_REFLECT)
        cards = [(cv2.perspectiveTransform(q[None].astype(np.float32), P)[0], v) for q, v in cards]
        if rng.random() < 0.5:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
        ok, enc = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
        gray = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (3, 3), 0)
        rows = rows_from(gray, cards)
        if len(rows) == 1:
            out.append(rows[0])
    return out


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(H, 32, 5, padding=2)
        self.c2 = torch.nn.Conv1d(32, 32, 5, padding=4, dilation=2)
        self.c3 = torch.nn.Conv1d(32, 32, 5, padding=2)
        self.c4 = torch.nn.Conv1d(32, 1, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = torch.relu(self.c3(x))
        return self.c4(x)


def count_edges(p, thr=0.5):
    pk = [i for i in range(1, len(p) - 1) if p[i] >= p[i - 1] and p[i] > p[i + 1] and p[i] > thr]
    keep = []
    for i in sorted(pk, key=lambda i: -p[i]):
        if all(abs(i - j) >= 2 for j in keep):
            keep.append(i)
    return len(keep)


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    out = sys.argv[1]
    files = sorted(f for d in sys.argv[2:] for f in glob.glob(d + '/cards/*.json'))
    rows = [r for f in files for r in scene_rows(f)]
    rng = np.random.default_rng(0)
    if PROCEDURAL > 0:
        rows += procedural_rows(load_train_backs(CARDART), PROCEDURAL, rng)
    idx = rng.permutation(len(rows))
    nval = max(10, len(rows) // 8)
    val = [rows[i] for i in idx[:nval]]
    tr = [rows[i] for i in idx[nval:]]
    print(f'{len(files)} scenes, {len(tr)} training rows, {len(val)} validation rows', flush=True)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    pos = torch.tensor(8.0)
    t0 = time.time()
    for epoch in range(EPOCHS):
        net.train()
        order = rng.permutation(len(tr))
        tot = 0
        for i in order:
            x, y, _ = tr[i]
            if rng.random() < 0.5:  # the row seen from its other end
                x, y = x[:, ::-1].copy(), y[::-1].copy()
            if rng.random() < 0.5:  # the row seen upside down
                x = x[::-1].copy()
            x = x + rng.normal(0, 0.05, x.shape).astype(np.float32)
            xt = torch.from_numpy(x)[None]
            yt = torch.from_numpy(y)[None, None]
            logit = net(xt)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, yt, pos_weight=pos)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        if epoch == int(EPOCHS * 0.7):
            for g in opt.param_groups:
                g['lr'] = 5e-4
        net.eval()
        ok = 0
        with torch.no_grad():
            for x, y, n in val:
                p = torch.sigmoid(net(torch.from_numpy(x)[None]))[0, 0].numpy()
                ok += count_edges(p) + 1 == n
        print(f'epoch {epoch} loss {tot / len(tr):.4f} val rows exact {ok}/{len(val)} '
              f'({time.time() - t0:.0f} s)', flush=True)
    with open(out, 'w') as f:
        f.write('// Generated by models/training/train_row_edges.py; do not edit.\n')
        for name, conv in (('c1', net.c1), ('c2', net.c2), ('c3', net.c3), ('c4', net.c4)):
            w = conv.weight.detach().numpy()
            b = conv.bias.detach().numpy()
            f.write(f'// {name}: out {w.shape[0]} in {w.shape[1]} k {w.shape[2]} dilation {conv.dilation[0]}\n')
            f.write(f'inline const float k{name.upper()}W[] = {{' + ','.join(f'{v:.6g}f' for v in w.ravel()) + '};\n')
            f.write(f'inline const float k{name.upper()}B[] = {{' + ','.join(f'{v:.6g}f' for v in b.ravel()) + '};\n')
        f.write(f'inline constexpr int kC2Dilation = {net.c2.dilation[0]};\n')
    print('wrote', out)


if __name__ == '__main__':
    main()
