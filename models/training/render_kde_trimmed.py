#!/usr/bin/python3
"""Renders the KDE card designs that render_card_art.sh skips, for training the index reader.

librsvg's element bounds are wrong for some cards of most KDE designs (kdegames-card-data-kf5):
rendering `rsvg-convert -i 1_spade` of svg-standard gives a 129x349 picture with the card in its
lower half, because an invisible object widens the element's ink bounds. render_card_art.sh keeps a
KDE design only when every card comes out the same size, so 13 of 15 KDE designs are skipped. Here
every card is rendered at zoom 1, trimmed to its opaque pixels, rendered again at the zoom that fits
250x350 and trimmed again; a design is kept when every face has the aspect ratio of the design's
most common one (within 3%). Faces only (the reader needs no backs); same layout as the card-art
cache (DESIGN/faces/<RANK><SUIT>.png) plus manifest.json, so make_patches.py --extra-art reads it.

usage: render_kde_trimmed.py OUT_DIR [DESIGN ...]    (DESIGN like kde-standard; default: all)
Needs rsvg-convert (librsvg2-bin), kdegames-card-data-kf5, python3-opencv, python3-numpy.
"""
import glob, gzip, json, os, subprocess, sys, tempfile
import cv2
import numpy as np

KDE = '/usr/share/carddecks'
RANKS = 'A 2 3 4 5 6 7 8 9 10 J Q K'.split()
KDE_RANKS = '1 2 3 4 5 6 7 8 9 10 jack queen king'.split()
SUITS = 'CDHS'
KDE_SUITS = ['club', 'diamond', 'heart', 'spade']
W, H = 250, 350
NOT_FRENCH = {'kde-xskat-german'}


def render(svg, elem, zoom, tmp):
    out = os.path.join(tmp, 'e.png')
    r = subprocess.run(['rsvg-convert', '-i', elem, '-z', f'{zoom:.6f}', svg, '-o', out], capture_output=True)
    if r.returncode != 0:
        return None
    return cv2.imread(out, cv2.IMREAD_UNCHANGED)


def trimmed(im):
    """The picture cut to its opaque pixels (alpha > 8), or None."""
    if im is None or im.ndim != 3 or im.shape[2] != 4:
        return None
    ys, xs = np.where(im[:, :, 3] > 8)
    if len(xs) == 0:
        return None
    return im[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def design(name, svgz, out):
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, 'd.svg')
        with open(svg, 'wb') as f:
            try:
                f.write(gzip.open(svgz).read())
            except OSError:
                f.write(open(svgz, 'rb').read())
        faces = {}
        for r, kr in zip(RANKS, KDE_RANKS):
            for s, ks in zip(SUITS, KDE_SUITS):
                z1 = trimmed(render(svg, f'{kr}_{ks}', 1.0, tmp))
                if z1 is None:
                    return f'no card {kr}_{ks}'
                zoom = min(W / z1.shape[1], H / z1.shape[0])
                im = trimmed(render(svg, f'{kr}_{ks}', zoom, tmp))
                if im is None:
                    return f'{kr}_{ks} did not render'
                faces[r + s] = im
        aspects = np.array([im.shape[1] / im.shape[0] for im in faces.values()])
        mode = np.median(aspects)
        odd = [k for k, im in faces.items() if abs(im.shape[1] / im.shape[0] / mode - 1) > 0.03]
        if odd:
            return f'{len(odd)} faces of another shape ({", ".join(odd[:6])})'
        if not 0.55 < mode < 0.85:
            return f'card aspect {mode:.2f} is not a playing card'
        d = os.path.join(out, name, 'faces')
        os.makedirs(d, exist_ok=True)
        for k, im in faces.items():
            cv2.imwrite(os.path.join(d, k + '.png'), im)
        with open(os.path.join(out, name, 'source.txt'), 'w') as f:
            f.write(f'design={name}\npackage=kdegames-card-data-kf5\nsvg={svgz}\nrenderer=render_kde_trimmed.py\n')
        return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    want = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    for d in sorted(glob.glob(os.path.join(KDE, 'svg-*'))):
        name = 'kde-' + os.path.basename(d)[4:]
        if (want and name not in want) or name in NOT_FRENCH:
            continue
        files = sorted(glob.glob(os.path.join(d, '*.svgz')) + glob.glob(os.path.join(d, '*.svg')))
        if not files:
            continue
        why = design(name, files[0], out)
        print(f'{name}: ' + ('kept' if why is None else 'skipped: ' + why), file=sys.stderr)
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        # every design the folder holds, also those of an earlier run over other designs
        designs = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d, 'faces')))
        json.dump({'designs': designs, 'renderer': 'render_kde_trimmed.py'}, f, indent=1)


if __name__ == '__main__':
    main()
