"""Trains the corner-index classifier (52 faces + "not an index") and its cheap pre-filter (index or
not) on make_patches.py output; exports OUTDIR/index_cnn.onnx (input N x 1 x 40 x 24 float 0..1 per
patch, output softmax 53) and OUTDIR/index_gate.onnx (same input, output softmax 2).

usage: train_index_cnn.py OUTDIR DATA.npz [DATA.npz ...] [--epochs N] [--gate-epochs N] [--seed S]
                          [--heldout HELDOUT.npz] [--minutes M] [--gate-minutes M] [--threads T] [--gate-only]
                          [--device cpu|cuda] [--no-export] [--from-state]
The trained weights are also saved as OUTDIR/index_cnn.pt and OUTDIR/index_gate.pt. --from-state
loads them instead of training and only exports and reports: a run on a GPU machine whose torch
writes ONNX that OpenCV 4.6 cannot read (--no-export there) is exported by Debian's torch here.
The augmentation draws from a CPU generator on either device, so a GPU run sees the same patches.
5% of DATA (train designs) is kept aside for calibration: the report gives the reader's precision and
recall per threshold and the gate threshold that keeps 99.5% of the index patches. Seeded.
"""
import split_reader
import argparse, copy, os, shutil, sys, time
import numpy as np
import torch
import torch.nn as nn



def normalise(x):
    """Per-patch stretch between the 5th and 95th percentiles (same as the C++ reader)."""
    x = x.astype(np.float32)
    flat = x.reshape(len(x), -1)
    lo = np.percentile(flat, 5, axis=1)[:, None, None]
    hi = np.percentile(flat, 95, axis=1)[:, None, None]
    return np.clip((x - lo) / np.maximum(hi - lo, 8.0), 0, 1).astype(np.float32)


def block(i, o, stride=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o),
                         nn.ReLU(inplace=True))


class IndexNet(nn.Module):
    """The reader. Three heads share the features: index or not, rank (13), suit (4); a face's
    probability is p(index) * p(rank) * p(suit), so every rank learns from all four suits' patches and
    every suit from all thirteen ranks'. forward() answers 53 log-probabilities in scoring::Card::index()
    order (suit major), 52 = not an index. About 0.5 M multiply-adds per 40x24 patch."""
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(block(1, 16), nn.MaxPool2d(2),   # 20x12 (138k MAC)
                                      block(16, 24, 2),                # 10x6 (207k)
                                      block(24, 32, 2))                # 5x3 (104k)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(32 * 5 * 3, 96), nn.ReLU(inplace=True))
        self.out_index, self.out_rank, self.out_suit = nn.Linear(96, 2), nn.Linear(96, 13), nn.Linear(96, 4)
        # face c = suit * 13 + rank: a constant 0/1 map from the 13 + 4 log-probabilities to the 52 faces,
        # plus p(index) (a matrix product: exports to ONNX that OpenCV 4.6's dnn reads)
        m = torch.zeros(2 + 13 + 4, 53)
        for c in range(52):
            m[1, c] = 1; m[2 + c % 13, c] = 1; m[15 + c // 13, c] = 1
        m[0, 52] = 1
        self.register_buffer('combine', m)

    def logits(self, x):
        h = self.head(self.features(x))
        return self.out_index(h), self.out_rank(h), self.out_suit(h)

    def forward(self, x):
        zi, zr, zs = self.logits(x)
        logp = torch.cat([torch.log_softmax(zi, 1), torch.log_softmax(zr, 1), torch.log_softmax(zs, 1)], 1)
        return torch.matmul(logp, self.combine)


class GateNet(nn.Module):
    """The cheap pre-filter: index or not (2 classes). A small perceptron on the patch averaged down to
    20x12 (about 11.6 k multiply-adds): in cv::dnn it costs a sixth of the 3-layer conv gate it
    replaced (~2 ms instead of ~25 ms per 2,000 patches on one core), which ran on every candidate."""
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.AvgPool2d(2), nn.Flatten(), nn.Linear(20 * 12, 48), nn.ReLU(inplace=True),
                                 nn.Linear(48, 2))

    def forward(self, x):
        return self.net(x)


class WithSoftmax(nn.Module):
    def __init__(self, net):
        super().__init__(); self.net = net

    def forward(self, x):
        z = self.net(x)
        return torch.exp(z) if isinstance(self.net, IndexNet) else torch.softmax(z, dim=1)


def augment(xb, g):
    """Patch-level augmentation on top of the scene-level one: small per-patch affine jitter (the
    blob centres the patch is cut from move by a pixel or so between scales and photos), contrast,
    offset, blur by down-and-up sampling (webcam focus), noise, small shifts. Every random draw comes
    from the CPU generator g and is moved to xb's device, so a GPU run augments exactly as a CPU run."""
    n = xb.shape[0]; dev = xb.device
    jit = (torch.rand(n, generator=g) < 0.5).to(dev)
    if jit.any():
        m = int(jit.sum())
        sc = 1 + 0.08 * (2 * torch.rand(m, generator=g) - 1)
        an = 0.08 * (2 * torch.rand(m, generator=g) - 1)
        th = torch.zeros(m, 2, 3)
        th[:, 0, 0] = sc * torch.cos(an); th[:, 0, 1] = -sc * torch.sin(an) * 40 / 24
        th[:, 1, 0] = sc * torch.sin(an) * 24 / 40; th[:, 1, 1] = sc * torch.cos(an)
        th[:, 0, 2] = 0.1 * (2 * torch.rand(m, generator=g) - 1); th[:, 1, 2] = 0.06 * (2 * torch.rand(m, generator=g) - 1)
        grid = torch.nn.functional.affine_grid(th.to(dev), (m, 1, 40, 24), align_corners=False)
        xb[jit] = torch.nn.functional.grid_sample(xb[jit], grid, mode='bilinear', padding_mode='border', align_corners=False)
    xb = xb * (0.7 + 0.5 * torch.rand(n, 1, 1, 1, generator=g)).to(dev) + (0.2 * (torch.rand(n, 1, 1, 1, generator=g) - 0.5)).to(dev)
    blur = (torch.rand(n, generator=g) < 0.3).to(dev)
    if blur.any():
        f = float(0.4 + 0.3 * torch.rand(1, generator=g))
        small = torch.nn.functional.interpolate(xb[blur], scale_factor=f, mode='bilinear', align_corners=False)
        xb[blur] = torch.nn.functional.interpolate(small, size=(40, 24), mode='bilinear', align_corners=False)
    xb = xb + ((0.02 + 0.04 * torch.rand(n, 1, 1, 1, generator=g)) * torch.randn(tuple(xb.shape), generator=g)).to(dev)
    sh = int(torch.randint(-2, 3, (1,), generator=g)); sw = int(torch.randint(-1, 2, (1,), generator=g))
    xb = torch.roll(xb, shifts=(sh, sw), dims=(2, 3))
    return xb.clamp(0, 1)


def load_exported(net, path):
    """Sets net's weights from an ONNX file this script exported (index_cnn.onnx or index_gate.onnx).
    The export folds each BatchNorm into the convolution before it; here the convolution gets the
    folded weights and its BatchNorm becomes the identity plus the folded bias (mean 0, variance
    1 - eps, scale 1), and is marked to stay frozen in training (bn_frozen): a fine-tune then starts
    from exactly the exported reader."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    w = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in m.graph.initializer}
    convs = [[w[i] for i in n.input if i in w] for n in m.graph.node if n.op_type == 'Conv']
    gemms = [[w[i] for i in n.input if i in w] for n in m.graph.node if n.op_type == 'Gemm']
    tconv = [c for c in net.modules() if isinstance(c, nn.Conv2d)]
    tbn = [b for b in net.modules() if isinstance(b, nn.BatchNorm2d)]
    tlin = [l for l in net.modules() if isinstance(l, nn.Linear)]
    if len(convs) != len(tconv) or len(gemms) != len(tlin):
        sys.exit(f'{path}: not a {type(net).__name__} export ({len(convs)} convolutions, {len(gemms)} dense layers)')
    with torch.no_grad():
        for (cw, cb), c, b in zip(convs, tconv, tbn):
            if cw.shape != c.weight.shape:
                sys.exit(f'{path}: convolution of shape {tuple(cw.shape)} where {tuple(c.weight.shape)} is expected')
            c.weight.copy_(cw); b.weight.fill_(1); b.bias.copy_(cb); b.running_mean.zero_(); b.running_var.fill_(1 - b.eps)
        for (lw, lb), l in zip(gemms, tlin):
            if lw.shape != l.weight.shape:
                sys.exit(f'{path}: dense layer of shape {tuple(lw.shape)} where {tuple(l.weight.shape)} is expected')
            l.weight.copy_(lw); l.bias.copy_(lb)
    net.bn_frozen = True
    print(f'started from {path}', file=sys.stderr)
    return net


def export(net, path, classes):
    # a copy: torch 1.13's exporter changed the BatchNorms of a reader started from an export
    # (--init-reader) in place, and the calibration report after it read wrong
    net = copy.deepcopy(net).eval()
    torch.onnx.export(WithSoftmax(net), torch.zeros(1, 1, 40, 24), path, opset_version=11,
                      input_names=['patch'], output_names=['prob'], dynamic_axes={'patch': {0: 'n'}, 'prob': {0: 'n'}})
    print(f'wrote {path} ({classes} classes)', file=sys.stderr)


def factorised_loss(net, xb, yb):
    """Cross-entropy of the is-index head on every patch, of the rank and suit heads on index patches."""
    zi, zr, zs = net.logits(xb)
    isidx = (yb < 52)
    with torch.no_grad():
        logp = torch.cat([torch.log_softmax(zi, 1), torch.log_softmax(zr, 1), torch.log_softmax(zs, 1)], 1)
        out = torch.matmul(logp, net.combine)
    loss = nn.functional.cross_entropy(zi, isidx.long(), label_smoothing=0.01)
    if isidx.any():
        yi = yb[isidx]
        loss = loss + nn.functional.cross_entropy(zr[isidx], yi % 13, label_smoothing=0.01) \
                    + nn.functional.cross_entropy(zs[isidx], yi // 13, label_smoothing=0.01)
    return loss, out


def lr_at(progress, lr):
    """Warm-up over the first 15% of the run, then cosine down to 1% of lr."""
    if progress < 0.15:
        return lr * (0.04 + 0.96 * progress / 0.15)
    return lr * (0.01 + 0.99 * 0.5 * (1 + np.cos(np.pi * min(1.0, (progress - 0.15) / 0.85))))


def fit(net, x, y, epochs, seed, minutes, name, batch=256, lr=4e-3, device='cpu'):
    """AdamW with warm-up and cosine decay over the run. The run's progress is the larger of the
    share of steps done (epochs) and the share of the time budget used (minutes), so a run on a slow
    or loaded machine still ends annealed (at fewer epochs: the log says how many)."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps_per_epoch = (len(y) + batch - 1) // batch
    steps = epochs * steps_per_epoch
    g = torch.Generator().manual_seed(seed)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    t0 = time.time(); step = 0; progress = 0.0
    for ep in range(epochs):
        net.train(); perm = torch.randperm(len(y), generator=g); tot = 0; correct = 0; seen = 0
        if getattr(net, 'bn_frozen', False):   # started from an export: its folded BatchNorms stay fixed
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        for k in range(0, len(y), batch):
            progress = max(step / steps, (time.time() - t0) / (60 * minutes))
            if progress >= 1:
                break
            for grp in opt.param_groups:
                grp['lr'] = lr_at(progress, lr)
            idx = perm[k:k + batch]
            xb = augment(x[idx].to(device), g); yb = y[idx].to(device)
            if isinstance(net, IndexNet):
                loss, out = factorised_loss(net, xb, yb)
            else:
                out = net(xb); loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            tot += loss.item() * len(idx); correct += (out.argmax(1) == yb).sum().item(); seen += len(idx)
        print(f'{name} epoch {ep}: loss {tot / max(seen, 1):.4f} acc {correct / max(seen, 1):.4f} '
              f'({seen} patches, progress {progress:.2f}, {time.time() - t0:.0f}s)', file=sys.stderr)
        if progress >= 1:
            print(f'{name}: time budget reached in epoch {ep} ({step} of {steps} steps)', file=sys.stderr); break
    net.eval()
    return net.cpu()


def probs(net, x):
    with torch.no_grad():
        return torch.cat([WithSoftmax(net)(x[k:k + 4096]) for k in range(0, len(x), 4096)])


def trained(net, path, from_state, train):
    """The network trained by train(net), or loaded from path with --from-state; saved to path."""
    if from_state:
        net.load_state_dict(torch.load(path, map_location='cpu')); net.eval()
        print(f'loaded {path}', file=sys.stderr)
        return net
    net = train(net)
    torch.save(net.state_dict(), path)
    return net


def report(title, pv, gv, yv, gate_thr):
    conf, pred = pv.max(1)
    pos = (yv < 52).sum().item()
    print(f'{title}: {len(yv)} patches ({pos} index), top-1 accuracy {(pred == yv).float().mean():.4f}, '
          f'gate keeps {(gv[:, 1] >= gate_thr).float().mean():.3f} of all, '
          f'{(gv[yv < 52, 1] >= gate_thr).float().mean():.4f} of index patches', file=sys.stderr)
    for thr in (0.5, 0.7, 0.8, 0.9, 0.95):
        acc = (pred != 52) & (conf >= thr) & (gv[:, 1] >= gate_thr)
        tp = (acc & (pred == yv)).sum().item(); fp = (acc & (pred != yv)).sum().item()
        print(f'  thr {thr}: index precision {tp / max(tp + fp, 1):.4f} recall {tp / max(pos, 1):.4f}', file=sys.stderr)


def load(files):
    xs, ys = [], []
    for f in files:
        d = np.load(f); xs.append(d['x']); ys.append(d['y'])
    return torch.from_numpy(normalise(np.concatenate(xs)))[:, None], torch.from_numpy(np.concatenate(ys))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir'); ap.add_argument('data', nargs='+')
    ap.add_argument('--epochs', type=int, default=12); ap.add_argument('--gate-epochs', type=int, default=4)
    ap.add_argument('--seed', type=int, default=7); ap.add_argument('--heldout')
    ap.add_argument('--minutes', type=float, default=35, help='time budget of the reader (the schedule ends annealed within it)')
    ap.add_argument('--gate-minutes', type=float, default=6, help='time budget of the gate')
    ap.add_argument('--gate-only', action='store_true', help='train and export only the gate (the reader is not touched)')
    ap.add_argument('--threads', type=int, default=1, help='torch threads (1 was 3x faster than 2 on the shared 2-core machine)')
    ap.add_argument('--device', default='cpu', help="torch device for the forward and backward passes ('cuda' on a GPU machine)")
    ap.add_argument('--no-export', action='store_true', help='save the weights (.pt) but write no ONNX')
    ap.add_argument('--from-state', action='store_true', help='load OUTDIR/*.pt instead of training; export and report')
    ap.add_argument('--init-reader', help='fine-tune: start the reader from this exported index_cnn.onnx')
    ap.add_argument('--lr', type=float, default=4e-3, help='peak learning rate of the reader (a fine-tune wants less)')
    ap.add_argument('--gate-from', help='keep this exported index_gate.onnx (no gate training; copied to OUTDIR)')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed); np.random.seed(a.seed)
    t0 = time.time()
    x, y = load(a.data)
    perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(a.seed))
    nval = len(y) // 20
    xv, yv = x[perm[:nval]], y[perm[:nval]]
    x, y = x[perm[nval:]], y[perm[nval:]]
    print(f'{len(y)} training patches ({(y < 52).sum().item()} index), {nval} for calibration', file=sys.stderr)
    os.makedirs(a.outdir, exist_ok=True)
    if not a.gate_only:
        start = load_exported(IndexNet(), a.init_reader) if a.init_reader else IndexNet()
        net = trained(start, os.path.join(a.outdir, 'index_cnn.pt'), a.from_state,
                      lambda n: fit(n.to(a.device), x, y, a.epochs, a.seed, a.minutes, 'reader', lr=a.lr,
                                    device=a.device))
        if not a.no_export:
            export(net, os.path.join(a.outdir, 'index_cnn.onnx'), 53)
            # the reader after its first block, which the C++ side computes itself (split_reader.py)
            split_reader.split(os.path.join(a.outdir, 'index_cnn.onnx'), os.path.join(a.outdir, 'index_cnn_tail.onnx'))
    torch.manual_seed(a.seed + 1)   # the gate starts alike whether or not the reader was trained first
    if a.gate_from:
        gate = load_exported(GateNet(), a.gate_from).eval()
        if not a.no_export and os.path.abspath(a.gate_from) != os.path.abspath(os.path.join(a.outdir, 'index_gate.onnx')):
            shutil.copyfile(a.gate_from, os.path.join(a.outdir, 'index_gate.onnx'))
    else:
        gate = trained(GateNet(), os.path.join(a.outdir, 'index_gate.pt'), a.from_state,
                       lambda n: fit(n.to(a.device), x, (y < 52).long(), a.gate_epochs, a.seed + 1, a.gate_minutes,
                                     'gate', batch=256, lr=5e-3, device=a.device))
        if not a.no_export:
            export(gate, os.path.join(a.outdir, 'index_gate.onnx'), 2)
    if a.gate_only:
        return
    gv = probs(gate, xv)
    sv = torch.sort(gv[yv < 52, 1]).values
    gate_thr = float(sv[int(0.005 * len(sv))])
    print(f'gate threshold keeping 99.5% of calibration index patches: {gate_thr:.4f}', file=sys.stderr)
    for keep in (0.998, 0.995, 0.99, 0.98):
        thr = float(sv[int((1 - keep) * len(sv))])
        print(f'  gate keeping {keep:.1%} of index patches: threshold {thr:.4f}, keeps {(gv[:, 1] >= thr).float().mean():.3f} '
              f'of all calibration patches', file=sys.stderr)
    report('calibration (train designs)', probs(net, xv), gv, yv, gate_thr)
    if a.heldout:
        xh, yh = load([a.heldout])
        report('held-out designs', probs(net, xh), probs(gate, xh), yh, gate_thr)
    print(f'total training time {time.time() - t0:.0f}s', file=sys.stderr)


if __name__ == '__main__':
    main()
