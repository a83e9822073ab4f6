"""Index candidate proposals, the Python twin of vision/src/index_proposals.cpp.

Both must stay identical: the classifier is trained on exactly the patches the C++ pipeline
cuts. A candidate is an ordered pair of ink blobs (A above B: rank glyph above suit pip); the
patch is cut upright along the A->B axis.
"""
import cv2
import numpy as np

PATCH_W, PATCH_H = 24, 40     # classifier input (width, height), grayscale
SPAN_W, SPAN_H = 1.5, 2.5     # patch extent in units of the A-B centre distance
WORK_MAX, WORK_MIN = 1280, 960  # the detector's working size (C++ DetectorOptions::workMaxSide / workMinSide;
                                # the training scenes are made at 640-854 px and never resized by it)
BLOCK, THRESH_C = 25, 10      # adaptive threshold (mean) window and offset
MIN_BLOB, MAX_BLOB = 5, 28    # blob size (longest bbox side) at pyramid levels 1..
MIN_BLOB0 = 4                 # smallest blob at level 0 (4 reaches the 4-6 px glyphs of small lake cards)
# oversized components of the first SPLIT_LEVELS levels are split (ink_blobs); 0 = off. Same defaults as
# the C++ ProposalParams (on since the reader was retrained on its patches: MODEL.md)
SPLIT_LEVELS, PAPER_CLOSE = 1, 7
LEVELS, MIN_LEVEL_SIDE = 4, 48
IDEAL_D = 16.0                # A-B distance the patch is best cut at (pyramid level chosen for it)


def glyph_blobs(bw, min_blob, want_big=False):
    """Glyph-sized connected components of mask bw: list of (x, y, size), and (want_big) the mask of
    the components too large to be a glyph (longest side > MAX_BLOB), else None."""
    n, lab, st, cen = cv2.connectedComponentsWithStats(bw, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, bw_, bh, a = st[i]
        s = max(bw_, bh)
        if s < min_blob or s > MAX_BLOB or a < 10:
            continue
        fill = a / float(bw_ * bh)
        if fill < 0.12 or fill > 0.97:
            continue
        out.append((float(cen[i][0]), float(cen[i][1]), float(s)))
    if not want_big:
        return out, None
    big = np.maximum(st[:, 2], st[:, 3]) > MAX_BLOB
    big[0] = False
    return out, (big[lab].astype(np.uint8) * 255)


def ink_blobs(gray, invert=False, min_blob=MIN_BLOB, split=False):
    """Connected components of locally dark (light, if invert) ink of glyph size: (x, y, size).
    With split, the oversized components are also cut by the opposite-polarity mask ("paper",
    lighter than the local mean) closed by a PAPER_CLOSE square, and the glyph-sized pieces added:
    that frees a corner glyph merged with the dark table band along a card's edge (the paper around
    the glyph closes over it; the band has paper on one side only)."""
    g = 255 - gray if invert else gray
    bw = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, BLOCK, THRESH_C)
    out, big = glyph_blobs(bw, min_blob, split)
    if split and big.any():
        paper = cv2.adaptiveThreshold(255 - g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, BLOCK, THRESH_C)
        paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, np.ones((PAPER_CLOSE, PAPER_CLOSE), np.uint8))
        out += glyph_blobs(big & paper, min_blob)[0]
    return out


def pairs(blobs):
    """Ordered pairs (i, j) of blobs that could be rank glyph i above suit pip j (same order as the
    C++ double loop: i major)."""
    if len(blobs) < 2:
        return []
    b = np.asarray(blobs, np.float32)
    x, y, s = b[:, 0], b[:, 1], b[:, 2]
    smax = np.maximum(s[:, None], s[None, :]); smin = np.minimum(s[:, None], s[None, :])
    dx = x[:, None] - x[None, :]; dy = y[:, None] - y[None, :]
    d2 = dx * dx + dy * dy
    lo = np.float32(0.55) * smax; hi = np.float32(1.9) * smax
    ok = (smin >= np.float32(0.3) * smax) & (d2 > lo * lo) & (d2 < hi * hi)
    np.fill_diagonal(ok, False)
    i, j = np.nonzero(ok)
    return list(zip(i.tolist(), j.tolist()))


def pyramid(gray):
    levels = [gray]
    while len(levels) < LEVELS and min(levels[-1].shape) >= 2 * MIN_LEVEL_SIDE:
        g = levels[-1]
        levels.append(cv2.resize(g, (g.shape[1] // 2, g.shape[0] // 2), interpolation=cv2.INTER_AREA))
    return levels


def cut_patch(gray, ax, ay, bx, by):
    """Upright patch with A (rank) above B (pip), PATCH_W x PATCH_H, from image gray."""
    vx, vy = bx - ax, by - ay                    # down direction
    d = float(np.hypot(vx, vy))
    dx, dy = vx / d, vy / d
    rx, ry = -dy, dx                             # right direction (image y down)
    cx, cy = (ax + bx) / 2, (ay + by) / 2
    sw, sh = SPAN_W * d, SPAN_H * d
    # affine map patch -> image: p = c + r*(u - W/2)*sw/W + dn*(v - H/2)*sh/H
    kx, ky = sw / PATCH_W, sh / PATCH_H
    M = np.float64([[rx * kx, dx * ky, cx - rx * sw / 2 - dx * sh / 2],
                    [ry * kx, dy * ky, cy - ry * sw / 2 - dy * sh / 2]])
    return cv2.warpAffine(gray, M, (PATCH_W, PATCH_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def propose(gray, select=None):
    """All candidates of a grayscale working image: list of (ax, ay, bx, by, invert) in image
    pixels and the matching uint8 patches (ink made dark when invert). select(cands) may pick
    the indices whose patches are cut (the others get None)."""
    g = cv2.medianBlur(gray, 3)
    levels = pyramid(g)
    inv_levels = [255 - l for l in levels]
    cands = []
    for li, lev in enumerate(levels):
        f = float(1 << li)
        for inv in (False, True):
            bl = ink_blobs(lev, inv, MIN_BLOB0 if li == 0 else MIN_BLOB, li < SPLIT_LEVELS)
            for i, j in pairs(bl):
                cands.append((bl[i][0] * f, bl[i][1] * f, bl[j][0] * f, bl[j][1] * f, inv))
    keep = range(len(cands)) if select is None else select(cands)
    patches = [None] * len(cands)
    for n in keep:
        patches[n] = cut_candidate(levels, inv_levels, *cands[n])
    return cands, patches


def cut_candidate(levels, inv_levels, ax, ay, bx, by, inv):
    """The patch of the pair A (ax, ay) - B (bx, by) (level-0 pixels), from the pyramid level its
    distance is best cut at (C++ cutIndexPatch); inv_levels: the levels inverted (light ink)."""
    d = np.hypot(bx - ax, by - ay)
    k = int(np.clip(np.round(np.log2(max(d, 1e-3) / IDEAL_D)), 0, len(levels) - 1))
    q = float(1 << k)
    return cut_patch((inv_levels if inv else levels)[k], ax / q, ay / q, bx / q, by / q)
