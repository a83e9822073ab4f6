#!/usr/bin/python3
"""The back segmenter's later layers fine-tuned on two CPU cores; where its centre head leaves cards.

BACKS.md, "The segmenter's later layers fine-tuned on cached features".

    train OUT.onnx DIR [DIR...]   fine-tunes c4-c6, ua, ub and the head of --init (default
                                  models/back_seg.onnx) with c1-c3 frozen: their outputs (the 1/4
                                  and 1/8 features) are computed once per scene and per flip (none,
                                  left-right, up-down, both) and kept as float16, so an epoch is only
                                  the cheap 1/8 and 1/4 layers on crops of 320x256 input pixels
                                  (about 2.5 minutes for 8,000 crops on one core). DIRs are scenes of
                                  `nertzref-cli synth ... --masks` (or real_negatives.py /
                                  busy_tables.py folders), as train_back_seg.py reads them.
                                  --emphasis K: each centre-loss positive of a card showing a share
                                  v < 0.5 of itself weighted min(K, 0.5 / v) (tried 2026-11-30, not
                                  kept: BACKS.md, "Rows that look like no deck").
    peaks SET                     for each labelled face-down card of a synthetic set (visible
                                  share >= 0.05) whether the centre map (3x3 maxima over 0.3, as the
                                  finder reads it) has a middle on what shows of it, by visible share.

    /usr/bin/python3 train_back_seg_tail.py train /tmp/A.onnx /tmp/cs/seg_b /tmp/cs/s7_b ... --epochs 12
    /usr/bin/python3 train_back_seg_tail.py peaks /tmp/ba_tr_21 --model /tmp/A.onnx

The batch norms of the exported model are folded into its convolutions and stay identities (as
train_back_seg.py --init does). Colour is not augmented (the cache is of pictures as drawn). Needs
Debian's python3-torch, python3-onnx, python3-opencv and numpy.
"""
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
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_back_seg as T  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def inner_centre_labels(ids, countable, ow, oh):
    """As train_back_seg.centre_labels, but each card's middle is the point of what shows of it
    deepest inside it (distance transform at half size) rather than its centroid, which for an
    L-shaped part can lie on the card above (--inner; tried, not kept: the finder reads middles as
    centroids)."""
    H, W = ids.shape
    n = int(ids.max()) + 1
    heat = np.zeros((oh, ow), np.float32)
    ncards = 0
    gx, gy = np.meshgrid(np.arange(ow, dtype=np.float32), np.arange(oh, dtype=np.float32))
    cx, cy = np.full(n, np.nan), np.full(n, np.nan)
    small = cv2.resize(ids.astype(np.float32), (W // 2, H // 2), interpolation=cv2.INTER_NEAREST).astype(np.int32)
    for i in range(2, n):
        if not countable.get(i, False):
            continue
        m = (small == i).astype(np.uint8)
        if m.sum() == 0:
            continue
        d = cv2.distanceTransform(np.pad(m, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
        y, x = np.unravel_index(int(np.argmax(d)), d.shape)
        ncards += 1
        cx[i] = (x + 0.5) * 2 * ow / W - 0.5
        cy[i] = (y + 0.5) * 2 * oh / H - 0.5
        heat = np.maximum(heat, np.exp(-((gx - cx[i]) ** 2 + (gy - cy[i]) ** 2) / (2 * T.SIGMA ** 2)))
        px, py = int(round(cx[i])), int(round(cy[i]))
        if 0 <= px < ow and 0 <= py < oh:
            heat[py, px] = 1.0
    off, weight = T.centre_offsets(ids, cx, cy, ow, oh)
    return heat, off, weight, ncards


def middle_weights(mask_path, idw, heat, most):
    """--emphasis: a weight per output cell for the centre loss's positives: min(most, 0.5 / v) at
    the middle of a card that shows a share v < 0.5 of itself (1 elsewhere), so that the head is
    pushed harder to give partly covered cards a middle of their own (the committed model gives
    none to 34-42% of the cards showing 0.2-0.5 of themselves: `peaks`)."""
    pw = np.ones(heat.shape, np.float32)
    meta = os.path.join(os.path.dirname(os.path.dirname(mask_path)), 'cards',
                        os.path.basename(mask_path)[:-4] + '.json')
    if not os.path.isfile(meta):
        return pw
    with open(meta) as f:
        cards = json.load(f)['cards']
    oh, ow = heat.shape
    wh, ww = idw.shape
    for i, c in enumerate(cards):
        v = c.get('visible_fraction', 0)
        if c.get('side') != 'back' or v < 0.05 or v >= 0.5:
            continue
        ys, xs = np.nonzero(idw == i + 2)
        if len(xs) == 0:
            continue
        # the cell nearest the centroid of what shows, as centre_labels places the positive
        px = int(round((xs.mean() + 0.5) * ow / ww - 0.5))
        py = int(round((ys.mean() + 0.5) * oh / wh - 0.5))
        if 0 <= px < ow and 0 <= py < oh and heat[py, px] >= 0.999:
            pw[py, px] = max(pw[py, px], min(most, 0.5 / v))
    return pw


def train(a):
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    if a.inner:
        T.centre_labels = inner_centre_labels
    net = T.Seg(True)
    T.load_folded(net, a.init)
    net.eval()  # the folded batch norms stay identities
    files = T.scene_files(a.dirs)
    if not files:
        sys.exit('no scenes with masks in ' + ', '.join(a.dirs))
    t0 = time.time()
    cache = []  # per scene and flip: 1/4 and 1/8 features (float16), then the targets
    with torch.no_grad():
        for k, (img, msk) in enumerate(files):
            x, fg, ed, idw, (heat, off, wt, _) = T.load_scene(img, msk)
            pw = middle_weights(msk, idw, heat, a.emphasis) if a.emphasis > 0 else None
            for flip in range(4):
                xx, f_, e_, h_, o_, w_ = T.flipped(x, fg, ed, heat, off, wt, flip)
                t = torch.from_numpy((xx.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None].copy())
                f2 = net.c2(net.c1(t))
                f3 = net.c3(f2)
                p_ = None
                if pw is not None:  # flipped as the heat map is
                    p_ = pw[:, ::-1] if flip & 1 else pw
                    p_ = np.ascontiguousarray(p_[::-1] if flip & 2 else p_)
                cache.append((f2[0].half().numpy(), f3[0].half().numpy(), f_, e_, h_, o_, w_, p_))
            if k % 100 == 0:
                print(f'cached {k}/{len(files)} scenes, {time.time() - t0:.0f} s', file=sys.stderr, flush=True)
    scenes = len(files)
    order = rng.permutation(scenes)
    held = set(order[:max(1, scenes // 20)].tolist())
    train_ix = [i for i in range(len(cache)) if i // 4 not in held]
    val_ix = [i for i in range(len(cache)) if i // 4 in held and i % 4 == 0]
    edpos = np.mean([cache[i][3].mean() for i in train_ix])
    edge_w = torch.tensor(min(10.0, (1 - edpos) / max(edpos, 1e-3) / 3))
    for p in net.parameters():
        p.requires_grad_(False)
    params = [p for name in a.train_layers.split(',') for p in getattr(net, name).parameters()]
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=1e-4)

    def tail(f2, f3):
        f = f3 + net.c4(f3)
        f = f + net.c5(f)
        f = f + net.c6(f)
        f = F.interpolate(f, scale_factor=2, mode='nearest')
        return net.head(net.ub(net.ua(torch.cat([f, f2], 1))))

    def crop(i):
        f2, f3, fg, ed, ht, ot, wt, pw = cache[i]
        h8, w8 = f3.shape[1:]
        ch, cw = min(32, h8), min(40, w8)  # 256 x 320 input pixels
        y = int(rng.integers(0, h8 - ch + 1))
        x = int(rng.integers(0, w8 - cw + 1))
        s4 = (slice(2 * y, 2 * (y + ch)), slice(2 * x, 2 * (x + cw)))
        pw = np.ones_like(ht) if pw is None else pw
        return (f2[(slice(None),) + s4].astype(np.float32), f3[:, y:y + ch, x:x + cw].astype(np.float32),
                fg[s4].astype(np.float32), ed[s4].astype(np.float32), ht[s4], ot[(slice(None),) + s4], wt[s4],
                pw[s4])

    def validate():
        errors = []
        with torch.no_grad():
            for i in val_ix:
                f2, f3, _, _, ht, _, _, _ = cache[i]
                out = tail(torch.from_numpy(f2.astype(np.float32))[None],
                           torch.from_numpy(f3.astype(np.float32))[None])[0].numpy()
                errors.append(abs(T.count_peaks(out[2]) - int((ht >= 0.999).sum())))
        return np.mean(errors), sum(e == 0 for e in errors)

    print(f'{len(cache)} cached in {time.time() - t0:.0f} s; train {len(train_ix)} crops an epoch, '
          f'validation {len(val_ix)} scenes: middles |found - true| %.2f, exact %d' % validate(),
          file=sys.stderr, flush=True)
    steps = math.ceil(len(train_ix) / a.batch)
    total = steps * a.epochs
    step = 0
    start = time.time()
    for ep in range(a.epochs):
        perm = rng.permutation(train_ix)
        summed = 0.0
        for b in range(steps):
            f2, f3, fg, ed, ht, ot, wt, pw = [torch.from_numpy(np.stack(t)) for t in
                                              zip(*[crop(i) for i in perm[b * a.batch:(b + 1) * a.batch]])]
            progress = max(step / total, (time.time() - start) / (a.minutes * 60))
            for g in opt.param_groups:
                g['lr'] = a.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
            out = tail(f2, f3)
            loss = T.seg_loss(out, fg, ed, edge_w, (ht, ot, wt), pw if a.emphasis > 0 else None)
            opt.zero_grad()
            loss.backward()
            opt.step()
            summed += loss.item()
            step += 1
        e, x = validate()
        print(f'epoch {ep + 1} loss {summed / steps:.4f}, validation middles |found - true| {e:.2f}, '
              f'exact {x}/{len(val_ix)}, {time.time() - start:.0f} s', file=sys.stderr, flush=True)
        if time.time() - start > a.minutes * 60:
            break
    T.export(net, a.out)
    print(f'-> {a.out}', file=sys.stderr)


def peaks(a):
    net = cv2.dnn.readNetFromONNX(a.model)
    rows = {}
    paths = sorted(glob.glob(os.path.join(a.set, 'cards', '*.json')))
    if not paths:
        sys.exit(f'{a.set}: no cards/*.json (a set of nertzref-cli synth)')
    for path in paths:
        s = json.load(open(path))
        img = cv2.imread(os.path.join(a.set, s['image']), cv2.IMREAD_COLOR)
        if img is None:
            sys.exit(f"{a.set}/{s['image']}: not a readable picture")
        H, W = img.shape[:2]
        ww, wh = T.work_size(W, H)
        x = cv2.resize(img, (ww, wh), interpolation=cv2.INTER_AREA)
        net.setInput((x.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None].copy())
        heat = net.forward()[0][2]
        top = cv2.dilate(heat, np.ones((3, 3), np.uint8))
        py, px = np.where((heat >= top) & (heat > math.log(T.CENTRE_THRESHOLD / (1 - T.CENTRE_THRESHOLD))))
        sx, sy = W / heat.shape[1], H / heat.shape[0]
        middles = [(min(W - 1, int((u + 0.5) * sx)), min(H - 1, int((v + 0.5) * sy))) for u, v in zip(px, py)]
        cards = s['cards']
        for i, c in enumerate(cards):
            if c['side'] != 'back' or c['visible_fraction'] < 0.05:
                continue
            # what shows: the card less every card drawn after it (the JSON lists cards bottom up)
            shows = np.zeros((H, W), np.uint8)
            cv2.fillPoly(shows, [np.array(c['quad'], np.int32)], 1)
            for above in cards[i + 1:]:
                cv2.fillPoly(shows, [np.array(above['quad'], np.int32)], 0)
            inside = sum(int(shows[y, x]) for x, y in middles)
            v = c['visible_fraction']
            band = next(b for b, hi in (('0.05-0.2', 0.2), ('0.2-0.5', 0.5), ('0.5-0.95', 0.95), ('0.95-1', 2)) if v < hi)
            r = rows.setdefault(band, [0, 0, 0])
            r[0] += 1
            r[1] += inside == 0
            r[2] += inside > 1
    print(f'{a.set}, {a.model}: labelled face-down cards by visible share: cards, with no middle on what '
          'shows, with two or more')
    for band in ('0.05-0.2', '0.2-0.5', '0.5-0.95', '0.95-1'):
        if band in rows:
            n, none, more = rows[band]
            print(f'  {band:9s} {n:5d}  no middle {none:5d} ({none / n:.1%})  two or more {more:4d}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('train')
    t.add_argument('out')
    t.add_argument('dirs', nargs='+')
    t.add_argument('--init', default=os.path.join(HERE, '..', 'back_seg.onnx'))
    t.add_argument('--epochs', type=int, default=12)
    t.add_argument('--minutes', type=float, default=35, help='stop after the epoch that passes this')
    t.add_argument('--lr', type=float, default=5e-4, help='peak learning rate (cosine schedule)')
    t.add_argument('--batch', type=int, default=8)
    t.add_argument('--seed', type=int, default=5)
    t.add_argument('--threads', type=int, default=1)
    t.add_argument('--train-layers', default='c4,c5,c6,ua,ub,head')
    t.add_argument('--inner', action='store_true',
                   help="middles at the point of what shows deepest inside it, not its centroid")
    t.add_argument('--emphasis', type=float, default=0,
                   help="weight (at most this) on the middles of cards showing under half of "
                        "themselves in the centre loss: 0.5 / share; 0: off")
    p = sub.add_parser('peaks')
    p.add_argument('set')
    p.add_argument('--model', default=os.path.join(HERE, '..', 'back_seg.onnx'))
    a = ap.parse_args()
    train(a) if a.cmd == 'train' else peaks(a)


if __name__ == '__main__':
    main()
