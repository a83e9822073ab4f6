#!/usr/bin/python3
"""Busy table surfaces for the back segmenter's training (BACKS.md, "Busy tables").

The scene generator's own tables (wood, a mottled cloth, white laminate, plain felt) are quiet;
real tables are not: checked and tartan cloths, stripes, prints of dots and flowers, knitted
blankets, terrazzo, newspaper. The segmenter fine-tuned on real photos with no face-down card
(`seg_real_negatives.sh`) took blurred colour noise for a table of 206 cards. This script draws
such surfaces procedurally (numpy and OpenCV only):

  OUT/tables/              flat surfaces (1600x1200) for `nertzref-cli synth --backgrounds`, which
                           lays them on the table plane and puts cards on them
  OUT/negatives/images/    the same kinds of surface seen through a camera (perspective, uneven
  OUT/negatives/masks/     light, blur, noise, JPEG) with no card at all: masks all zero ("table"),
                           as train_back_seg.py reads a scene without its JSON
  OUT/negatives/labels/    empty label files and classes.txt, so that `nertzref-cli eval-backs
                           OUT/negatives` counts the cards found where there are none

    /usr/bin/python3 models/training/busy_tables.py OUT --tables 120 --negatives 300 --seed 1

The same arguments give the same files. Use another seed for a set to measure on.
"""
import argparse
import math
import os
import sys

import cv2
import numpy as np

KINDS = ('gingham', 'tartan', 'stripes', 'colour_noise', 'dots', 'flowers', 'terrazzo', 'knit',
         'newsprint', 'tiles', 'camouflage')


def colour(rng, sat=(0.2, 0.9), val=(0.2, 0.95)):
    hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(*sat) * 255, rng.uniform(*val) * 255]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def smooth_noise(rng, h, w, cells):
    small = rng.random((max(2, int(h / w * cells)), max(2, cells))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def fill(h, w, c):
    out = np.empty((h, w, 3), np.float32)
    out[:] = c
    return out


def gingham(rng, h, w):
    period = rng.uniform(12, 70)
    a, b = colour(rng, val=(0.3, 0.8)), np.float32([rng.uniform(225, 255)] * 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bx = ((xx // (period / 2)) % 2).astype(np.float32)[..., None]
    by = ((yy // (period / 2)) % 2).astype(np.float32)[..., None]
    share = (bx + by) / 2  # 0 white, 0.5 the tint, 1 the full colour
    return b * (1 - share) + a * share


def tartan(rng, h, w):
    widths = rng.integers(4, 40, size=rng.integers(3, 7))
    cols = [colour(rng) for _ in widths]
    band = np.concatenate([np.full(int(wd), i) for i, wd in enumerate(widths)])
    xs = band[np.arange(w) % len(band)]
    ys = band[np.arange(h) % len(band)]
    palette = np.stack(cols)
    return (palette[ys][:, None, :] + palette[xs][None, :, :]) / 2


def stripes(rng, h, w):
    widths = rng.integers(3, 60, size=rng.integers(2, 6))
    cols = [colour(rng) for _ in widths]
    band = np.concatenate([np.full(int(wd), i) for i, wd in enumerate(widths)])
    out = np.stack(cols)[band[np.arange(w) % len(band)]][None, :, :].repeat(h, 0)
    return out.astype(np.float32)


def colour_noise(rng, h, w):
    noise = rng.random((h, w, 3)).astype(np.float32) * 255
    sigma = rng.uniform(1.5, 14)
    noise = cv2.GaussianBlur(noise, (0, 0), sigma)
    # stretch back to a full range (blurring averages the colours to grey)
    mean = noise.mean(axis=(0, 1))
    return np.clip((noise - mean) * rng.uniform(2.5, 8) + mean * rng.uniform(0.6, 1.3), 0, 255)


def dots(rng, h, w):
    out = fill(h, w, colour(rng))
    dot = colour(rng)
    period = rng.uniform(14, 80)
    r = max(2, int(period * rng.uniform(0.15, 0.35)))
    stagger = rng.random() < 0.5
    for j, y in enumerate(np.arange(0, h + period, period)):
        off = period / 2 if stagger and j % 2 else 0
        for x in np.arange(off, w + period, period):
            cv2.circle(out, (int(x), int(y)), r, dot.tolist(), -1, cv2.LINE_AA)
    return out


def flowers(rng, h, w):
    out = fill(h, w, colour(rng, val=(0.5, 1.0)))
    n = int(h * w / rng.uniform(2500, 9000))
    petal_cols = [colour(rng) for _ in range(3)]
    leaf = colour(rng, sat=(0.4, 0.8), val=(0.3, 0.6))
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        size = rng.uniform(6, 30)
        if rng.random() < 0.4:
            cv2.ellipse(out, (int(cx), int(cy)), (int(size), int(size * 0.4)), rng.uniform(0, 180), 0, 360,
                        leaf.tolist(), -1, cv2.LINE_AA)
            continue
        pc = petal_cols[rng.integers(0, 3)].tolist()
        k = int(rng.integers(4, 8))
        for i in range(k):
            a = 2 * math.pi * i / k
            cv2.ellipse(out, (int(cx + math.cos(a) * size * 0.6), int(cy + math.sin(a) * size * 0.6)),
                        (int(size * 0.5), int(size * 0.25)), math.degrees(a), 0, 360, pc, -1, cv2.LINE_AA)
        cv2.circle(out, (int(cx), int(cy)), max(2, int(size * 0.25)), colour(rng).tolist(), -1, cv2.LINE_AA)
    return out


def terrazzo(rng, h, w):
    out = fill(h, w, colour(rng, sat=(0, 0.3), val=(0.5, 0.95)))
    cols = [colour(rng) for _ in range(4)]
    for _ in range(int(h * w / rng.uniform(150, 900))):
        pts = np.int32(np.array([rng.uniform(0, w), rng.uniform(0, h)]) +
                       rng.normal(0, rng.uniform(1.5, 7), size=(int(rng.integers(3, 7)), 2)))
        cv2.fillPoly(out, [pts], cols[rng.integers(0, 4)].tolist(), cv2.LINE_AA)
    return out


def knit(rng, h, w):
    base = colour(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    row = rng.uniform(6, 18)
    col = row * rng.uniform(0.6, 1.0)
    # V-shaped stitches: each column of stitches leans left then right
    phase = (xx % col) / col
    lean = np.abs(phase - 0.5) * 2
    g = 0.5 + 0.5 * np.cos(2 * math.pi * (yy / row + lean * 0.5))
    g = g * (0.75 + 0.25 * np.cos(2 * math.pi * xx / col))
    shade = 0.55 + 0.6 * g[..., None]
    out = base * shade
    if rng.random() < 0.4:  # a second yarn in broad bands
        other = colour(rng)
        bands = ((yy // (row * rng.integers(3, 9))) % 2)[..., None]
        out = out * (1 - bands) + other * shade * bands
    return out


def newsprint(rng, h, w):
    out = fill(h, w, np.float32([rng.uniform(200, 245)] * 3) * np.float32([0.95, 1.0, 1.02]))
    line = rng.uniform(6, 16)
    column_w = rng.uniform(120, 400)
    gap = line * 1.5
    x0 = 0.0
    while x0 < w:
        y = line
        while y < h:
            x = x0 + rng.uniform(0, 8)
            while x < x0 + column_w - 10:
                wl = rng.uniform(line * 0.8, line * 4)
                cv2.rectangle(out, (int(x), int(y - line * 0.6)), (int(min(x + wl, x0 + column_w)), int(y)),
                              (40.0, 40.0, 40.0), -1)
                x += wl + line * 0.5
            y += line * 1.4
        x0 += column_w + gap
    return cv2.GaussianBlur(out, (0, 0), line * 0.08 + 0.3)


def tiles(rng, h, w):
    size = rng.uniform(30, 160)
    grout = colour(rng, sat=(0, 0.2))
    out = fill(h, w, grout)
    base = colour(rng)
    lw = max(1, int(size * rng.uniform(0.03, 0.1)))
    for y in np.arange(0, h, size):
        for x in np.arange(0, w, size):
            c = base * rng.uniform(0.8, 1.2)
            cv2.rectangle(out, (int(x + lw), int(y + lw)), (int(x + size - lw), int(y + size - lw)), c.tolist(), -1)
    return out


def camouflage(rng, h, w):
    cols = [colour(rng) for _ in range(int(rng.integers(3, 5)))]
    cells = int(rng.uniform(4, 30))
    field = np.stack([smooth_noise(rng, h, w, cells) for _ in cols], axis=-1)
    pick = field.argmax(axis=-1)
    return np.stack(cols)[pick]


DRAW = {k: globals()[k] for k in KINDS}


def surface(rng, h, w):
    kind = KINDS[rng.integers(0, len(KINDS))]
    out = DRAW[kind](rng, h, w).astype(np.float32)
    if kind == 'stripes' or rng.random() < 0.5:  # the print turned on the cloth (stripes always)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(0, 180), 1.0)
        out = cv2.warpAffine(out, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    # the cloth's own grain and fold shading
    out *= (0.85 + 0.3 * smooth_noise(rng, h, w, int(rng.integers(3, 8))))[..., None]
    out += rng.normal(0, rng.uniform(1, 6), size=out.shape).astype(np.float32)
    return kind, np.clip(out, 0, 255)


def camera_view(rng, flat, size):
    """The flat surface seen through a tilted camera, with light, blur, noise and JPEG."""
    w, h = size
    fh, fw = flat.shape[:2]
    # a quadrilateral of the flat surface fills the picture: the far (top) side spans more cloth
    tilt = rng.uniform(0, 0.6)
    bw = fw * rng.uniform(0.35, 0.6)
    bh = min(fh * 0.9, bw * h / w * rng.uniform(0.9, 1.3))
    tw = min(fw * 0.98, bw * (1 + tilt))
    cx = fw / 2 + rng.uniform(-1, 1) * (fw - tw) / 2 * 0.9
    y0 = rng.uniform(0, fh - bh)
    skew = rng.uniform(-1, 1) * (fw - tw) / 2 * 0.5
    src = np.float32([[cx - tw / 2 + skew, y0], [cx + tw / 2 + skew, y0], [cx + bw / 2, y0 + bh], [cx - bw / 2, y0 + bh]])
    src[:, 0] = np.clip(src[:, 0], 0, fw - 1)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(flat, m, (w, h), flags=cv2.INTER_AREA if bw > w else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    light = 1 + rng.uniform(0.1, 0.5) * (gx * (xx / w - 0.5) + gy * (yy / h - 0.5))
    vig = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    img = img * (light * vig * rng.uniform(0.6, 1.2))[..., None]
    tint = np.float32(rng.uniform(0.88, 1.12, 3))
    img *= tint
    if rng.random() < 0.7:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.8))
    img += rng.normal(0, rng.uniform(1, 7), size=img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


SIZES = ((1280, 720), (640, 480), (1920, 1080), (1024, 768))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('out')
    ap.add_argument('--tables', type=int, default=120, help='flat surfaces for synth --backgrounds')
    ap.add_argument('--negatives', type=int, default=300, help='camera views with no card')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--classes', help='classes.txt to copy beside the negatives (default: '
                    '../shared/data/real-cards/classes.txt from the checkout)')
    a = ap.parse_args()
    if os.path.exists(a.out):
        sys.exit(f'{a.out} exists: give a new folder')
    here = os.path.dirname(os.path.abspath(__file__))
    classes = a.classes or os.path.join(here, '..', '..', '..', 'shared', 'data', 'real-cards', 'classes.txt')
    for sub in ('tables', 'negatives/images', 'negatives/masks', 'negatives/labels'):
        os.makedirs(os.path.join(a.out, sub))
    if os.path.exists(classes):
        with open(classes) as f, open(os.path.join(a.out, 'negatives', 'classes.txt'), 'w') as g:
            g.write(f.read())
    rng = np.random.default_rng(a.seed)
    for i in range(a.tables):
        kind, flat = surface(rng, 1200, 1600)
        cv2.imwrite(os.path.join(a.out, 'tables', f'busy_{a.seed}_{i:04d}_{kind}.jpg'), flat.astype(np.uint8),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
    for i in range(a.negatives):
        kind, flat = surface(rng, 1200, 1600)
        size = SIZES[rng.integers(0, len(SIZES))]
        img = camera_view(rng, flat, size)
        stem = f'busy_{a.seed}_{i:04d}_{kind}'
        cv2.imwrite(os.path.join(a.out, 'negatives', 'images', stem + '.jpg'), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        cv2.imwrite(os.path.join(a.out, 'negatives', 'masks', stem + '.png'), np.zeros(img.shape[:2], np.uint8))
        open(os.path.join(a.out, 'negatives', 'labels', stem + '.txt'), 'w').close()
        if (i + 1) % 50 == 0:
            print(f'busy_tables: {i + 1}/{a.negatives} negatives', file=sys.stderr)
    print(f'busy_tables: {a.tables} tables, {a.negatives} negatives in {a.out}')


if __name__ == '__main__':
    main()
