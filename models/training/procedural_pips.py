#!/usr/bin/python3
"""Copies of the train designs whose black corner pips (clubs and spades) are redrawn as shapes drawn
at random, for the index reader's training data (models/MODEL.md, "Clubs and spades of other shapes").

Why: on webcam_table the reader reads the compact, solid clubs of that photo set's deck as spades
(eval's per-suit line: clubs recall 0.40), while the clubs of every train design, however blurred or
shrunk, stay clubs. The reader learnt what the few club and spade drawings of the card-art cache look
like rather than what tells the two apart (three round lobes against one pointed top). Here every
card's index pip, in both corners, is replaced by a club or a spade drawn with random proportions
(lobe size and spread, body width, how pointed, stem width and length), in the pip's own ink, so that
only the shape's kind stays fixed. Rank glyphs, card bodies and red suits are the design's own.

usage: procedural_pips.py ART OUT [--seed S] [--copies K]
ART: the synth card-art cache (render_card_art.sh); OUT gets proc<K>-<design>/faces/<RANK><SUIT>.png
for each train design (models/training/designs.json's held-out designs are never copied), laid out
like the cache so that make_patches.py --extra-art OUT reads them. Seeded and reproducible.
"""
import argparse
import os
import sys

import cv2
import numpy as np

import make_patches as mp

SS = 4  # supersampling of the drawn shapes


def club_mask(rng, w, h):
    """A club in a w x h box (uint8 0..255, anti-aliased): three round lobes and a flared stem."""
    W, H = w * SS, h * SS
    m = np.zeros((H, W), np.uint8)
    r = rng.uniform(0.30, 0.42)                       # lobe radius, in box halves
    side_y = rng.uniform(-0.05, 0.25)                 # height of the side lobes' centres
    spread = rng.uniform(0.97, 1.0) - r              # side lobes' centres from the middle
    top_y = -1 + r
    def pt(x, y):                                     # box coordinates (-1..1) to pixels
        return int(round((x + 1) / 2 * (W - 1))), int(round((y + 1) / 2 * (H - 1)))
    rx, ry = r * (W - 1) / 2, r * (H - 1) / 2
    for cx, cy in ((0, top_y), (-spread, side_y), (spread, side_y)):
        cv2.ellipse(m, pt(cx, cy), (int(rx), int(ry)), 0, 0, 360, 255, -1)
    # the joint between the lobes
    jr = rng.uniform(0.6, 1.0) * r
    cv2.ellipse(m, pt(0, (top_y + side_y) / 2 + 0.1), (int(jr * (W - 1) / 2), int(jr * (H - 1) / 2)), 0, 0, 360, 255, -1)
    # stem: narrow at the lobes, flared at the foot
    top_w, foot_w = rng.uniform(0.04, 0.12), rng.uniform(0.18, 0.45)
    stem_top = side_y + 0.1
    poly = np.array([pt(-top_w, stem_top), pt(top_w, stem_top), pt(foot_w, 1), pt(-foot_w, 1)], np.int32)
    cv2.fillPoly(m, [poly], 255)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def spade_mask(rng, w, h):
    """A spade in a w x h box: a heart upside down (one pointed top, two round shoulders) and a stem."""
    W, H = w * SS, h * SS
    m = np.zeros((H, W), np.uint8)
    t = np.linspace(0, 2 * np.pi, 200)
    x = 16 * np.sin(t) ** 3
    y = 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
    # the heart's point is at y = -17 (down in math axes); upside down in image axes it points up
    x = x / 16.0
    y = (y - y.min()) / (y.max() - y.min())           # 0 at the point .. 1 at the lobes
    # pointedness: bend the upper flanks (power < 1 blunter, > 1 sharper)
    y = y ** rng.uniform(0.8, 1.25)
    body_w = rng.uniform(0.85, 1.0)
    body_h = rng.uniform(0.68, 0.85)
    bx = x * body_w
    by = -1 + y * (body_h * 2)                        # point at the top (-1)
    pts = np.stack([(bx + 1) / 2 * (W - 1), (by + 1) / 2 * (H - 1)], 1).astype(np.int32)
    cv2.fillPoly(m, [pts], 255)
    top_w, foot_w = rng.uniform(0.04, 0.12), rng.uniform(0.18, 0.45)
    stem_top = -1 + body_h * 2 - 0.15
    def pt(px, py):
        return int(round((px + 1) / 2 * (W - 1))), int(round((py + 1) / 2 * (H - 1)))
    poly = np.array([pt(-top_w, stem_top), pt(top_w, stem_top), pt(foot_w, 1), pt(-foot_w, 1)], np.int32)
    cv2.fillPoly(m, [poly], 255)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def pip_component(card, centre):
    """Mask, bounding box and ink colour of the ink blob at centre (the index pip) of a BGRA card."""
    a = card[:, :, 3:4].astype(np.float32) / 255
    bgr = (card[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    bw = (gray < 160).astype(np.uint8)
    n, lab, st, _ = cv2.connectedComponentsWithStats(bw, connectivity=8)
    x, y = int(round(centre[0])), int(round(centre[1]))
    if not (0 <= y < lab.shape[0] and 0 <= x < lab.shape[1]) or lab[y, x] == 0:
        return None
    k = lab[y, x]
    mask = lab == k
    ink = np.median(card[:, :, :3][mask], axis=0)
    return mask, st[k][:4], ink


def paint_out(card, mask):
    """Paints the masked ink of a BGRA card out with the paper around it (a ring beyond the ink grown
    by a pixel). Returns the painted pixels."""
    grown = cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    ring = cv2.dilate(grown.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    ring &= ~grown
    paper = np.median(card[ring], axis=0) if ring.any() else np.array([255, 255, 255, 255])
    card[grown] = paper
    return grown


def stamp(card, shape, x0, y0, ink):
    """Blends coverage mask shape (uint8 0..255) into the BGRA card at (x0, y0) in the BGR ink.
    Returns False when none of it falls on the card."""
    H, W = card.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + shape.shape[1]), min(H, y0 + shape.shape[0])
    if xb <= xa or yb <= ya:
        return False
    s = shape[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.float32)[..., None] / 255
    region = card[ya:yb, xa:xb].astype(np.float32)
    inked = np.concatenate([np.broadcast_to(ink, region[..., :3].shape), np.full(region[..., 3:].shape, 255.0)], 2)
    card[ya:yb, xa:xb] = (region * (1 - s) + inked * s).astype(np.uint8)
    return True


def redraw(rng, card, centre, kind):
    """Paints the pip at centre out (with the paper around it) and draws a new one of kind 'C' or 'S'
    in its box. Returns False when no pip is there."""
    found = pip_component(card, centre)
    if found is None:
        return False
    mask, (x, y, w, h), ink = found
    paint_out(card, mask)
    # the new pip: the old box, a little narrower or wider, bottom-aligned
    nw = max(3, int(round(w * rng.uniform(0.85, 1.1))))
    nh = max(3, int(round(h * rng.uniform(0.9, 1.05))))
    x0 = int(round(x + (w - nw) / 2))
    y0 = y + h - nh
    shape = club_mask(rng, nw, nh) if kind == 'C' else spade_mask(rng, nw, nh)
    return stamp(card, shape, x0, y0, ink)


def design_copies(roots, copies, prefix, out):
    """For each copy and each train design (of the card-art folders roots, the first holding a name
    winning): (copy, name, its 52 BGRA faces by class, the output faces folder, made). Designs whose
    faces are incomplete are skipped with a message."""
    where = {}
    for root in roots:
        for d in sorted(os.listdir(root)):
            if os.path.isdir(os.path.join(root, d, 'faces')) and d not in where:
                where[d] = root
    names = sorted(n for n in where if n not in mp.NEVER and n not in mp.HELD_OUT_DESIGNS)
    for copy in range(copies):
        for n in names:
            cells = mp.load_cardart(os.path.join(where[n], n))
            if cells is None:
                print(f'{n}: incomplete, skipped', file=sys.stderr)
                continue
            outdir = os.path.join(out, f'{prefix}{copy}-{n}', 'faces')
            os.makedirs(outdir, exist_ok=True)
            yield copy, n, cells, outdir


def court_frame(rng, card, info, pip_box, inner_pip):
    """The layout of most US decks' court cards: the picture's frame drawn a little right of the index
    column and below its top, and a larger pip of the suit just inside the frame's corner, beside the
    index pip. card: BGRA (changed in place); info: index_blobs' (rank centres, pip centre, glyph
    size); pip_box: the index pip's x, y, w, h; inner_pip: that pip's BGRA crop."""
    H, W = card.shape[:2]
    ranks, pip, g = info
    x, y, w, h = pip_box
    glyph = min(ranks, key=lambda c: abs(c[0] - pip[0]))   # a court card's rank is one glyph
    right = max(glyph[0] + 0.5 * g, x + w)
    fx = int(round(right + rng.uniform(0.08, 0.6) * w))
    fy = int(round(glyph[1] - rng.uniform(0.0, 0.5) * g))
    thick = max(1, int(round(rng.uniform(0.003, 0.008) * H)))
    ink = tuple(float(v) for v in rng.uniform(0, 60, 3)) + (255.0,)
    cv2.rectangle(card, (fx, fy), (W - 1 - fx, H - 1 - fy), ink, thick, cv2.LINE_AA)
    if rng.random() < 0.7:
        k = rng.uniform(1.0, 1.6)
        big = cv2.resize(inner_pip, None, fx=k, fy=k, interpolation=cv2.INTER_LINEAR)
        bx = fx + thick + int(rng.uniform(0.1, 0.5) * w)
        by = int(round(y + h / 2 - big.shape[0] / 2 + rng.uniform(-0.5, 0.5) * h))
        for cx0, cy0, im in ((bx, by, big), (W - bx - big.shape[1], H - by - big.shape[0], big[::-1, ::-1])):
            xa, ya = max(0, cx0), max(0, cy0)
            xb, yb = min(W, cx0 + im.shape[1]), min(H, cy0 + im.shape[0])
            if xb <= xa or yb <= ya:
                continue
            a = im[ya - cy0:yb - cy0, xa - cx0:xb - cx0, 3:4].astype(np.float32) / 255
            reg = card[ya:yb, xa:xb].astype(np.float32)
            src = im[ya - cy0:yb - cy0, xa - cx0:xb - cx0].astype(np.float32)
            card[ya:yb, xa:xb] = (reg * (1 - a) + src * a).astype(np.uint8)


def index_of(card):
    """index_blobs_any, kept only when the pip lies under the rank glyph (on some court cards the blob
    found below the rank is the picture's own pip or art)."""
    info = mp.index_blobs_any(card)
    if info is None:
        return None
    ranks, pip, g = info
    if min(abs(pip[0] - c[0]) for c in ranks) > 0.6 * g or pip[1] - max(c[1] for c in ranks) > 1.6 * g:
        return None
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('art'); ap.add_argument('out')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--copies', type=int, default=1, help='copies of each design, each with its own shapes')
    ap.add_argument('--court-frames', type=float, default=0.0,
                    help="share of court cards (J, Q, K of every suit) given a US deck's picture frame beside the "
                         "index and a larger pip inside it (court_frame())")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    for copy, n, cells, outdir in design_copies([a.art], a.copies, 'proc', a.out):
        redrawn = 0
        for s in range(4):
            for r in range(13):
                card = cells[mp.class_index(r, s)].copy()
                suit = mp.SUITS[s]
                if suit in 'CS':
                    info = index_of(card)
                    if info is not None:
                        pip = info[1]
                        ok = redraw(rng, card, pip, suit)
                        # the bottom-right index: at the same place once the card is turned half a turn
                        turned = np.ascontiguousarray(card[::-1, ::-1])
                        if ok and redraw(rng, turned, pip, suit):
                            card = np.ascontiguousarray(turned[::-1, ::-1])
                        redrawn += ok
                if r >= 10 and rng.random() < a.court_frames:
                    info = index_of(card)
                    found = pip_component(card, info[1]) if info is not None else None
                    if found is not None:
                        mask, (x, y, w, h), _ = found
                        crop = card[y:y + h, x:x + w].copy()
                        crop[..., 3] = np.where(mask[y:y + h, x:x + w], 255, 0).astype(np.uint8)
                        court_frame(rng, card, info, (x, y, w, h), crop)
                cv2.imwrite(os.path.join(outdir, mp.RANKS[r] + suit + '.png'), card)
        print(f'proc{copy}-{n}: {redrawn}/26 black index pips redrawn', file=sys.stderr)


if __name__ == '__main__':
    main()
