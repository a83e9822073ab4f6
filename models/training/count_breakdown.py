#!/usr/bin/python3
"""Where a back count's per-deck error comes from: each card `count` found, matched to a labelled
card of the scene, by how much of that card shows (BACKS.md, "Where the ribbon's per-deck error
comes from").

    NERTZ_EVAL_CARDS=/tmp/fc eval-count SET --no-faces     # writes /tmp/fc/<scene>.json
    /usr/bin/python3 count_breakdown.py /tmp/fc SET

SET is a synthetic set (`nertzref-cli synth`, with its cards/<scene>.json). A found card is matched
to the labelled face-down card whose outline's middle is nearest its own, one to one, nearest pairs
first, within half the labelled card's short side. A pair is `sure` when the next labelled
card is at least twice as far (in a ribbon, neighbouring cards lie a strip apart, so a match that is
not sure may be the neighbour). Only numpy.
"""
import argparse
import glob
import json
import os

import numpy as np


def middle(quad):
    return np.mean(np.asarray(quad, float), axis=0)


def short_side(quad):
    q = np.asarray(quad, float)
    sides = [np.linalg.norm(q[(k + 1) % 4] - q[k]) for k in range(4)]
    return min(sides[0] + sides[2], sides[1] + sides[3]) / 2


def match(found_dir, set_dir):
    """(found card, labelled card, sure) for every matched pair, and the totals."""
    pairs, found_total, truth_total = [], 0, 0
    for path in sorted(glob.glob(os.path.join(found_dir, '*.json'))):
        label_path = os.path.join(set_dir, 'cards', os.path.basename(path))
        if not os.path.exists(label_path):
            raise SystemExit(f'count_breakdown: no {label_path}: {found_dir} is not a dump of {set_dir}')
        found = json.load(open(path))
        truth = [c for c in json.load(open(label_path))['cards'] if c['side'] == 'back']
        found_total += len(found)
        truth_total += len(truth)
        if not found or not truth:
            continue
        a = np.array([middle(c['quad']) for c in found])
        b = np.array([middle(c['quad']) for c in truth])
        d = np.linalg.norm(a[:, None] - b[None], axis=2)
        second = np.sort(d, axis=1)[:, 1] if len(truth) > 1 else np.full(len(found), np.inf)
        used_f, used_t = set(), set()
        for k in np.argsort(d, axis=None):
            i, j = divmod(int(k), d.shape[1])
            if i in used_f or j in used_t:
                continue
            if d[i, j] > 0.5 * short_side(truth[j]['quad']):
                break
            used_f.add(i)
            used_t.add(j)
            pairs.append((found[i], truth[j], second[i] >= 2 * d[i, j]))
    return pairs, found_total, truth_total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('found', help='folder of eval-count NERTZ_EVAL_CARDS dumps')
    ap.add_argument('set', help='the synthetic set they were counted on')
    args = ap.parse_args()
    pairs, found_total, truth_total = match(args.found, args.set)
    print(f'{truth_total} labelled face-down cards, {found_total} found, {len(pairs)} matched '
          f'({sum(s for *_, s in pairs)} surely)')
    print('by the share of the labelled card that shows (sure matches only):')
    print('  shows       cards  unknown  right  wrong   nearest deck right of the unknown')
    edges = [0, 0.04, 0.06, 0.08, 0.12, 0.2, 0.4, 1.01]
    for lo, hi in zip(edges, edges[1:]):
        rows = [(f, t) for f, t, sure in pairs if sure and lo <= t['visible_fraction'] < hi]
        if not rows:
            continue
        true_deck = [f'deck{t["deck"]}' for _, t in rows]
        unknown = [(f, d) for (f, _), d in zip(rows, true_deck) if f['deck'] in ('', None, 'unknown')]
        right = sum(f['deck'] == d for (f, _), d in zip(rows, true_deck))
        print(f'  {lo:.2f}-{min(hi, 1):.2f}  {len(rows):6d}  {len(unknown):7d}  {right:5d}  '
              f'{len(rows) - len(unknown) - right:5d}   {sum(f["nearest"] == d for f, d in unknown)}')


if __name__ == '__main__':
    main()
