#!/usr/bin/python3
"""Real photos as "no face-down card here" for the back segmenter's training (BACKS.md, "Real
photos as negatives").

The labelled real photos of ../shared/data/real-cards hold face-up cards, desks, keyboards, hands
and a knitted blanket, and only 21 face-down cards (class BACK, in 12 pictures). A picture with no
BACK label shows no face-down card anywhere, so its whole mask is "not a card": the synthetic
tables never showed the segmenter such clutter, and it took textures for backs by the dozen.

Split (by file name order, so that the same command gives the same folders):
  OUT/train         phone pictures with no BACK, even positions, and every webcam_handheld picture
                    with no BACK: images/ (links) and masks/ (all zero: table), as
                    train_back_seg.py reads a synthetic scene without its JSON. Not the phone
                    pictures of the black/gold deck (named IMG_NNNN: the series that holds every
                    labelled BACK): its face-up cards are its plain black backs but for the pips,
                    which the face reader, not the segmenter, is there to tell apart in `count`
  OUT/phone_odd     phone pictures with no BACK, odd positions: never trained on (eval-backs)
                    (the black deck's pictures at even positions are in no folder)
  OUT/phone_backs   the 11 phone pictures with a BACK: never trained on (eval-backs: recall)
webcam_table (49 pictures, none with a BACK, the closest to a lake) is not used at all: measure on it.

    /usr/bin/python3 models/training/real_negatives.py ../shared/data/real-cards /tmp/rn
"""
import glob
import os
import sys

import cv2
import numpy as np

BACK = 40  # classes.txt index of BACK


def has_back(label_path):
    with open(label_path) as f:
        return any(line.split()[:1] == [str(BACK)] for line in f)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: real_negatives.py REAL_CARDS_DIR OUT')
    src, out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        sys.exit(f'{out} exists: give a new folder')
    for sub in ('images', 'masks'):
        os.makedirs(os.path.join(out, 'train', sub))
    for d in ('phone_odd', 'phone_backs'):
        for sub in ('images', 'labels'):
            os.makedirs(os.path.join(out, d, sub))
        with open(os.path.join(src, 'classes.txt')) as f, open(os.path.join(out, d, 'classes.txt'), 'w') as g:
            g.write(f.read())

    def negative(path, prefix):
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            sys.exit(f'{path}: not a readable picture')
        stem = prefix + os.path.basename(path)[:-4]
        os.symlink(os.path.abspath(path), os.path.join(out, 'train', 'images', stem + '.jpg'))
        cv2.imwrite(os.path.join(out, 'train', 'masks', stem + '.png'), np.zeros(img.shape[:2], np.uint8))

    counts = {'train': 0, 'phone_odd': 0, 'phone_backs': 0}
    phone = sorted(glob.glob(os.path.join(src, 'phone', 'images', '*.jpg')))
    for i, p in enumerate(phone):
        stem = os.path.basename(p)[:-4]
        label = os.path.join(src, 'phone', 'labels', stem + '.txt')
        black_deck = stem[4:].isdigit()  # IMG_7719 (black/gold deck), not IMG_20220921_193915
        if has_back(label):
            kept = 'phone_backs'
        elif i % 2 == 0 and black_deck:
            continue
        elif i % 2 == 0:
            negative(p, 'p_')
            counts['train'] += 1
            continue
        else:
            kept = 'phone_odd'
        os.symlink(os.path.abspath(p), os.path.join(out, kept, 'images', stem + '.jpg'))
        os.symlink(os.path.abspath(label), os.path.join(out, kept, 'labels', stem + '.txt'))
        counts[kept] += 1
    for p in sorted(glob.glob(os.path.join(src, 'webcam_handheld', 'images', '*.jpg'))):
        stem = os.path.basename(p)[:-4]
        if not has_back(os.path.join(src, 'webcam_handheld', 'labels', stem + '.txt')):
            negative(p, 'h_')
            counts['train'] += 1
    print(' '.join(f'{k} {v}' for k, v in counts.items()))


if __name__ == '__main__':
    main()
