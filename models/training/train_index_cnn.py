"""Trains the corner-index classifier (52 faces + "not an index") on make_patches.py output and
exports models/index_cnn.onnx (input 1x1x40x24 float 0..1 per patch, output softmax 53).

usage: train_index_cnn.py OUT.onnx DATA.npz [DATA.npz ...] [--epochs N] [--seed S] [--val HELDOUT.npz]
Uses 2 CPU threads; seeded.
"""
import argparse, sys, time
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(2)


def normalise(x):
    """Per-patch stretch between the 5th and 95th percentiles (same as the C++ reader)."""
    x = x.astype(np.float32)
    flat = x.reshape(len(x), -1)
    lo = np.percentile(flat, 5, axis=1)[:, None, None]
    hi = np.percentile(flat, 95, axis=1)[:, None, None]
    return np.clip((x - lo) / np.maximum(hi - lo, 8.0), 0, 1).astype(np.float32)


class IndexNet(nn.Module):
    def __init__(self, classes=53):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.features = nn.Sequential(block(1, 12), nn.MaxPool2d(2),      # 20x12
                                      block(12, 24), nn.MaxPool2d(2),     # 10x6
                                      block(24, 48), nn.MaxPool2d(2),     # 5x3
                                      block(48, 48))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(48 * 5 * 3, 128), nn.ReLU(inplace=True),
                                  nn.Linear(128, classes))

    def forward(self, x):
        return self.head(self.features(x))


class WithSoftmax(nn.Module):
    def __init__(self, net):
        super().__init__(); self.net = net

    def forward(self, x):
        return torch.softmax(self.net(x), dim=1)


def augment(xb, g):
    # light extra augmentation on top of the scene-level one: contrast jitter, noise, small shifts
    n = xb.shape[0]
    xb = xb * (0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=g)) + 0.1 * (torch.rand(n, 1, 1, 1, generator=g) - 0.5)
    xb = xb + 0.04 * torch.randn(xb.shape, generator=g)
    sh = int(torch.randint(-2, 3, (1,), generator=g)); sw = int(torch.randint(-1, 2, (1,), generator=g))
    xb = torch.roll(xb, shifts=(sh, sw), dims=(2, 3))
    return xb.clamp(0, 1)


def export(net, path):
    net.eval()
    torch.onnx.export(WithSoftmax(net), torch.zeros(1, 1, 40, 24), path, opset_version=11,
                      input_names=['patch'], output_names=['prob'], dynamic_axes={'patch': {0: 'n'}, 'prob': {0: 'n'}})
    print(f'wrote {path}', file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out'); ap.add_argument('data', nargs='+')
    ap.add_argument('--epochs', type=int, default=8); ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--val'); ap.add_argument('--minutes', type=float, default=40)
    a = ap.parse_args()
    torch.manual_seed(a.seed); np.random.seed(a.seed)
    xs, ys = [], []
    for f in a.data:
        d = np.load(f); xs.append(d['x']); ys.append(d['y'])
    x = torch.from_numpy(normalise(np.concatenate(xs)))[:, None]
    y = torch.from_numpy(np.concatenate(ys))
    print(f'{len(y)} patches, {(y < 52).sum().item()} index', file=sys.stderr)
    net = IndexNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = a.epochs * ((len(y) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    g = torch.Generator().manual_seed(a.seed)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    t0 = time.time()
    for ep in range(a.epochs):
        net.train(); perm = torch.randperm(len(y), generator=g); tot = 0; correct = 0
        for k in range(0, len(y), 128):
            idx = perm[k:k + 128]
            xb = augment(x[idx], g); yb = y[idx]
            out = net(xb); loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            tot += loss.item() * len(idx); correct += (out.argmax(1) == yb).sum().item()
        print(f'epoch {ep}: loss {tot / len(y):.4f} acc {correct / len(y):.4f} ({time.time() - t0:.0f}s)', file=sys.stderr)
        export(net, a.out)
        net.train()
        if (time.time() - t0) / 60 > a.minutes:
            print('time budget reached', file=sys.stderr); break
    net.eval()
    if a.val:
        d = np.load(a.val); xv = torch.from_numpy(normalise(d['x']))[:, None]; yv = torch.from_numpy(d['y'])
        with torch.no_grad():
            pv = torch.softmax(net(xv), 1)
        conf, pred = pv.max(1)
        print(f'held-out patches: {len(yv)}, accuracy {(pred == yv).float().mean():.4f}', file=sys.stderr)
        for thr in (0.5, 0.8, 0.9, 0.95):
            acc = (pred != 52) & (conf >= thr)
            tp = (acc & (pred == yv)).sum().item(); fp = (acc & (pred != yv)).sum().item()
            pos = (yv < 52).sum().item()
            print(f'  thr {thr}: index precision {tp / max(tp + fp, 1):.4f} recall {tp / max(pos, 1):.4f}', file=sys.stderr)
    export(net, a.out)


if __name__ == '__main__':
    main()
