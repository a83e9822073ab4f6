#!/usr/bin/python3
"""Where the corner indices of a labelled folder are lost, and what a change to the reading would do.

Runs the Python twin of the detector's reading stage (proposals.py, the gate, the reader; the
pictures first brought to the detector's working size) over a folder laid out like
../shared/data/real-cards (or a synthetic set of `nertzref-cli synth`), caches every candidate with
its gate and reader probabilities, and reports from the cache:

  fate      per labelled corner index: no candidate / stopped by the gate / read right at >= 0.80 /
            right but below / misread / "not an index"; card-level precision and recall per threshold
            (the twin has no grouping or outlines, so its figures are near, not equal to, `eval`'s)
  suits     for the indices not read right: rank right, suit wrong and the other way round; the suit
            read for each true suit by the card's orientation (upright / diagonal / sideways)
  colour    card level with the pip's ink colour as a constraint: red ink -> hearts or diamonds,
            neutral ink -> clubs or spades, a glow -> not an index (the detector's pip_colour.cpp;
            MODEL.md, "Faces, 2026-11-24")

usage: index_fate.py cache DIR CACHE.pkl [--models DIR]
       index_fate.py fate|suits CACHE.pkl
       index_fate.py colour CACHE.pkl DIR [--red-chroma C] [--neutral-chroma C]
Needs python3-opencv, python3-numpy and python3-torch (Debian); run with /usr/bin/python3.
"""
import argparse, os, pickle, sys
from collections import Counter

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proposals as P  # noqa: E402
from train_index_cnn import normalise  # noqa: E402  (the reader's patch stretch)

RANKS = 'A 2 3 4 5 6 7 8 9 10 J Q K'.split()
SUITS = 'CDHS'
WORK_MIN, WORK_MAX = 960, 1280       # DetectorOptions::workMinSide / workMaxSide
GATE, MIN_CONF = 0.30, 0.80          # DetectorOptions::gateThreshold / minConfidence
RED_HUE = (10.0, 60.0)               # Lab hue of red ink (degrees from +a towards +b)
NOT_FACES = ('BACK', 'BLACK JOKER', 'RED JOKER')


def face(k):
    return '-' if k == 52 else RANKS[k % 13] + SUITS[k // 13]


def forward(net, x):
    out = []
    for i in range(0, len(x), 1024):
        net.setInput(x[i:i + 1024, None])
        out.append(net.forward().copy())
    return np.concatenate(out)


def classes_of(folder):
    """The class names of a labelled folder: its classes.txt, or its parent's (real-cards groups)."""
    cp = os.path.join(folder, 'classes.txt')
    if not os.path.exists(cp):
        cp = os.path.join(os.path.dirname(folder.rstrip('/')), 'classes.txt')
    return [line.strip() for line in open(cp)]


def work_copy(img):
    """(the picture at the detector's working size, its scale)."""
    H, W = img.shape[:2]
    s = WORK_MAX / max(H, W) if max(H, W) > WORK_MAX else (WORK_MIN / max(H, W) if max(H, W) < WORK_MIN else 1.0)
    work = img if s == 1 else cv2.resize(img, None, fx=s, fy=s,
                                         interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    return work, s


def cache(folder, out, models):
    classes = classes_of(folder)
    gate = cv2.dnn.readNetFromONNX(os.path.join(models, 'index_gate.onnx'))
    reader = cv2.dnn.readNetFromONNX(os.path.join(models, 'index_cnn.onnx'))
    res = {}
    names = sorted(os.listdir(os.path.join(folder, 'images')))
    for n, fn in enumerate(names):
        img = cv2.imread(os.path.join(folder, 'images', fn))
        if img is None:
            sys.exit(f'{fn}: not a picture')
        H, W = img.shape[:2]
        work, s = work_copy(img)
        cands, patches = P.propose(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY))
        x = normalise(np.stack(patches)) if patches else np.zeros((0, 40, 24), np.float32)
        gp = forward(gate, x)[:, 1] if len(x) else np.zeros(0, np.float32)
        rp = np.zeros((len(x), 53), np.float32)
        if (gp >= GATE).any():
            rp[gp >= GATE] = forward(reader, x[gp >= GATE])
        truth = []
        label = os.path.join(folder, 'labels', os.path.splitext(fn)[0] + '.txt')
        for line in open(label) if os.path.exists(label) else []:
            p = line.split()
            if len(p) != 5 or classes[int(p[0])] in NOT_FACES:
                continue
            cx, cy, w, h = (float(v) for v in p[1:])
            truth.append((classes[int(p[0])], cx * W, cy * H, w * W, h * H))
        res[fn] = dict(cands=np.array([c[:4] for c in cands], np.float32).reshape(-1, 4) / s, x=x, gp=gp, rp=rp,
                       truth=truth)
        print(f'\r{n + 1}/{len(names)} pictures', end='', file=sys.stderr)
    print(file=sys.stderr)
    pickle.dump(res, open(out, 'wb'))


def at_index(r, t):
    """Candidates whose middle lies in the labelled index box t, and passed the gate."""
    c = r['cands']
    mid = (c[:, :2] + c[:, 2:]) / 2
    _, cx, cy, w, h = t
    inb = (abs(mid[:, 0] - cx) < w / 2) & (abs(mid[:, 1] - cy) < h / 2)
    return np.where(inb)[0], np.where(inb & (r['gp'] >= GATE))[0]


def card_level(res, probs=None, thr=MIN_CONF):
    tp = fp = fn = 0
    for name, r in res.items():
        rp = r['rp'] if probs is None else probs[name]
        top, pr = rp.argmax(1), rp.max(1)
        pred = {face(top[i]) for i in range(len(rp)) if r['gp'][i] >= GATE and top[i] < 52 and pr[i] >= thr}
        truth = {t[0] for t in r['truth']}
        tp += len(pred & truth); fp += len(pred - truth); fn += len(truth - pred)
    p, rc = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return f'P {p:.3f} R {rc:.3f} F1 {2 * p * rc / max(p + rc, 1e-9):.3f} (tp {tp} fp {fp} fn {fn})'


def fate(res):
    out = Counter()
    for r in res.values():
        top, pr = r['rp'].argmax(1), r['rp'].max(1)
        for t in r['truth']:
            anyc, ii = at_index(r, t)
            if len(anyc) == 0: out['no candidate'] += 1; continue
            if len(ii) == 0: out['stopped by the gate'] += 1; continue
            right = [face(top[j]) == t[0] for j in ii]
            if any(ok and pr[j] >= MIN_CONF for ok, j in zip(right, ii)): out['read right'] += 1
            elif any(right): out['right, below 0.80'] += 1
            elif any(top[j] < 52 and pr[j] >= MIN_CONF for j in ii): out['misread at >= 0.80'] += 1
            elif any(top[j] < 52 for j in ii): out['misread below 0.80'] += 1
            else: out['"not an index"'] += 1
    n = sum(out.values())
    print(f'{n} labelled corner indices:')
    for k, v in out.most_common():
        print(f'  {k:22s} {v:5d} ({v / n:.1%})')
    for thr in (0.5, 0.6, 0.7, 0.8, 0.9):
        print(f'card level at {thr}: {card_level(res, thr=thr)}')


def suits(res):
    kinds = Counter(); conf = Counter(); orient = Counter()
    for r in res.values():
        c, rp = r['cands'], r['rp']
        for t in r['truth']:
            _, ii = at_index(r, t)
            if len(ii) == 0: continue
            b = ii[rp[ii, :52].sum(1).argmax()]          # the candidate surest it is an index
            p = rp[b, :52].reshape(4, 13)
            if p.sum() < 0.5: kinds['p(index) < 0.5'] += 1; continue
            rank, suit = RANKS.index(t[0][:-1]), SUITS.index(t[0][-1])
            pr, ps = p.sum(0).argmax(), p.sum(1).argmax()
            up = c[b, :2] - c[b, 2:]
            ang = np.degrees(np.arctan2(abs(up[0]), abs(up[1])))
            orient[(t[0][-1], 'upright' if ang < 30 else ('sideways' if ang > 60 else 'diagonal'), SUITS[ps])] += 1
            if rp[b, suit * 13 + rank] >= MIN_CONF: kinds['read right'] += 1; continue
            kinds[('rank right' if pr == rank else 'rank wrong') + ', ' + ('suit right' if ps == suit else 'suit wrong')] += 1
            if ps != suit: conf[t[0][-1] + ' read as ' + SUITS[ps]] += 1
    print('best candidate of each labelled index:', dict(kinds.most_common()))
    print('suit errors:', dict(conf.most_common()))
    for s in SUITS:
        for o in ('upright', 'diagonal', 'sideways'):
            row = {x: orient[(s, o, x)] for x in SUITS}
            if sum(row.values()): print(f'  true {s}, {o:8s}: read as {row}')


def pip_ink(lab, bx, by, d):
    """(chroma, hue in degrees, lightness step, glow) of the ink at the pip centre (bx, by) against
    the paper around it (a ring 0.35-0.5 d out), in Lab; None at the picture's border. glow: the
    centre is lighter than the ring and its own colour is strong (chroma > 25) at a hue of 110-340
    degrees: a lit key or a screen (pip_colour.cpp, PipInk::Glow)."""
    x0, x1 = int(np.floor(bx - d / 2)), int(np.ceil(bx + d / 2)) + 1
    y0, y1 = int(np.floor(by - d / 2)), int(np.ceil(by + d / 2)) + 1
    if x0 < 0 or y0 < 0 or x1 > lab.shape[1] or y1 > lab.shape[0]:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    rr = np.hypot(xx - bx, yy - by)
    core, ring = lab[y0:y1, x0:x1][rr <= max(1.0, 0.12 * d)], lab[y0:y1, x0:x1][(rr >= 0.35 * d) & (rr <= 0.5 * d)]
    if len(core) == 0 or len(ring) == 0:
        return None
    ink, paper = np.median(core, 0), np.median(ring, 0)
    a, b = ink[1] - paper[1], ink[2] - paper[2]
    own = np.degrees(np.arctan2(ink[2], ink[1])) % 360
    glow = ink[0] > paper[0] and np.hypot(ink[1], ink[2]) > 25 and 110 <= own <= 340
    return np.hypot(a, b), np.degrees(np.arctan2(b, a)) % 360, abs(ink[0] - paper[0]), glow


def colour(res, folder, red_chroma, neutral_chroma):
    probs = {}; fired = Counter()
    for name, r in res.items():
        img = cv2.imread(os.path.join(folder, 'images', name))
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32) - [0, 128, 128]
        q = r['rp'].copy()
        # a grayscale picture (the phone set has 104) says nothing about ink colour
        if (np.hypot(lab[::4, ::4, 1], lab[::4, ::4, 2]) > 12).mean() < 0.01:
            fired['grayscale pictures'] += 1; probs[name] = q; continue
        for i in np.where((r['gp'] >= GATE) & (q[:, :52].sum(1) > 1e-6))[0]:
            ax, ay, bx, by = r['cands'][i]
            ink = pip_ink(lab, bx, by, np.hypot(bx - ax, by - ay))
            if ink is None or ink[2] < 10: continue
            if ink[3]:
                q[i, :52] = 0; fired['glow'] += 1; continue
            if ink[0] > red_chroma and RED_HUE[0] <= ink[1] <= RED_HUE[1]: allowed = (1, 2); fired['red ink'] += 1
            elif ink[0] < neutral_chroma: allowed = (0, 3); fired['neutral ink'] += 1
            else: continue
            keep = np.zeros(52, np.float32)
            for s in allowed: keep[s * 13:(s + 1) * 13] = 1
            mass = q[i, :52].sum(); kept = q[i, :52] * keep
            if kept.sum() > 0: q[i, :52] = kept * (mass / kept.sum())
        probs[name] = q
    print(f'reader alone:           {card_level(res)}')
    print(f'with the ink colour:    {card_level(res, probs)}   {dict(fired)}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('what', choices=['cache', 'fate', 'suits', 'colour'])
    ap.add_argument('args', nargs='+')
    ap.add_argument('--models', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--red-chroma', type=float, default=12)
    ap.add_argument('--neutral-chroma', type=float, default=4, help='0: no neutral-ink rule')
    a = ap.parse_args()
    if a.what == 'cache':
        if len(a.args) != 2: ap.error('cache DIR CACHE.pkl')
        return cache(a.args[0], a.args[1], a.models)
    res = pickle.load(open(a.args[0], 'rb'))
    if a.what == 'fate': fate(res)
    elif a.what == 'suits': suits(res)
    else:
        if len(a.args) != 2: ap.error('colour CACHE.pkl DIR')
        colour(res, a.args[1], a.red_chroma, a.neutral_chroma)


if __name__ == '__main__':
    main()
