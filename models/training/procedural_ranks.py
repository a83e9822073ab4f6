#!/usr/bin/python3
"""Copies of the train designs whose corner rank glyphs are redrawn in other typefaces, for the index
reader's training data (models/MODEL.md, "Rank glyphs in other typefaces").

Why: on synthetic scenes of the held-out designs most lost indices have a proposal whose patch shows
the index whole and upright, and the reader still calls it "not an index" or another rank: the
neoclassical decks' 8 read as 6, their Q as 6 or 0 (index_fate.py on `synth --designs heldout`). The
train designs print their ranks in about fifteen typefaces, so the reader learnt those drawings of
each rank rather than what makes a Q a Q. Here every card's rank glyph, in both corners, is painted
out and drawn again from a TrueType or OpenType font picked at random (Debian's font packages, below),
in the glyph's own ink, at about its height, narrower or wider, bolder or not; the pip, the card and
its art stay the design's own.

usage: procedural_ranks.py ART OUT [--seed S] [--copies K] [--extra-art DIR ...] [--upright]
ART: the synth card-art cache (render_card_art.sh); --extra-art: render_kde_trimmed.py's folder.
OUT gets font<K>-<design>/faces/<RANK><SUIT>.png for each train design (models/training/designs.json's
held-out designs are never copied), laid out like the cache so that make_patches.py --extra-art reads
it. Seeded and reproducible for one set of installed fonts (the list is printed).

Fonts (apt-get install): fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-freefont-ttf
fonts-urw-base35 fonts-texgyre fonts-crosextra-carlito fonts-crosextra-caladea fonts-cantarell
fonts-ebgaramond fonts-noto-core fonts-adf-accanthis fonts-adf-baskervald fonts-adf-berenis
fonts-adf-gillius fonts-adf-libris fonts-adf-romande fonts-adf-switzera fonts-adf-universalis
fonts-adf-verana. Needs python3-pil besides python3-opencv and python3-numpy.
"""
import argparse
import glob
import os
import re
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

import make_patches as mp
from procedural_pips import design_copies, index_of, paint_out, stamp

FONT_DIRS = ['/usr/share/fonts/truetype', '/usr/share/fonts/opentype']
# symbol and dingbat faces, and script-specific Noto faces (no Latin capitals)
SKIP = re.compile(r'(Dingbat|Symbol|D050000L|StandardSymbols|Math|Emoji|Noto(?!(Sans|Serif|SansMono|SerifDisplay|'
                  r'SansDisplay)-))', re.I)
# --upright: book faces only, as printed on most cards' indices (no italic, script, mono, condensed,
# extended, light or display cuts)
NOT_UPRIGHT = re.compile(r'(Italic|Oblique|Ita|It\.|Script|Mono|Cond|Narrow|Ext|Light|Thin|Z003|Style|Display|'
                         r'Heavy|ExtraBold|Demi)')


def font_files():
    out = []
    for d in FONT_DIRS:
        for f in glob.glob(os.path.join(d, '**', '*'), recursive=True):
            if f.lower().endswith(('.ttf', '.otf')) and not SKIP.search(os.path.basename(f)):
                out.append(f)
    return sorted(out)


def usable(path):
    """Whether the font draws distinct, non-empty glyphs for the ranks (not .notdef boxes)."""
    try:
        f = ImageFont.truetype(path, 64)
    except OSError:
        return False
    seen = set()
    for ch in 'AQ8K':
        im = glyph(f, ch, 0)
        if im is None:
            return False
        seen.add(cv2.resize(im, (12, 16), interpolation=cv2.INTER_AREA).tobytes())
    return len(seen) == 4


def glyph(font, text, stroke):
    """The text's ink as a tight uint8 coverage mask, or None when nothing is drawn."""
    x0, y0, x1, y1 = font.getbbox(text, stroke_width=stroke)
    w, h = x1 - x0 + 8, y1 - y0 + 8
    if w <= 8 or h <= 8:
        return None
    im = Image.new('L', (w, h), 0)
    ImageDraw.Draw(im).text((4 - x0, 4 - y0), text, fill=255, font=font, stroke_width=stroke, stroke_fill=255)
    a = np.asarray(im)
    ys, xs = np.nonzero(a > 32)
    if len(xs) == 0:
        return None
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def rank_mask(card, centres):
    """The ink components of the card (as index_blobs thresholds it) whose centroids are the rank
    glyph's centres: their union mask, or None."""
    a = card[:, :, 3:4].astype(np.float32) / 255
    gray = cv2.cvtColor((card[:, :, :3] * a + 255 * (1 - a)).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    n, lab, _, cen = cv2.connectedComponentsWithStats((gray < 160).astype(np.uint8), connectivity=8)
    mask = np.zeros(lab.shape, bool)
    for c in centres:
        d = np.hypot(cen[1:, 0] - c[0], cen[1:, 1] - c[1])
        if len(d) == 0 or d.min() > 1.0:
            return None
        mask |= lab == 1 + int(d.argmin())
    return mask if mask.any() else None


def new_glyph(rng, fonts, rank, box):
    """The rank drawn in a random font, sized to box (x, y, w, h) of the old glyph: height 0.85-1.15 of
    it, width as the font draws it times 0.75-1.3 (at most 1.8 times the old width)."""
    for _ in range(8):
        path = fonts[int(rng.integers(len(fonts)))]
        try:
            f = ImageFont.truetype(path, 96)
        except OSError:
            continue
        g = glyph(f, rank, int(rng.choice([0, 0, 0, 1, 2, 3])))
        if g is None:
            continue
        x, y, w, h = box
        th = max(4, int(round(h * rng.uniform(0.85, 1.15))))
        tw = g.shape[1] * th / g.shape[0] * rng.uniform(0.75, 1.3)
        tw = max(3, int(round(min(tw, 1.8 * w))))
        return cv2.resize(g, (tw, th), interpolation=cv2.INTER_AREA)
    return None


def redraw(card, mask, shape):
    """Replaces the rank glyph of mask (rank_mask) by shape: bottom on the old glyph's bottom (the gap to
    the pip kept), centred on its middle."""
    x, y, w, h = cv2.boundingRect(mask.astype(np.uint8))
    ink = np.median(card[:, :, :3][mask], axis=0)
    paint_out(card, mask)
    stamp(card, shape, int(round(x + w / 2 - shape.shape[1] / 2)), y + h - shape.shape[0], ink)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('art'); ap.add_argument('out')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--copies', type=int, default=1, help='copies of each design, each with its own fonts')
    ap.add_argument('--extra-art', action='append', default=[], help="render_kde_trimmed.py's folder; repeatable")
    ap.add_argument('--upright', action='store_true', help='upright book faces only (NOT_UPRIGHT)')
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    fonts = [f for f in font_files() if usable(f) and not (a.upright and NOT_UPRIGHT.search(os.path.basename(f)))]
    if not fonts:
        sys.exit('no usable fonts: install the font packages listed in this script\'s docstring')
    print(f'{len(fonts)} fonts: ' + ' '.join(os.path.basename(f) for f in fonts), file=sys.stderr)
    for copy, n, cells, outdir in design_copies([a.art] + a.extra_art, a.copies, 'font', a.out):
        redrawn = 0
        for s in range(4):
            for r in range(13):
                card = cells[mp.class_index(r, s)].copy()
                info = index_of(card)
                mask = rank_mask(card, info[0]) if info is not None else None
                if mask is not None:
                    shape = new_glyph(rng, fonts, mp.RANKS[r], cv2.boundingRect(mask.astype(np.uint8)))
                    if shape is not None:
                        redraw(card, mask, shape)
                        redrawn += 1
                        # the bottom-right index: at the same place once the card is turned half a turn
                        turned = np.ascontiguousarray(card[::-1, ::-1])
                        turned_mask = rank_mask(turned, info[0])
                        if turned_mask is not None:
                            redraw(turned, turned_mask, shape)
                            card = np.ascontiguousarray(turned[::-1, ::-1])
                cv2.imwrite(os.path.join(outdir, mp.RANKS[r] + mp.SUITS[s] + '.png'), card)
        print(f'font{copy}-{n}: {redrawn}/52 rank glyphs redrawn', file=sys.stderr)


if __name__ == '__main__':
    main()
