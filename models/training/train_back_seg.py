#!/usr/bin/python3
"""Trains the back finder's segmenter (issue 5): which pixels of a table picture are face-down
cards, and where one card's outline runs (between two cards, or a card and the table / a hand).

Data: scenes of `nertzref-cli synth --kind backs|ribbon|mixed --designs train --masks` (the masks
give what each pixel shows: table, hand, or which card; the scene's JSON says which cards lie face
up: those are not backs). The picture is shrunk to the finder's working
size (long side 640) and the net answers at a quarter of that (stride 4):
  channel 0: card (a face-down card shows here; hands and table are not cards)
  channel 1: outline (within ~1 output pixel of a visible edge of a card)
Exported to ONNX (N x 3 x H x W, BGR in 0..1 minus 0.5; H and W multiples of 8) for cv::dnn.

    /usr/bin/python3 train_back_seg.py OUT.onnx DIR [DIR...] --epochs 14 --minutes 40

Seeded; one torch thread (the machine has two cores and one thread runs faster there)."""
import argparse
import glob
import json
import math
import os
import sys
import time

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

WORK_LONG = 640


def work_size(w, h):
    k = WORK_LONG / max(w, h)
    return max(8, int(round(w * k / 8)) * 8), max(8, int(round(h * k / 8)) * 8)


def load_scene(img_path, mask_path):
    img = cv2.imread(img_path, cv2.IMREAD_COLOR)
    ids = cv2.imread(mask_path, cv2.IMREAD_UNCHANGED).astype(np.int32)
    # face-up cards are not backs: they count as "other" (like a hand), their edges on the table
    # are no outline; the edge between a face-up card and a back is (the back's)
    meta = os.path.join(os.path.dirname(os.path.dirname(mask_path)), 'cards',
                        os.path.basename(mask_path)[:-4] + '.json')
    if os.path.isfile(meta):
        with open(meta) as f:
            cards = json.load(f)['cards']
        faceup = [i + 2 for i, c in enumerate(cards) if c.get('side') != 'back']
        if faceup:
            ids[np.isin(ids, faceup)] = 1
    H, W = ids.shape
    ww, wh = work_size(W, H)
    x = cv2.resize(img, (ww, wh), interpolation=cv2.INTER_AREA)
    ow, oh = ww // 4, wh // 4
    card = (ids >= 2).astype(np.float32)
    fg = cv2.resize(card, (ow, oh), interpolation=cv2.INTER_AREA) > 0.5
    # outline: a pixel whose 3x3 neighbourhood (full size) holds two different things, one a card
    k = np.ones((3, 3), np.uint8)
    idf = ids.astype(np.float32)
    mx = cv2.dilate(idf, k)
    mn = cv2.erode(idf, k)
    edge = ((mx != mn) & (mx >= 2)).astype(np.uint8)
    # about one output pixel wide: grow to the output's pixel size, then shrink
    r = max(1, int(round(W / ow / 2)))
    edge = cv2.dilate(edge, np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    edge = cv2.resize(edge.astype(np.float32), (ow, oh), interpolation=cv2.INTER_AREA) > 0.3
    idw = cv2.resize(ids.astype(np.int16), (ww, wh), interpolation=cv2.INTER_NEAREST)
    return x, fg.astype(np.uint8), edge.astype(np.uint8), idw


class Seg(nn.Module):
    """Encoder to 1/8 with three dilated residual layers (context of a card or more), one decoder
    step back to 1/4 joined with the 1/4 features; two logits per output pixel."""
    def __init__(self):
        super().__init__()
        def cbr(i, o, s=1, d=1, k=3):
            return nn.Sequential(nn.Conv2d(i, o, k, s, padding=d * (k // 2), dilation=d, bias=False),
                                 nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.c1 = cbr(3, 8, 2)         # 1/2
        self.c2 = cbr(8, 16, 2)        # 1/4
        self.c3 = cbr(16, 24, 2)       # 1/8
        self.c4 = cbr(24, 24, d=2)
        self.c5 = cbr(24, 24, d=4)
        self.c6 = cbr(24, 24, d=8)
        self.ua = cbr(40, 16, k=1)
        self.ub = cbr(16, 16)
        self.head = nn.Conv2d(16, 2, 3, padding=1)

    def forward(self, x):
        f2 = self.c2(self.c1(x))
        f = self.c3(f2)
        f = f + self.c4(f)
        f = f + self.c5(f)
        f = f + self.c6(f)
        f = F.interpolate(f, scale_factor=2, mode='nearest')
        return self.head(self.ub(self.ua(torch.cat([f, f2], 1))))


def real_looks(rng, x, idw, strength):
    """What the synthetic backs and tables lack and real photos have (the black deck on a white desk
    of shared/data/real-cards, photos exported with salt-and-pepper noise), painted with the scene's
    own id map so the labels stay true: some cards become plain backs of one colour (no margin, no
    pattern) with a thin shade along their outline, the table a light desk, and pepper noise."""
    x = x.copy()
    if rng.random() < 0.35 * strength:
        cards = [int(i) for i in np.unique(idw) if i >= 2]
        if cards:
            dark = rng.random() < 0.7
            base = rng.uniform(5, 70, 3) if dark else rng.uniform(20, 230, 3)
            base = base + (rng.uniform(0, 25) if dark else 0)
            pick = [c for c in cards if rng.random() < 0.6] or cards[:1]
            painted = np.isin(idw, pick)
            x[painted] = base * rng.uniform(0.85, 1.15) + rng.normal(0, rng.uniform(1, 6), (int(painted.sum()), 3))
            # outlines of the painted cards: a 1-px shade where the id changes
            k = np.ones((3, 3), np.uint8)
            idf = idw.astype(np.float32)
            border = (cv2.dilate(idf, k) != cv2.erode(idf, k)) & cv2.dilate(painted.astype(np.uint8), k).astype(bool)
            x[border] = x[border] * rng.uniform(0.3, 0.8) + rng.uniform(0, 40)
    if rng.random() < 0.25 * strength:
        table = idw == 0
        h, w = idw.shape
        gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
        light = rng.uniform(185, 250) + rng.uniform(-25, 25) * gx + rng.uniform(-25, 25) * gy
        tint = rng.uniform(0.92, 1.0, 3)
        desk = light[..., None] * tint[None, None, :] + rng.normal(0, rng.uniform(1, 5), (h, w, 1))
        x[table] = desk[table]
    if rng.random() < 0.3 * strength:
        m = rng.random(idw.shape)
        p = rng.uniform(0.002, 0.02)
        x[m < p / 2] = 0
        x[m > 1 - p / 2] = 255
    return np.clip(x, 0, 255)


def augment(rng, x, fg, edge, idw, crop=(320, 256), strength=0.0):
    h, w = x.shape[:2]
    cw, ch = min(crop[0], w), min(crop[1], h)
    cw -= cw % 8
    ch -= ch % 8
    x0 = int(rng.integers(0, (w - cw) // 8 + 1)) * 8
    y0 = int(rng.integers(0, (h - ch) // 8 + 1)) * 8
    x = x[y0:y0 + ch, x0:x0 + cw].astype(np.float32)
    if strength > 0:
        x = real_looks(rng, x, idw[y0:y0 + ch, x0:x0 + cw], strength)
    fg = fg[y0 // 4:(y0 + ch) // 4, x0 // 4:(x0 + cw) // 4]
    edge = edge[y0 // 4:(y0 + ch) // 4, x0 // 4:(x0 + cw) // 4]
    if rng.random() < 0.5:
        x, fg, edge = x[:, ::-1], fg[:, ::-1], edge[:, ::-1]
    if rng.random() < 0.5:
        x, fg, edge = x[::-1], fg[::-1], edge[::-1]
    if rng.random() < 0.5:  # another colour for every design and table
        x = x[:, :, rng.permutation(3)]
    x = x * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    x = x * rng.uniform(0.85, 1.15, size=3)[None, None, :]
    x = np.clip(x, 0, 255) / 255.0 - 0.5
    return (np.ascontiguousarray(x.transpose(2, 0, 1)), np.ascontiguousarray(fg), np.ascontiguousarray(edge))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--epochs', type=int, default=14)
    ap.add_argument('--minutes', type=float, default=40)
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--seed', type=int, default=5)
    ap.add_argument('--val', type=float, default=0.05)
    ap.add_argument('--real-looks', type=float, default=0.0,
                    help='strength (0..1) of the plain-back / light-desk / pepper-noise repainting (real_looks)')
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    files = []
    for d in a.dirs:
        for p in sorted(glob.glob(os.path.join(d, 'masks', '*.png'))):
            files.append((os.path.join(d, 'images', os.path.basename(p)[:-4] + '.jpg'), p))
    if not files:
        sys.exit('no scenes with masks (nertzref-cli synth ... --masks)')
    t0 = time.time()
    data = [load_scene(i, m) for i, m in files]
    print(f'{len(data)} scenes loaded in {time.time() - t0:.0f} s', file=sys.stderr)
    order = rng.permutation(len(data))
    nval = max(1, int(len(data) * a.val))
    val = [data[i] for i in order[:nval]]
    train = [data[i] for i in order[nval:]]
    fgpos = np.mean([d[1].mean() for d in train])
    edpos = np.mean([d[2].mean() for d in train])
    print(f'train {len(train)}, val {nval}; card share {fgpos:.3f}, outline share {edpos:.3f}', file=sys.stderr)
    net = Seg()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps_per_epoch = math.ceil(len(train) / a.batch)
    total = steps_per_epoch * a.epochs
    warm = min(200, total // 10)
    edge_w = torch.tensor(min(10.0, (1 - edpos) / max(edpos, 1e-3) / 3))
    step = 0
    start = time.time()
    for ep in range(a.epochs):
        net.train()
        perm = rng.permutation(len(train))
        tl = 0.0
        for b in range(steps_per_epoch):
            idx = perm[b * a.batch:(b + 1) * a.batch]
            xs, fs, es = zip(*[augment(rng, *train[i], strength=a.real_looks) for i in idx])
            x = torch.from_numpy(np.stack(xs)).float()
            fg = torch.from_numpy(np.stack(fs)).float()
            ed = torch.from_numpy(np.stack(es)).float()
            progress = max(step / total, (time.time() - start) / (a.minutes * 60))
            lr = 3e-3 * (min(1.0, (step + 1) / warm) if step < warm else 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))
            for g in opt.param_groups:
                g['lr'] = lr
            out = net(x)
            loss = F.binary_cross_entropy_with_logits(out[:, 0], fg) + \
                F.binary_cross_entropy_with_logits(out[:, 1], ed, pos_weight=edge_w)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item()
            step += 1
        net.eval()
        with torch.no_grad():
            inter = np.zeros(2)
            union = np.zeros(2)
            for x, fg, ed, _ in val:
                xx = torch.from_numpy((x.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None].copy())
                o = net(xx)[0].numpy() > 0
                for c, t in ((0, fg), (1, ed)):
                    inter[c] += np.sum(o[c] & (t > 0))
                    union[c] += np.sum(o[c] | (t > 0))
        iou = inter / np.maximum(union, 1)
        el = time.time() - start
        print(f'epoch {ep + 1}: loss {tl / steps_per_epoch:.4f}, val IoU card {iou[0]:.3f} outline {iou[1]:.3f}, '
              f'{el / 60:.1f} min', file=sys.stderr)
        if el > a.minutes * 60:
            print('time budget used: stopping', file=sys.stderr)
            break
    net.eval()
    dummy = torch.zeros(1, 3, 360, 640)
    torch.onnx.export(net, dummy, a.out, input_names=['image'], output_names=['logits'], opset_version=11,
                      dynamic_axes={'image': {0: 'n', 2: 'h', 3: 'w'}, 'logits': {0: 'n', 2: 'h2', 3: 'w2'}})
    nparams = sum(p.numel() for p in net.parameters())
    print(f'{nparams} parameters -> {a.out} ({os.path.getsize(a.out)} bytes)', file=sys.stderr)


if __name__ == '__main__':
    main()
