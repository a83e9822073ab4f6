#!/usr/bin/python3
"""Can a clubs-or-spades reading be learnt for the webcam_table deck, and from which photos?

A probe, not a trainer of a shipped model (models/MODEL.md, "Clubs read as spades: where the
information is"). It cuts the reader's own patches (the Python twin of the proposals, gate and reader,
as index_fate.py does) at every labelled club and spade index of a folder laid out like
../shared/data/real-cards, keeps the best gated candidate of each (the one surest it is an index),
and trains a small CNN (clubs against spades, on the 40x24 normalised patch) on them.

  degrade SRC DST --copies K --seed S   copies of a labelled folder brought to webcam_table's look:
                                        indices 40-66 px long, one axis squashed to 0.45-0.8 and
                                        stretched back (x in 3 of 4, as the 16:9 -> 640x640 export
                                        did), blur, noise, JPEG 55-92, padded (reflected) to a long
                                        side of 1000 so the working scale is 1
  collect DIR OUT.npz                   the patches (X), club or not (Y), picture (G), the reader's
                                        own p(club | black) (R)
  cv OUT.npz                            5-fold cross-validation grouped by picture
  cross TRAIN.npz[,...] TEST.npz        trained on some folders, measured on another

A square folder (webcam_table) is first stretched to its camera's aspect, as the detector's kept
reading is: e.g. 1138x640 for webcam_table (--stretch 1138x640 on collect).
Needs python3-opencv, python3-numpy and python3-torch (Debian); run with /usr/bin/python3.
"""
import argparse, os, sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import index_fate as F  # noqa: E402
import proposals as P  # noqa: E402
from train_index_cnn import normalise  # noqa: E402

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def degrade(src, dst, copies, seed):
    rng = np.random.default_rng(seed)
    os.makedirs(dst + '/images', exist_ok=True)
    os.makedirs(dst + '/labels', exist_ok=True)
    for f in sorted(os.listdir(src + '/images')):
        stem = os.path.splitext(f)[0]
        im = cv2.imread(src + '/images/' + f)
        H, W = im.shape[:2]
        lab = [line.split() for line in open(src + '/labels/' + stem + '.txt') if len(line.split()) == 5]
        if not lab:
            continue
        b = np.median([max(float(p[3]) * W, float(p[4]) * H) for p in lab])
        for k in range(copies):
            s = min(rng.uniform(40, 66) / b, 1.9)
            img = cv2.resize(im, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
            h, w = img.shape[:2]
            fq = rng.uniform(0.45, 0.8)
            if rng.random() < 0.75:
                img = cv2.resize(cv2.resize(img, (max(8, int(w * fq)), h), interpolation=cv2.INTER_AREA), (w, h),
                                 interpolation=cv2.INTER_CUBIC)
            else:
                img = cv2.resize(cv2.resize(img, (w, max(8, int(h * fq))), interpolation=cv2.INTER_AREA), (w, h),
                                 interpolation=cv2.INTER_CUBIC)
            sg = rng.uniform(0, 0.9)
            if sg > 0.15:
                img = cv2.GaussianBlur(img, (0, 0), sg)
            img = np.clip(img.astype(np.float32) + rng.normal(0, rng.uniform(0, 4), img.shape), 0, 255).astype(np.uint8)
            py = (1000 - h + 1) // 2 if h < 1000 else 0
            px = (1000 - w + 1) // 2 if w < 1000 else 0
            img = cv2.copyMakeBorder(img, py, py, px, px, cv2.BORDER_REFLECT)
            HH, WW = img.shape[:2]
            ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(55, 92))])
            name = f'{stem}_d{k}'
            open(f'{dst}/images/{name}.jpg', 'wb').write(buf.tobytes())
            with open(f'{dst}/labels/{name}.txt', 'w') as o:
                for p in lab:
                    cx, cy, bw, bh = (float(v) for v in p[1:])
                    o.write(f'{p[0]} {(cx * w + px) / WW:.6f} {(cy * h + py) / HH:.6f} {bw * w / WW:.6f} {bh * h / HH:.6f}\n')


def collect(folder, out, stretch):
    gate = cv2.dnn.readNetFromONNX(os.path.join(MODELS, 'index_gate.onnx'))
    reader = cv2.dnn.readNetFromONNX(os.path.join(MODELS, 'index_cnn.onnx'))
    classes = F.classes_of(folder)
    X, Y, G, R = [], [], [], []
    for n, fn in enumerate(sorted(os.listdir(folder + '/images'))):
        img = cv2.imread(folder + '/images/' + fn)
        if stretch:
            img = cv2.resize(img, stretch, interpolation=cv2.INTER_CUBIC)
        H, W = img.shape[:2]
        truth = []
        for line in open(folder + '/labels/' + os.path.splitext(fn)[0] + '.txt'):
            p = line.split()
            if len(p) != 5 or classes[int(p[0])] in F.NOT_FACES or classes[int(p[0])][-1] not in 'CS':
                continue
            cx, cy, w, h = (float(v) for v in p[1:])
            truth.append((classes[int(p[0])], cx * W, cy * H, w * W, h * H))
        if not truth:
            continue
        work, s = F.work_copy(img)
        cands, patches = P.propose(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY))
        if not patches:
            continue
        # only the candidates in a labelled box are read (a picture has thousands)
        c = np.array([q[:4] for q in cands], np.float32).reshape(-1, 4) / s
        near = np.unique(np.concatenate([F.at_index({'cands': c, 'gp': np.ones(len(c))}, t)[0] for t in truth]))
        if len(near) == 0:
            continue
        x = normalise(np.stack([patches[i] for i in near]))
        r = {'cands': c[near], 'gp': F.forward(gate, x)[:, 1]}
        rp = F.forward(reader, x)
        for t in truth:
            _, ii = F.at_index(r, t)
            if len(ii) == 0:
                continue
            b = ii[rp[ii, :52].sum(1).argmax()]  # the candidate surest it is an index
            p = rp[b, :52].reshape(4, 13)
            if p.sum() < 0.5:
                continue
            X.append(x[b]); Y.append(t[0][-1] == 'C'); G.append(n)
            R.append(p[0].sum() / (p[0].sum() + p[3].sum() + 1e-9))
    X, Y, R = np.array(X, np.float32), np.array(Y), np.array(R)
    print(f'{folder}: {len(Y)} black indices ({Y.mean():.2f} clubs); the reader: clubs right '
          f'{(R[Y] > 0.5).mean():.3f}, spades right {(R[~Y] <= 0.5).mean():.3f}')
    np.savez(out, X=X, Y=Y, G=np.array(G), R=R)


def train(X, Y, epochs, seed):
    import torch
    import torch.nn as nn
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    m = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(16 * 10 * 6, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = torch.optim.Adam(m.parameters(), 1e-3, weight_decay=1e-4)
    for _ in range(epochs):
        perm = rng.permutation(len(X))
        for i in range(0, len(X), 32):
            b = perm[i:i + 32]
            xb = np.stack([np.roll(X[j], tuple(rng.integers(-2, 3, 2)), (0, 1)) for j in b])
            xb = xb * rng.uniform(0.8, 1.2, (len(b), 1, 1)) + rng.uniform(-0.1, 0.1, (len(b), 1, 1))
            loss = nn.functional.cross_entropy(m(torch.from_numpy(xb.astype(np.float32))[:, None]),
                                               torch.from_numpy(Y[b].astype(np.int64)))
            opt.zero_grad(); loss.backward(); opt.step()
    m.eval()
    return lambda x: torch.softmax(m(torch.from_numpy(x)[:, None]), 1)[:, 1].detach().numpy()


def report(what, pc, Y):
    print(f'{what}: clubs right {(pc[Y] > 0.5).mean():.3f}, spades right {(pc[~Y] <= 0.5).mean():.3f}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    d = sub.add_parser('degrade'); d.add_argument('src'); d.add_argument('dst')
    d.add_argument('--copies', type=int, default=4); d.add_argument('--seed', type=int, default=1)
    c = sub.add_parser('collect'); c.add_argument('dir'); c.add_argument('out')
    c.add_argument('--stretch', help='WxH: the picture stretched to this size first')
    v = sub.add_parser('cv'); v.add_argument('data'); v.add_argument('--epochs', type=int, default=60)
    x = sub.add_parser('cross'); x.add_argument('train'); x.add_argument('test')
    x.add_argument('--epochs', type=int, default=30)
    a = ap.parse_args()
    if a.cmd == 'degrade':
        degrade(a.src, a.dst, a.copies, a.seed)
    elif a.cmd == 'collect':
        collect(a.dir, a.out, tuple(int(v) for v in a.stretch.split('x')) if a.stretch else None)
    elif a.cmd == 'cv':
        z = np.load(a.data); X, Y, G = z['X'], z['Y'], z['G']
        groups = np.unique(G); pc = np.zeros(len(X))
        for f in range(5):
            te = np.isin(G, groups[groups % 5 == f])
            pc[te] = train(X[~te], Y[~te], a.epochs, f)(X[te])
        report('grouped 5-fold cross-validation', pc, Y)
    else:
        zs = [np.load(f) for f in a.train.split(',')]; t = np.load(a.test)
        X = np.concatenate([z['X'] for z in zs]); Y = np.concatenate([z['Y'] for z in zs])
        report(f'trained on {len(Y)}, measured on {a.test}', train(X, Y, a.epochs, 0)(t['X']), t['Y'])


if __name__ == '__main__':
    main()
