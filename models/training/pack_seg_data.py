#!/usr/bin/python3
"""Packs segmenter training scenes (`nertzref-cli synth ... --masks`) small enough to travel to a GPU
machine (the device tool carries 64 MiB): each picture shrunk to the segmenter's working size (long
side 640, as train_back_seg.py's load_scene shrinks it, INTER_AREA) and written as WebP (quality
90; about 45 KB a 1280x720 scene against 140 KB for the JPEG), the id mask re-compressed (8 bits where
the scene's ids fit; full size: the outline labels are drawn at full size), and each scene's card list cut to the two
fields the training reads (side, visible_fraction). train_back_seg.py reads such a folder as it
reads synth's own.

    /usr/bin/python3 pack_seg_data.py OUT SRC [SRC...] [--quality 90]

OUT/<name of SRC>/{images,masks,cards}. Existing files in OUT are replaced; a SRC without masks is
an error (exit 2)."""
import argparse
import glob
import json
import os
import sys
from multiprocessing import Pool

import cv2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_back_seg import work_size  # noqa: E402  (the same working size as the training)


def pack_one(job):
    src_img, src_mask, src_cards, out, quality = job
    stem = os.path.basename(src_mask)[:-4]
    img = cv2.imread(src_img, cv2.IMREAD_COLOR)
    ids = cv2.imread(src_mask, cv2.IMREAD_UNCHANGED)
    if img is None or ids is None:
        return f'{src_img}: unreadable picture or mask'
    if img.shape[:2] != ids.shape[:2]:
        return f'{src_img}: picture {img.shape[1]}x{img.shape[0]} but mask {ids.shape[1]}x{ids.shape[0]}'
    h, w = img.shape[:2]
    small = cv2.resize(img, work_size(w, h), interpolation=cv2.INTER_AREA)
    ok_img = cv2.imwrite(os.path.join(out, 'images', stem + '.webp'), small, [cv2.IMWRITE_WEBP_QUALITY, quality])
    if ids.max() < 256:  # 8 bits hold a scene's ids (0 table, 1 hand, 2 + card) and take half the bytes
        ids = ids.astype('uint8')
    ok_mask = cv2.imwrite(os.path.join(out, 'masks', stem + '.png'), ids, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not (ok_img and ok_mask):
        return f'{out}: could not write {stem}'
    if os.path.isfile(src_cards):
        with open(src_cards) as f:
            cards = json.load(f)['cards']
        slim = [{'side': c.get('side'), 'visible_fraction': round(float(c.get('visible_fraction', 0)), 4)} for c in cards]
        with open(os.path.join(out, 'cards', stem + '.json'), 'w') as f:
            json.dump({'cards': slim}, f, separators=(',', ':'))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('src', nargs='+')
    ap.add_argument('--quality', type=int, default=90)
    ap.add_argument('--workers', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    if not 1 <= a.quality <= 100:
        print('pack_seg_data: --quality must be 1..100', file=sys.stderr)
        sys.exit(2)
    jobs = []
    for src in a.src:
        masks = sorted(glob.glob(os.path.join(src, 'masks', '*.png')))
        if not masks:
            print(f'pack_seg_data: {src} has no masks/*.png (nertzref-cli synth ... --masks)', file=sys.stderr)
            sys.exit(2)
        out = os.path.join(a.out, os.path.basename(os.path.normpath(src)))
        for sub in ('images', 'masks', 'cards'):
            os.makedirs(os.path.join(out, sub), exist_ok=True)
        for m in masks:
            stem = os.path.basename(m)[:-4]
            jobs.append((os.path.join(src, 'images', stem + '.jpg'), m, os.path.join(src, 'cards', stem + '.json'), out, a.quality))
    with Pool(a.workers) as pool:
        for k, err in enumerate(pool.imap(pack_one, jobs, chunksize=8), 1):
            if err:
                print(f'pack_seg_data: {err}', file=sys.stderr)
                sys.exit(2)
            if k % 200 == 0 or k == len(jobs):
                print(f'pack_seg_data: {k}/{len(jobs)} scenes', file=sys.stderr)


if __name__ == '__main__':
    main()
