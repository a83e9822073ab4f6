#!/usr/bin/env bash
# Renders each GNOME aisleriot card sheet (a 13x5 grid: clubs, diamonds, hearts, spades, then
# jokers and back) to one PNG, 13*180 px wide, for make_crops.py. usage: render_sheets.sh OUTDIR
set -euo pipefail
out=${1:?usage: render_sheets.sh OUTDIR}
mkdir -p "$out"
for f in /usr/share/aisleriot/cards/*.svgz; do
  name=$(basename "$f" .svgz)
  case $name in swiss-xvii|tarocco|atlasnye_skat|anglo_bitmap|gnomangelo_bitmap|*[!a-z0-9_-]*) continue ;; esac
  [ -s "$out/$name.png" ] || rsvg-convert -w $((13 * 180)) "$f" -o "$out/$name.png"
done
