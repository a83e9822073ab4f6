#!/usr/bin/python3
"""Fits backDistance's term weights (kBackTermWeights) to cards of labelled scenes.

Input: files written by `nertzref-cli eval-count DIR --dump-terms FILE` (one card a line: its terms
to each enrolled deck's still whole-card descriptors). A deck's distance is the smallest weighted
sum over its descriptors, as BackMatcher reads it; a card is right when its true deck is the
nearest, within maxDistance, at confidence >= 0.25 (distance ratio to the runner-up <= 0.875).

The loss is a smooth hinge on log(true distance / nearest other's) (wanted <= log 0.8) and on the
true distance (wanted <= 0.9), plus `--pull` times the squared log-ratio of each weight to today's,
minimised by Adam on the log-weights (numeric gradients: 7 numbers). The fitted weights are scaled
so that the median true distance stays what it is today (maxDistance, the enrolment warning's
threshold and the face-up rule read distances on today's scale).

`--folds K` first checks how the fit carries to designs it has not seen: the cards are split by
design into two halves K times, fitted on one half and scored on the other, both ways. Only
scenes enrolment did not warn about are used. `--strips` fits on the dumped strips of covered cards
(ribbon spreads) instead of whole cards; a strip has no layout or spectrum term, so those two
weights stay where the pull keeps them.

    export NERTZ_CARDART=/tmp/cardart
    nertzref-cli eval-count /tmp/ba_tr_21 --no-faces --dump-terms /tmp/terms_ba_tr_21.jsonl
    /usr/bin/python3 models/training/fit_back_weights.py /tmp/terms_*.jsonl --folds 3 --pull 0.0002
    /usr/bin/python3 models/training/fit_back_weights.py /tmp/terms_ri_*.jsonl --strips --folds 3

Needs only numpy (Debian python3-numpy). BACKS.md, "Term weights fitted", has what it gave.
"""
import argparse
import json
import sys

import numpy as np

TODAY = np.array([0.55, 0.25, 0.2, 0.15, 0.5, 0.25, 0.3])  # kBackTermWeights
NAMES = ["chroma", "tone", "orient", "texture", "fine", "layout", "spectrum"]
MAX_DISTANCE, MIN_CONFIDENCE = 1.0, 0.25  # BackMatcherOptions


def load(paths, strips=False):
    cards = []
    for path in paths:
        try:
            f = open(path)
        except OSError as e:
            sys.exit(f"cannot read {path}: {e.strerror}")
        with f:
            for n, line in enumerate(f, 1):
                try:
                    c = json.loads(line)
                    missing = [k for k in ("truth", "decks", "design", "true_distance", "warned") if k not in c]
                    if missing:
                        raise KeyError(", ".join(missing))
                    if not c["warned"] and ("strip" in c) == strips:
                        cards.append(c)
                except (json.JSONDecodeError, KeyError, TypeError) as e:
                    sys.exit(f"{path}:{n}: not a line of eval-count --dump-terms ({e!r})")
    if not cards:
        sys.exit(f"no {'strips' if strips else 'whole cards'} of unwarned scenes in " + ", ".join(paths))
    decks = max(len(c["decks"]) for c in cards)
    rows = max(len(d["terms"]) for c in cards for d in c["decks"])
    terms = np.full((len(cards), decks, rows, 7), np.inf, np.float64)
    truth = np.zeros(len(cards), int)
    for i, c in enumerate(cards):
        names = [d["name"] for d in c["decks"]]
        truth[i] = names.index(c["truth"])
        for j, d in enumerate(c["decks"]):
            t = np.array(d["terms"], np.float64).reshape(-1, 7)
            terms[i, j, : len(t)] = t
    present = np.isfinite(terms[:, :, 0, 0])
    designs = np.array([c["design"] for c in cards])
    return cards, terms, truth, present, designs


def distances(terms, w):
    d = np.einsum("cdek,k->cde", np.where(np.isfinite(terms), terms, 1e3), w)
    return d.min(axis=2)


def outcome(terms, truth, present, w):
    """(right, unknown, wrong, narrow) as BackMatcher::match reads the cards."""
    d = np.where(present, distances(terms, w), np.inf)
    n = np.arange(len(truth))
    order = np.argsort(d, axis=1)
    d1, d2 = d[n, order[:, 0]], np.minimum(d[n, order[:, 1]], 1.5 * MAX_DISTANCE)
    conf = np.clip((1 - d1 / d2) / 0.5, 0, 1)
    conf = np.where(d1 > MAX_DISTANCE, conf * np.maximum(0, 1 - (d1 - MAX_DISTANCE) / MAX_DISTANCE), conf)
    deck = np.where((d1 <= MAX_DISTANCE) & (conf >= MIN_CONFIDENCE), order[:, 0], -1)
    others = d.copy()
    others[n, truth] = np.inf
    margin = d[n, truth] / np.minimum(others.min(axis=1), 1.5 * MAX_DISTANCE)
    return (int((deck == truth).sum()), int((deck < 0).sum()),
            int(((deck >= 0) & (deck != truth)).sum()), int((margin > 0.75).sum()))


def loss(terms, truth, present, w, tau=0.05):
    d = np.where(present, distances(terms, w), np.inf)
    n = np.arange(len(truth))
    dt = d[n, truth]
    others = d.copy()
    others[n, truth] = np.inf
    do = np.minimum(others.min(axis=1), 1.5 * MAX_DISTANCE)
    ratio = np.log(dt / do) - np.log(0.8)
    return float((np.logaddexp(0, ratio / tau) + np.logaddexp(0, (dt - 0.9) / tau)).mean() * tau)


def fit(terms, truth, present, pull, iters):
    theta = np.log(TODAY)
    m, v = np.zeros(7), np.zeros(7)
    f = lambda th: loss(terms, truth, present, np.exp(th)) + pull * ((th - np.log(TODAY)) ** 2).sum()
    for it in range(1, iters + 1):
        g = np.zeros(7)
        for k in range(7):
            e = np.zeros(7)
            e[k] = 1e-3
            g[k] = (f(theta + e) - f(theta - e)) / 2e-3
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        theta -= 0.05 * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-8)
    w = np.exp(theta)
    n = np.arange(len(truth))
    scale = np.median(distances(terms, TODAY)[n, truth]) / np.median(distances(terms, w)[n, truth])
    return w * scale


def line(name, r):
    right, unknown, wrong, narrow = r
    return f"{name}: {right}/{right + unknown + wrong} (unknown {unknown}, wrong {wrong}, narrow {narrow})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dumps", nargs="+", help="files written by eval-count --dump-terms")
    ap.add_argument("--pull", type=float, default=0.0002, help="pull towards today's weights")
    ap.add_argument("--folds", type=int, default=0, help="design splits to check the fit on first")
    ap.add_argument("--iters", type=int, default=150)
    ap.add_argument("--strips", action="store_true",
                    help="fit on the strips of covered cards (ribbons), not on whole cards")
    args = ap.parse_args()
    cards, terms, truth, present, designs = load(args.dumps, args.strips)
    # today's weights must give the distances the count gave
    n = np.arange(len(truth))
    told = np.array([c["true_distance"] for c in cards])
    worst = np.abs(distances(terms, TODAY)[n, truth] - told).max()
    if worst > 1e-3:
        sys.exit(f"today's weights do not give the dumped distances (off by {worst:.4f}): "
                 "is TODAY kBackTermWeights?")
    print(line(f"{len(cards)} cards, today's weights", outcome(terms, truth, present, TODAY)))
    names = sorted(set(designs))
    gained = 0
    for fold in range(args.folds):
        rng = np.random.default_rng(fold)
        half = set(rng.permutation(names)[: len(names) // 2])
        first = np.array([d in half for d in designs])
        for label, fit_on in (("A->B", first), ("B->A", ~first)):
            w = fit(terms[fit_on], truth[fit_on], present[fit_on], args.pull, args.iters)
            test = ~fit_on
            before = outcome(terms[test], truth[test], present[test], TODAY)
            after = outcome(terms[test], truth[test], present[test], w)
            gained += after[0] - before[0]
            print(f"fold {fold} {label} weights {np.round(w, 3).tolist()}")
            print("   " + line("unseen designs, today's", before))
            print("   " + line("unseen designs, fitted", after))
    if args.folds:
        print(f"cards gained on unseen designs over the folds: {gained:+d}")
    w = fit(terms, truth, present, args.pull, args.iters)
    print("fitted on all: " + ", ".join(f"{k} {x:.3f}" for k, x in zip(NAMES, w)))
    print(line("all cards, fitted", outcome(terms, truth, present, w)))


if __name__ == "__main__":
    main()
