#!/usr/bin/python3
"""Trains the back finder's segmenter (issue 5): which pixels of a table picture are face-down
cards, and where one card's outline runs (between two cards, or a card and the table / a hand).

Data: scenes of `nertzref-cli synth --kind backs|ribbon|mixed --designs train --masks` (the masks
give what each pixel shows: table, hand, or which card; the scene's JSON says which cards lie face
up: those are not backs). The picture is shrunk to the finder's working
size (long side 640) and the net answers at a quarter of that (stride 4):
  channel 0: card (a face-down card shows here; hands and table are not cards)
  channel 1: outline (within ~1 output pixel of a visible edge of a card)
With --centres (instances, after Panoptic-DeepLab's centre + offset heads) three more:
  channel 2: centre (a Gaussian of SIGMA output pixels at the middle of what shows of each card
             that counts: visible fraction >= 0.05, as eval-count counts)
  channels 3, 4: offset (x, y) from this card pixel to its card's centre, in output pixels / 8
Exported to ONNX (N x 3 x H x W, BGR in 0..1 minus 0.5; H and W multiples of 8) for cv::dnn.

    /usr/bin/python3 train_back_seg.py OUT.onnx DIR [DIR...] --epochs 14 --minutes 40

Seeded; one torch thread (the machine has two cores and one thread runs faster there).

On a GPU machine (`--device cuda --workers N`): the scenes are loaded by N processes and each
batch is cut and coloured by N DataLoader workers (each seeded from --seed, its number and the
epoch); `--state F.pt` also writes the weights, which `--export-from F.pt` turns into OUT.onnx
with this machine's exporter (the one every committed model was exported with). A scene's picture
may be a .webp already shrunk to the working size (`pack_seg_data.py`: what fits through the
device tool's 64 MiB)."""
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
    if img is None:
        sys.exit(f'{img_path}: not a readable picture')
    ids = cv2.imread(mask_path, cv2.IMREAD_UNCHANGED).astype(np.int32)
    # face-up cards are not backs: they count as "other" (like a hand), their edges on the table
    # are no outline; the edge between a face-up card and a back is (the back's)
    meta = os.path.join(os.path.dirname(os.path.dirname(mask_path)), 'cards',
                        os.path.basename(mask_path)[:-4] + '.json')
    countable = {}
    if os.path.isfile(meta):
        with open(meta) as f:
            cards = json.load(f)['cards']
        faceup = [i + 2 for i, c in enumerate(cards) if c.get('side') != 'back']
        if faceup:
            ids[np.isin(ids, faceup)] = 1
        countable = {i + 2: c.get('side') == 'back' and c.get('visible_fraction', 0) >= 0.05
                     for i, c in enumerate(cards)}
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
    return x, fg.astype(np.uint8), edge.astype(np.uint8), idw, centre_labels(ids, countable, ow, oh)


SIGMA = 1.5       # centre heatmap, output pixels
OFFSET_UNIT = 8.0  # offsets are learnt in this many output pixels


def centre_labels(ids, countable, ow, oh):
    """Centre heatmap (oh x ow float32), offsets (2 x oh x ow float32, output px / OFFSET_UNIT),
    their weight (oh x ow: 1 on pixels of cards that count) and the number of cards that count, from
    the full-size id map."""
    H, W = ids.shape
    flat = ids.ravel()
    n = int(flat.max()) + 1 if flat.size else 1
    ys, xs = np.divmod(np.arange(flat.size, dtype=np.int64), W)
    cnt = np.bincount(np.maximum(flat, 0), minlength=n).astype(np.float64)
    sx = np.bincount(np.maximum(flat, 0), weights=xs + 0.5, minlength=n)
    sy = np.bincount(np.maximum(flat, 0), weights=ys + 0.5, minlength=n)
    heat = np.zeros((oh, ow), np.float32)
    ncards = 0
    gx, gy = np.meshgrid(np.arange(ow, dtype=np.float32), np.arange(oh, dtype=np.float32))
    cx = np.full(n, np.nan)
    cy = np.full(n, np.nan)
    for i in range(2, n):
        if cnt[i] == 0 or not countable.get(i, False):
            continue
        ncards += 1
        cx[i] = sx[i] / cnt[i] * ow / W - 0.5
        cy[i] = sy[i] / cnt[i] * oh / H - 0.5
        heat = np.maximum(heat, np.exp(-((gx - cx[i]) ** 2 + (gy - cy[i]) ** 2) / (2 * SIGMA ** 2)))
        # the cell nearest the middle is the one positive of the focal loss
        px, py = int(round(cx[i])), int(round(cy[i]))
        if 0 <= px < ow and 0 <= py < oh:
            heat[py, px] = 1.0
    off, weight = centre_offsets(ids, cx, cy, ow, oh)
    return heat, off, weight, ncards


def centre_offsets(ids, cx, cy, ow, oh):
    """Offsets (2 x oh x ow, output px / OFFSET_UNIT) from each output pixel to the middle (cx, cy:
    output pixels, by id; NaN for a card that does not count) of the card at that pixel, and their
    weight (1 where that card counts)."""
    n = len(cx)
    gx, gy = np.meshgrid(np.arange(ow, dtype=np.float32), np.arange(oh, dtype=np.float32))
    # each output pixel's card: the id at its middle
    ido = cv2.resize(ids.astype(np.int32).astype(np.float32), (ow, oh), interpolation=cv2.INTER_NEAREST).astype(np.int64)
    ok = (ido >= 2) & (ido < n)
    safe = np.where(ok, ido, 0)
    tx, ty = cx[safe], cy[safe]
    weight = (ok & np.isfinite(tx)).astype(np.float32)
    off = np.zeros((2, oh, ow), np.float32)
    off[0] = np.where(weight > 0, (np.nan_to_num(tx) - gx) / OFFSET_UNIT, 0)
    off[1] = np.where(weight > 0, (np.nan_to_num(ty) - gy) / OFFSET_UNIT, 0)
    return off, weight


class Seg(nn.Module):
    """Encoder to 1/8 with three dilated residual layers (context of a card or more), one decoder
    step back to 1/4 joined with the 1/4 features; two logits per output pixel (five with the
    centre and offset heads, which get a wider encoder: an offset must reach a card's middle)."""
    def __init__(self, centres=False):
        super().__init__()
        def cbr(i, o, s=1, d=1, k=3):
            return nn.Sequential(nn.Conv2d(i, o, k, s, padding=d * (k // 2), dilation=d, bias=False),
                                 nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        w, u = (32, 24) if centres else (24, 16)
        self.c1 = cbr(3, 8, 2)         # 1/2
        self.c2 = cbr(8, 16, 2)        # 1/4
        self.c3 = cbr(16, w, 2)        # 1/8
        self.c4 = cbr(w, w, d=2)
        self.c5 = cbr(w, w, d=4)
        self.c6 = cbr(w, w, d=8)
        self.ua = cbr(w + 16, u, k=1)
        self.ub = cbr(u, u)
        self.head = nn.Conv2d(u, 5 if centres else 2, 3, padding=1)

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


def flipped(x, fg, edge, heat, off, wt, flip):
    """A scene and its targets mirrored left-right (flip & 1) and / or up-down (flip & 2), the
    offsets' signs turned with them; contiguous copies."""
    if flip & 1:
        x, fg, edge, heat, wt = x[:, ::-1], fg[:, ::-1], edge[:, ::-1], heat[:, ::-1], wt[:, ::-1]
        off = off[:, :, ::-1] * np.array([-1, 1], np.float32)[:, None, None]
    if flip & 2:
        x, fg, edge, heat, wt = x[::-1], fg[::-1], edge[::-1], heat[::-1], wt[::-1]
        off = off[:, ::-1] * np.array([1, -1], np.float32)[:, None, None]
    return [np.ascontiguousarray(v) for v in (x, fg, edge, heat, off, wt)]


def augment(rng, x, fg, edge, idw, inst, crop=(320, 256), strength=0.0):
    h, w = x.shape[:2]
    cw, ch = min(crop[0], w), min(crop[1], h)
    cw -= cw % 8
    ch -= ch % 8
    x0 = int(rng.integers(0, (w - cw) // 8 + 1)) * 8
    y0 = int(rng.integers(0, (h - ch) // 8 + 1)) * 8
    x = x[y0:y0 + ch, x0:x0 + cw].astype(np.float32)
    if strength > 0:
        x = real_looks(rng, x, idw[y0:y0 + ch, x0:x0 + cw], strength)
    out = (slice(y0 // 4, (y0 + ch) // 4), slice(x0 // 4, (x0 + cw) // 4))
    fg = fg[out]
    edge = edge[out]
    heat, off, wt = inst[0][out], inst[1][(slice(None),) + out].copy(), inst[2][out]
    left_right = rng.random() < 0.5
    up_down = rng.random() < 0.5
    x, fg, edge, heat, off, wt = flipped(x, fg, edge, heat, off, wt, int(left_right) | int(up_down) << 1)
    if rng.random() < 0.5:  # another colour for every design and table
        x = x[:, :, rng.permutation(3)]
    x = x * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    x = x * rng.uniform(0.85, 1.15, size=3)[None, None, :]
    x = np.clip(x, 0, 255) / 255.0 - 0.5
    return (np.ascontiguousarray(x.transpose(2, 0, 1)), np.ascontiguousarray(fg), np.ascontiguousarray(edge),
            np.ascontiguousarray(heat), np.ascontiguousarray(off), np.ascontiguousarray(wt))


def centre_focal_loss(logits, target, pos_weight=None):
    """CenterNet's penalty-reduced focal loss: the cell nearest each middle (target 1) is a positive,
    every other cell a negative weighted down by (1 - target)^4 near a middle; per middle.
    `pos_weight` (optional, as target): a weight for each positive."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (target >= 0.999).float()
    lp = -((1 - p) ** 2) * torch.log(p) * pos
    if pos_weight is not None:
        lp = lp * pos_weight
    ln = -((1 - target) ** 4) * (p ** 2) * torch.log(1 - p) * (1 - pos)
    return (lp.sum() + ln.sum()) / pos.sum().clamp(min=1.0)


def seg_loss(out, fg, ed, edge_w, centres=None, middle_weight=None):
    """The training loss on the net's logits: card and outline (outline pixels weighted by edge_w),
    and with centres = (heat, offsets, their weight) the centre focal loss (each middle weighted by
    `middle_weight` where given) and the offsets' L1."""
    loss = F.binary_cross_entropy_with_logits(out[:, 0], fg) + \
        F.binary_cross_entropy_with_logits(out[:, 1], ed, pos_weight=edge_w)
    if centres is not None:
        ht, ot, wt = centres
        loss = loss + centre_focal_loss(out[:, 2], ht, middle_weight)
        l1 = F.smooth_l1_loss(out[:, 3:5], ot, reduction='none', beta=0.1).sum(1)
        loss = loss + (l1 * wt).sum() / wt.sum().clamp(min=1.0)
    return loss


CENTRE_THRESHOLD = 0.3  # a middle: a 3x3 local maximum of the centre map above this probability


def count_peaks(heat_logits, threshold=math.log(CENTRE_THRESHOLD / (1 - CENTRE_THRESHOLD))):
    """Centres found: 3x3 local maxima of the centre logits above threshold."""
    h = torch.from_numpy(heat_logits)[None, None]
    mx = F.max_pool2d(h, 3, 1, 1)
    return int(((h == mx) & (h > threshold)).sum())


BLOCKS = ('c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'ua', 'ub')  # Seg's convolution + batch norm blocks, in order


def load_folded(net, path):
    """Weights of an exported model (train_back_seg.py's own export: each convolution with its batch
    norm folded in, in the network's order, then the head) into net; the batch norms become
    identities (mean 0, variance 1 - eps, scale 1, shift 0), the folded bias the convolution's."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path)
    arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = []
    for node in model.graph.node:
        if node.op_type == 'Conv':
            w = arrays[node.input[1]]
            b = arrays[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            convs.append((w, b))
    blocks = [getattr(net, name) for name in BLOCKS]
    if len(convs) != len(blocks) + 1:
        sys.exit(f'{path}: {len(convs)} convolutions, expected {len(blocks) + 1}')
    with torch.no_grad():
        for blk, (w, b) in zip(blocks, convs):
            conv, bn = blk[0], blk[1]
            conv.weight.copy_(torch.from_numpy(w))
            conv.bias = nn.Parameter(torch.from_numpy(b.copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.zero_()
        net.head.weight.copy_(torch.from_numpy(convs[-1][0]))
        net.head.bias.copy_(torch.from_numpy(convs[-1][1]))


class Batches(torch.utils.data.Dataset):
    """The training scenes, each cut and coloured by augment() in a DataLoader worker with its own
    generator (seed, epoch, worker), so that N workers never repeat each other's draws."""
    def __init__(self, scenes, strength, seed):
        self.scenes, self.strength, self.seed, self.epoch = scenes, strength, seed, 0
        self.rng = None

    def __len__(self):
        return len(self.scenes)

    def __getitem__(self, i):
        if self.rng is None:  # first item in this worker (workers start afresh every epoch)
            self.rng = np.random.default_rng([self.seed, self.epoch, torch.utils.data.get_worker_info().id])
        return augment(self.rng, *self.scenes[i], strength=self.strength)


def scene_files(dirs):
    files = []
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, 'masks', '*.png'))):
            stem = os.path.join(d, 'images', os.path.basename(p)[:-4])
            files.append((stem + '.jpg' if os.path.isfile(stem + '.jpg') else stem + '.webp', p))
    return files


def _load(pair):
    return load_scene(*pair)


def export(net, path):
    net.eval()
    dummy = torch.zeros(1, 3, 360, 640)
    torch.onnx.export(net, dummy, path, input_names=['image'], output_names=['logits'], opset_version=11,
                      dynamic_axes={'image': {0: 'n', 2: 'h', 3: 'w'}, 'logits': {0: 'n', 2: 'h2', 3: 'w2'}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('dirs', nargs='+')
    ap.add_argument('--epochs', type=int, default=14)
    ap.add_argument('--minutes', type=float, default=40)
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--seed', type=int, default=5)
    ap.add_argument('--val', type=float, default=0.05)
    ap.add_argument('--centres', action='store_true',
                    help='also learn card centres and offsets (five output channels; the finder then groups by centre)')
    ap.add_argument('--real-looks', type=float, default=0.0,
                    help='strength (0..1) of the plain-back / light-desk / pepper-noise repainting (real_looks)')
    ap.add_argument('--init', default='',
                    help='start from this exported model (its batch norms folded into the convolutions: they '
                         'stay fixed, as identities, while the rest is fine-tuned)')
    ap.add_argument('--lr', type=float, default=3e-3, help='peak learning rate (cosine schedule)')
    ap.add_argument('--device', default='cpu', help='cpu, or cuda on a GPU machine')
    ap.add_argument('--workers', type=int, default=0,
                    help='processes that load the scenes and cut the batches (0: this one, as before)')
    ap.add_argument('--val-every', type=int, default=1, help='validate every this many epochs (and the last)')
    ap.add_argument('--state', default='', help='also write the trained weights (torch state dict) here')
    ap.add_argument('--export-from', default='',
                    help='no training: export these saved weights (--state of a run) to OUT (dirs are ignored)')
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    if a.export_from:
        net = Seg(a.centres)
        state = torch.load(a.export_from, map_location='cpu')
        for name in BLOCKS:
            conv = getattr(net, name)[0]
            if f'{name}.0.bias' in state:  # fine-tuned from an exported model (--init): folded biases
                conv.bias = nn.Parameter(torch.zeros(conv.out_channels))
        net.load_state_dict(state)
        export(net, a.out)
        print(f'{a.export_from} -> {a.out} ({os.path.getsize(a.out)} bytes)', file=sys.stderr)
        return
    rng = np.random.default_rng(a.seed)
    files = scene_files(a.dirs)
    if not files:
        sys.exit('no scenes with masks (nertzref-cli synth ... --masks)')
    t0 = time.time()
    if a.workers > 0:
        import multiprocessing
        with multiprocessing.Pool(a.workers) as pool:
            data = pool.map(_load, files, chunksize=16)
    else:
        data = [load_scene(i, m) for i, m in files]
    print(f'{len(data)} scenes loaded in {time.time() - t0:.0f} s', file=sys.stderr)
    order = rng.permutation(len(data))
    nval = max(1, int(len(data) * a.val))
    val = [data[i] for i in order[:nval]]
    train = [data[i] for i in order[nval:]]
    fgpos = np.mean([d[1].mean() for d in train])
    edpos = np.mean([d[2].mean() for d in train])
    print(f'train {len(train)}, val {nval}; card share {fgpos:.3f}, outline share {edpos:.3f}', file=sys.stderr)
    net = Seg(a.centres)
    if a.init:
        load_folded(net, a.init)
    dev = torch.device(a.device)
    net.to(dev)
    loader = None
    if a.workers > 0:
        batches = Batches(train, a.real_looks, a.seed)
        loader = torch.utils.data.DataLoader(batches, batch_size=a.batch, shuffle=True, drop_last=False,
                                             num_workers=a.workers, persistent_workers=False, pin_memory=dev.type == 'cuda',
                                             generator=torch.Generator().manual_seed(a.seed))
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    steps_per_epoch = math.ceil(len(train) / a.batch)
    total = steps_per_epoch * a.epochs
    warm = min(200, total // 10)
    edge_w = torch.tensor(min(10.0, (1 - edpos) / max(edpos, 1e-3) / 3))
    step = 0
    start = time.time()
    for ep in range(a.epochs):
        net.train()
        if a.init:  # the folded batch norms stay identities
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        tl = 0.0
        if loader is not None:
            batches.epoch = ep
            source = iter(loader)
        else:
            perm = rng.permutation(len(train))
        for b in range(steps_per_epoch):
            if loader is not None:
                batch = next(source)
            else:
                idx = perm[b * a.batch:(b + 1) * a.batch]
                batch = [torch.from_numpy(np.stack(t))
                         for t in zip(*[augment(rng, *train[i], strength=a.real_looks) for i in idx])]
            x, fg, ed, ht, ot, wt = (t.to(dev) for t in batch)
            x, fg, ed = x.float(), fg.float(), ed.float()
            progress = max(step / total, (time.time() - start) / (a.minutes * 60))
            lr = a.lr * (min(1.0, (step + 1) / warm) if step < warm else 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))
            for g in opt.param_groups:
                g['lr'] = lr
            out = net(x)
            loss = seg_loss(out, fg, ed, edge_w, (ht, ot, wt) if a.centres else None)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item()
            step += 1
        el = time.time() - start
        last = ep + 1 == a.epochs or el > a.minutes * 60
        if (ep + 1) % a.val_every and not last:
            continue
        net.eval()
        with torch.no_grad():
            inter = np.zeros(2)
            union = np.zeros(2)
            cerr, cexact, oerr = [], 0, []
            for x, fg, ed, _, inst in val:
                xx = torch.from_numpy((x.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None].copy())
                raw = net(xx.to(dev))[0].cpu().numpy()
                o = raw > 0
                for c, t in ((0, fg), (1, ed)):
                    inter[c] += np.sum(o[c] & (t > 0))
                    union[c] += np.sum(o[c] | (t > 0))
                if a.centres:
                    d = abs(count_peaks(raw[2]) - inst[3])
                    cerr.append(d)
                    cexact += d == 0
                    if inst[2].sum() > 0:
                        oerr.append(float((np.abs(raw[3:5] - inst[1]).sum(0) * inst[2]).sum() / inst[2].sum() * OFFSET_UNIT))
        iou = inter / np.maximum(union, 1)
        el = time.time() - start
        extra = ''
        if a.centres:
            extra = (f', centres: |count error| {np.mean(cerr):.2f}, exact {cexact}/{len(val)}, '
                     f'offset L1 {np.mean(oerr):.2f} px')
        print(f'epoch {ep + 1}: loss {tl / steps_per_epoch:.4f}, val IoU card {iou[0]:.3f} outline {iou[1]:.3f}{extra}, '
              f'{el / 60:.1f} min', file=sys.stderr)
        if el > a.minutes * 60:
            print('time budget used: stopping', file=sys.stderr)
            break
    net.eval()
    net.to('cpu')
    if a.state:
        torch.save(net.state_dict(), a.state)
        print(f'weights -> {a.state}', file=sys.stderr)
        try:  # another machine's exporter may not write what cv::dnn 4.6 reads: --export-from here then
            export(net, a.out)
        except Exception as e:  # noqa: BLE001 (the weights are saved; say why and stop cleanly)
            print(f'export to {a.out} failed ({e}); run --export-from {a.state} on the training machine', file=sys.stderr)
            return
    else:
        export(net, a.out)
    nparams = sum(p.numel() for p in net.parameters())
    print(f'{nparams} parameters -> {a.out} ({os.path.getsize(a.out)} bytes)', file=sys.stderr)


if __name__ == '__main__':
    main()
