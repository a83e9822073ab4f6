"""Synthetic training patches for the corner-index classifier.

Cards of the train designs of the card-art cache (GNOME and KDE) are laid out overlapping on random
tables (half the scenes with small cards, indices 6-14 px tall; 30% dark-faced decks), warped
(rotation, perspective, squash), lit, blurred, noised and JPEG-compressed; the
multi-scale candidate proposals of proposals.py (identical to the C++ pipeline) run on each scene,
and each candidate patch is labelled with the card whose corner index it covers, or 52
("not an index"). Seeded and reproducible.

usage: make_patches.py ART OUT.npz --scenes N --seed S [--designs train|heldout|a,b,...]
                       [--small-frac F] [--dark-frac F] [--split-levels L] [--min-blob0 B]
                       [--after-gate GATE.onnx [--gate-threshold T]]
ART: the synth generator's card-art cache (render_card_art.sh: GNOME and KDE designs, one folder per
design, named as the generator names them; designs whose faces are incomplete are skipped).
"""
import argparse, json, os, sys
import cv2
import numpy as np
import proposals as pr
cv2.setNumThreads(1)

SUITS = 'CDHS'
RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K']
# Held out from training: the project's one split, models/training/designs.json ("heldout"), in the
# synth generator's design names; designs with no index (tango-nuevo, ornamental) or non-French
# ranks (slavic-costumes) are never used.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'designs.json')) as _f:
    HELD_OUT_DESIGNS = set(json.load(_f)['heldout'])
NEVER = {'gnome-tango-nuevo', 'gnome-slavic-costumes', 'gnome-ornamental'}


def class_index(rank, suit):      # scoring::Card::index(): suit * 13 + rank - 1
    return suit * 13 + rank


def load_cardart(design_dir):
    """The 52 faces of one design of the synth card-art cache (render_card_art.sh): faces/<RANK><SUIT>.png."""
    cells = {}
    for s in range(4):
        for r in range(13):
            im = cv2.imread(os.path.join(design_dir, 'faces', RANKS[r] + SUITS[s] + '.png'), cv2.IMREAD_UNCHANGED)
            if im is None or im.ndim != 3:
                return None
            if im.shape[2] == 3:   # a few renders come without alpha
                im = np.dstack([im, np.full(im.shape[:2], 255, np.uint8)])
            cells[class_index(r, s)] = im
    return cells


def index_blobs(card, max_glyph=0.16, colour=False):
    """Rank-glyph and pip blob centres of the top-left index of a flat card image (BGRA); glyphs up to
    max_glyph of the card height (index_blobs_any retries with the larger KDE indices). Ink is
    darker than grey 160; with colour, also any colour far from white (a four-colour deck's yellow
    diamonds are lighter than that grey: the L1 distance to white over 200)."""
    h, w = card.shape[:2]
    a = card[:, :, 3:4].astype(np.float32) / 255
    flat = (card[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8)
    gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
    bw = gray < 160
    if colour:
        bw |= (765 - flat.astype(np.int32).sum(2)) > 200
    bw = bw.astype(np.uint8)
    n, lab, st, cen = cv2.connectedComponentsWithStats(bw, connectivity=8)
    cand = []
    for i in range(1, n):
        x, y, bw_, bh, ar = st[i]
        if x < 0.25 * w and y < 0.36 * h and 0.03 * h < max(bw_, bh) < max_glyph * h and ar > 8 and x > 1 and y > 1:
            cand.append((y, x, bw_, bh, cen[i]))
    if len(cand) < 2:
        return None
    cand.sort()
    top = cand[0]
    rank = [c for c in cand if abs(c[0] - top[0]) < 0.3 * top[3] and c[1] < top[1] + 2.5 * top[2]]
    below = [c for c in cand if c[0] > top[0] + 0.6 * top[3]]
    if not below:
        return None
    pip = min(below, key=lambda c: c[0])
    return [c[4] for c in rank], pip[4], max(top[2], top[3])


def index_blobs_any(card):
    """index_blobs, retried for the large indices of some designs (KDE nicu: rank glyph 0.19 of the
    height), then with light coloured ink (the yellow diamonds of gnome-anglo-modern-4-color, left out
    of every reader's data until 2026-11-29)."""
    return (index_blobs(card) or index_blobs(card, 0.21) or index_blobs(card, colour=True)
            or index_blobs(card, 0.21, colour=True))


def random_background(rng, H, W):
    base = rng.uniform(0, 255, 3)
    bg = np.empty((H, W, 3), np.float32); bg[:] = base
    # gradient light
    gx, gy = np.meshgrid(np.linspace(-1, 1, W), np.linspace(-1, 1, H))
    bg += (rng.uniform(-60, 60) * gx + rng.uniform(-60, 60) * gy)[..., None]
    # texture
    if rng.random() < 0.7:
        noise = cv2.resize(rng.normal(0, 1, (H // 8 + 1, W // 8 + 1)).astype(np.float32), (W, H))
        bg += (rng.uniform(5, 35) * noise)[..., None]
    if rng.random() < 0.5:
        bg += rng.normal(0, rng.uniform(2, 12), (H, W, 1))
    bg = np.clip(bg, 0, 255).astype(np.uint8)
    # clutter: text (keyboards, print), lines, blobs
    for _ in range(rng.integers(0, 14)):
        txt = ''.join(rng.choice(list('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789?/<>,.;-+=&%$#@!')) for _ in range(rng.integers(1, 4)))
        col = tuple(int(v) for v in rng.uniform(0, 255, 3))
        cv2.putText(bg, txt, (int(rng.uniform(0, W)), int(rng.uniform(0, H))), int(rng.integers(0, 8)),
                    rng.uniform(0.4, 2.0), col, int(rng.integers(1, 4)), cv2.LINE_AA)
    for _ in range(rng.integers(0, 6)):
        col = tuple(int(v) for v in rng.uniform(0, 255, 3))
        p1 = (int(rng.uniform(0, W)), int(rng.uniform(0, H))); p2 = (int(rng.uniform(0, W)), int(rng.uniform(0, H)))
        if rng.random() < 0.5:
            cv2.line(bg, p1, p2, col, int(rng.integers(1, 8)))
        else:
            cv2.ellipse(bg, p1, (int(rng.uniform(3, 40)), int(rng.uniform(3, 40))), rng.uniform(0, 180), 0, 360, col, -1)
    return bg


def make_scene(rng, decks, H=480, W=None, small_frac=0.0, dark_frac=0.2, spread_frac=0.0):
    """One scene: (bgr image, list of (class, A-centres, pip-centre, z-map id)), id map. W None: 640
    (4:3) or 854 (16:9, which the 640x640 export squashes like the webcam photos) at random.
    spread_frac: share of scenes laid out as spreads (below), the rest as fans or scattered."""
    if W is None:
        W = 854 if rng.random() < 0.5 else 640
    img = random_background(rng, H, W).astype(np.float32)
    ids = np.full((H, W), -1, np.int32)
    cards = []
    ncards = int(rng.integers(1, 15))
    design = decks[int(rng.integers(0, len(decks)))]
    dark = rng.random() < dark_frac
    # cluster centre for overlaps/fans
    cx0, cy0 = rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H
    if rng.random() < small_frac:   # small cards: indices 6-14 px tall, as on webcam_table
        card_h = float(np.exp(rng.uniform(np.log(40), np.log(130))))
    else:
        card_h = float(np.exp(rng.uniform(np.log(60), np.log(420))))  # real indices: 12-40 px
    layout = rng.random()
    spread = layout < spread_frac
    fan = not spread and layout < spread_frac + 0.4 * (1 - spread_frac)
    ang0 = rng.uniform(0, 360)
    if spread:
        # Spreads as on real tables: one or two rows of cards of one orientation, each on the one
        # before and shifted along the card's width by 12-45% of it, so that only the strip with a
        # corner index shows, and the next card's index sits right beside it (the hard case on the
        # webcam photos: a patch holds parts of the neighbours' glyphs).
        ncards = int(rng.integers(4, 17))
        rows = 2 if ncards >= 8 and rng.random() < 0.4 else 1
        step = rng.uniform(0.12, 0.45) * (1 if rng.random() < 0.5 else -1)
        t = np.radians(ang0)
        ux, uy, vx, vy = np.cos(t), -np.sin(t), np.sin(t), np.cos(t)   # the card's x and y axes in the image
        row_gap = rng.uniform(1.02, 1.5) * rng.choice([-1, 1])
    for k in range(ncards):
        cls = int(rng.integers(0, 52))
        art, info = design[cls]
        if info is None:
            continue
        ch, cw = art.shape[:2]
        s = card_h * rng.uniform(0.9, 1.1) / ch
        if spread:
            per_row = (ncards + rows - 1) // rows
            r, j = divmod(k, per_row)
            cw_img = cw * s
            off = (j - (per_row - 1) / 2) * step * cw_img * rng.uniform(0.85, 1.15)
            roff = (r - (rows - 1) / 2) * row_gap * card_h
            ang = ang0 + rng.normal(0, 2.0)
            cx, cy = cx0 + off * ux + roff * vx, cy0 + off * uy + roff * vy
        elif fan:
            ang = ang0 + k * rng.uniform(5, 25)
            cx, cy = cx0 + rng.normal(0, 0.03) * W, cy0 + rng.normal(0, 0.03) * H
        else:
            ang = rng.uniform(0, 360)
            cx, cy = cx0 + rng.normal(0, 0.3) * W, cy0 + rng.normal(0, 0.3) * H
        M = cv2.getRotationMatrix2D((cw / 2, ch / 2), ang, s)
        M[0, 2] += cx - cw / 2; M[1, 2] += cy - ch / 2
        # perspective: jitter the 4 corners
        src = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
        dst = cv2.transform(src[None], M)[0]
        dst += rng.normal(0, 0.06 * card_h, dst.shape).astype(np.float32)
        P = cv2.getPerspectiveTransform(src, dst)
        rgb = art[:, :, :3].astype(np.float32)
        if dark:
            rgb = 255 - rgb
            rgb = rgb * np.float32([rng.uniform(0.3, 1.0), rng.uniform(0.6, 1.0), rng.uniform(0.7, 1.0)])
        warped = cv2.warpPerspective(np.dstack([rgb, art[:, :, 3].astype(np.float32)]), P, (W, H), flags=cv2.INTER_LINEAR)
        a = warped[:, :, 3:4] / 255.0
        img = img * (1 - a) + warped[:, :, :3] * a
        ids[a[:, :, 0] > 0.5] = len(cards)
        ranks, pip, gsize = info
        # both corners: top-left and the 180-degree one (bottom-right)
        pts = []
        for rot in (False, True):
            rp = [np.float32(r) for r in ranks]; pp = np.float32(pip)
            if rot:
                rp = [np.float32([cw - r[0], ch - r[1]]) for r in rp]; pp = np.float32([cw - pp[0], ch - pp[1]])
            allp = cv2.perspectiveTransform(np.float32([*rp, pp])[None], P)[0]
            pts.append((allp[:-1], allp[-1]))
        cards.append((cls, pts, gsize * s))
    return img, ids, cards


def degrade(rng, img, glyph):
    """Camera faults scaled to the cards' size, as on the webcam photos (a card held up and moved, a
    far camera out of focus, a dim room): motion blur 0.1-0.8 of a glyph's height long, defocus of
    sigma 0.05-0.25 of it, and dim light with a colour cast. glyph: rank-glyph height, scene pixels.
    Float image in, float image out."""
    if rng.random() < 0.4:
        n = max(3, int(round(rng.uniform(0.1, 0.8) * glyph)) | 1)
        k = np.zeros((n, n), np.float32); k[n // 2, :] = 1
        k = cv2.warpAffine(k, cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), rng.uniform(0, 180), 1.0), (n, n))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), max(0.5, rng.uniform(0.05, 0.25) * glyph))
    if rng.random() < 0.4:
        img = img * np.float32([rng.uniform(0.25, 0.7) * rng.uniform(0.7, 1.0) for _ in range(3)])
        img = img + rng.normal(0, rng.uniform(1, 6), img.shape).astype(np.float32)
    return img


def photometric(rng, img):
    img = img * rng.uniform(0.4, 1.3) + rng.uniform(-40, 40)
    if rng.random() < 0.3:  # glare spot
        H, W = img.shape[:2]
        yy, xx = np.mgrid[0:H, 0:W]
        cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(20, 200)
        img = img + (rng.uniform(40, 160) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)))[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        k = rng.choice([3, 5]); img = cv2.GaussianBlur(img, (int(k), int(k)), rng.uniform(0.3, 1.5))
    if rng.random() < 0.5:
        img = np.clip(img + rng.normal(0, rng.uniform(2, 12), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # salt and pepper like the exported set
        m = rng.random(img.shape[:2]); p = rng.uniform(0.002, 0.02)
        img[m < p / 2] = 0; img[m > 1 - p / 2] = 255
    q = int(rng.uniform(30, 95))
    img = cv2.imdecode(cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    # squash like the stretched 640x640 export, then a random final size
    H, W = img.shape[:2]
    if rng.random() < 0.6:
        img = cv2.resize(img, (640, 640), interpolation=cv2.INTER_AREA)
    return img


def zoom_cut(rng, gray, cands, patches, z):
    """Half of the cut patches cut again with the pair's A-B span scaled by exp(U(-z, z)) about its
    middle, from the pyramid level the detector would take for that span. The detector cuts a patch
    from the distance between the blobs' centres, so a design whose rank glyph is tall against that
    distance (the phone close-ups' deck) gives a tighter patch than most training designs do; v3
    read such patches right only within a narrow band of zooms (MODEL.md, v3.2)."""
    levels = pr.pyramid(cv2.medianBlur(gray, 3))
    inv_levels = [255 - lev for lev in levels]
    out = list(patches)
    for n, p in enumerate(patches):
        if p is None or rng.random() >= 0.5:
            continue
        f = float(np.exp(rng.uniform(-z, z)))
        ax, ay, bx, by, inv = cands[n]
        mx, my = (ax + bx) / 2, (ay + by) / 2
        out[n] = pr.cut_candidate(levels, inv_levels, mx + (ax - mx) * f, my + (ay - my) * f,
                                  mx + (bx - mx) * f, my + (by - my) * f, inv)
    return out


def passed_gate(gate, patches, threshold):
    """The patches the gate net (softmax 2: not an index, index) passes at threshold; the others None."""
    from train_index_cnn import normalise   # (torch only for this option)
    out = list(patches)
    for start in range(0, len(patches), 1024):
        part = patches[start:start + 1024]
        gate.setInput(np.ascontiguousarray(normalise(np.stack(part))[:, None]))
        p = gate.forward().reshape(len(part), 2)[:, 1]
        for k in np.flatnonzero(p < threshold):
            out[start + int(k)] = None
    return out


def label_candidates(cands, cards, ids, scale_xy):
    """Class of each candidate (A centre, B centre): the card whose index it is, else 52."""
    sx, sy = scale_xy
    c = np.array(cands, np.float64).reshape(-1, 4)
    labels = np.full(len(c), 52, np.int64)
    for ci, (cls, pts, gsize) in enumerate(cards):
        tol = 0.45 * gsize * max(sx, sy)
        for rp, pp in pts:
            pb = pp * [sx, sy]
            okb = np.hypot(c[:, 2] - pb[0], c[:, 3] - pb[1]) <= tol
            oka = np.zeros(len(c), bool)
            for r in rp:
                oka |= np.hypot(c[:, 0] - r[0] * sx, c[:, 1] - r[1] * sy) <= tol
            ix, iy = int(pb[0] / sx), int(pb[1] / sy)
            visible = 0 <= iy < ids.shape[0] and 0 <= ix < ids.shape[1] and ids[iy, ix] == ci
            if visible:
                labels[okb & oka] = cls
    return labels.tolist()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('art'); ap.add_argument('out')
    ap.add_argument('--scenes', type=int, default=2000); ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--designs', default='train', help="'train', 'heldout' or a comma list")
    ap.add_argument('--extra-art', action='append', default=[],
                    help='another folder of designs laid out like the cache (render_kde_trimmed.py); repeatable')
    ap.add_argument('--neg-ratio', type=float, default=3.0)
    ap.add_argument('--small-frac', type=float, default=0.5, help='share of scenes with small cards (indices 6-14 px)')
    ap.add_argument('--dark-frac', type=float, default=0.3, help='share of scenes with dark-faced (inverted, tinted) decks')
    ap.add_argument('--spread-frac', type=float, default=0.35,
                    help='share of scenes laid out as spreads (rows of cards shifted by a strip each)')
    ap.add_argument('--degrade-frac', type=float, default=0.0,
                    help='share of scenes with camera faults scaled to the cards (motion blur, defocus, dim light; degrade())')
    ap.add_argument('--zoom-jitter', type=float, default=0.0,
                    help='half of each kept patch (positive or not) is cut again at a zoom of exp(U(-Z, Z)) about '
                         'the pair\'s middle, so the reader meets the rank-to-pip proportions of other designs '
                         '(zoom_cut())')
    ap.add_argument('--split-levels', type=int, default=pr.SPLIT_LEVELS,
                    help='pyramid levels whose oversized ink blobs are split (C++ ProposalParams::splitLevels)')
    ap.add_argument('--min-blob0', type=int, default=pr.MIN_BLOB0,
                    help='smallest blob at pyramid level 0 (C++ ProposalParams::minBlobLevel0)')
    ap.add_argument('--after-gate', metavar='GATE.onnx',
                    help='keep every candidate this gate passes (at --gate-threshold) instead of the positives '
                         'and --neg-ratio sampled negatives: the patches the reader gets in the detector, the '
                         'data of the second gate (train_gate2.py)')
    ap.add_argument('--gate-threshold', type=float, default=0.3, help='with --after-gate (C++ DetectorOptions::gateThreshold)')
    a = ap.parse_args()
    pr.SPLIT_LEVELS, pr.MIN_BLOB0 = a.split_levels, a.min_blob0
    rng = np.random.default_rng(a.seed)
    gate = cv2.dnn.readNetFromONNX(a.after_gate) if a.after_gate else None
    if not os.path.isfile(os.path.join(a.art, 'manifest.json')):
        sys.exit(f'{a.art}: no card-art cache (render it with render_card_art.sh)')
    names = sorted(d for d in os.listdir(a.art) if os.path.isdir(os.path.join(a.art, d, 'faces')))
    where = {n: a.art for n in names}
    for extra in a.extra_art:   # render_kde_trimmed.py: KDE designs render_card_art.sh skips
        for d in sorted(os.listdir(extra)):
            if os.path.isdir(os.path.join(extra, d, 'faces')) and d not in where:
                where[d] = extra
                names.append(d)
    names.sort()
    names = [n for n in names if n not in NEVER]
    if a.designs == 'train':
        names = [n for n in names if n not in HELD_OUT_DESIGNS]
    elif a.designs == 'heldout':
        names = [n for n in names if n in HELD_OUT_DESIGNS]
    else:
        names = a.designs.split(',')
    decks = []
    for n in names:
        cells = load_cardart(os.path.join(where.get(n, a.art), n))
        if cells is None:
            print(f'{n}: incomplete, skipped', file=sys.stderr)
            continue
        d = {c: (art, index_blobs_any(art)) for c, art in cells.items()}
        bad = sum(v[1] is None for v in d.values())
        print(f'{n}: index found on {52 - bad}/52', file=sys.stderr)
        if bad > 26:
            print(f'{n}: too few indices found, skipped', file=sys.stderr)
            continue
        decks.append(d)
    X, Y = [], []
    for i in range(a.scenes):
        img, ids, cards = make_scene(rng, decks, small_frac=a.small_frac, dark_frac=a.dark_frac, spread_frac=a.spread_frac)
        H, W = img.shape[:2]
        if a.degrade_frac > 0 and cards and rng.random() < a.degrade_frac:
            img = degrade(rng, img, float(np.median([c[2] for c in cards])))
        img = photometric(rng, img)
        sx, sy = img.shape[1] / W, img.shape[0] / H
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        sel = {}
        def select(cands):
            labels = label_candidates([c[:4] for c in cands], cards, ids, (sx, sy))
            pos = [k for k, l in enumerate(labels) if l < 52]
            neg = [k for k, l in enumerate(labels) if l == 52]
            nneg = min(len(neg), max(4, int(a.neg_ratio * max(len(pos), 1))))
            keep = pos + [int(k) for k in rng.choice(neg, nneg, replace=False)] if neg else pos
            sel['labels'] = labels
            return keep if gate is None else range(len(cands))
        cands, patches = pr.propose(gray, select)
        if gate is not None and patches:
            patches = passed_gate(gate, patches, a.gate_threshold)
        if a.zoom_jitter > 0:
            patches = zoom_cut(rng, gray, cands, patches, a.zoom_jitter)
        for k, p in enumerate(patches):
            if p is not None:
                X.append(p); Y.append(sel['labels'][k])
        if i % 200 == 0:
            print(f'scene {i}: {len(X)} patches, {sum(1 for y in Y if y < 52)} positive', file=sys.stderr)
    np.savez_compressed(a.out, x=np.array(X, np.uint8), y=np.array(Y, np.int64))
    print(f'{len(X)} patches, {sum(1 for y in Y if y < 52)} positive -> {a.out}', file=sys.stderr)


if __name__ == '__main__':
    main()
