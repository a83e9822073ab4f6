#!/usr/bin/env bash
# Renders the back of a few real deck designs (Debian's gnome-cards-data) to OUT/<design>.png for
# the back tests: the 13x5 GNOME sheet's back cell (column 2, row 4) at the sheet's own size, RGBA;
# orell at 3x (its fine checker as sharp as the scene generator's card art draws it).
set -euo pipefail
out=$1
mkdir -p "$out"
command -v rsvg-convert >/dev/null || { echo "render_test_backs: rsvg-convert missing (librsvg2-bin)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for design in bellot anglo paris ornamental orell; do
  [ -s "$out/$design.png" ] && continue
  src=/usr/share/aisleriot/cards/$design.svgz
  [ -f "$src" ] || { echo "render_test_backs: $src missing (gnome-cards-data)" >&2; exit 1; }
  gzip -dc "$src" >"$tmp/$design.svg"
  rsvg-convert "$tmp/$design.svg" -o "$tmp/sheet.png"
  # sheet size from the PNG header
  read -r w h < <(od -An -tu1 -j16 -N8 "$tmp/sheet.png" | awk '{print ($1*16777216+$2*65536+$3*256+$4), ($5*16777216+$6*65536+$7*256+$8)}')
  k=1; [ "$design" = orell ] && k=3
  cw=$(( k * w / 13 )); ch=$(( k * h / 5 ))
  rsvg-convert -w $((13 * cw)) -h $((5 * ch)) --page-width $cw --page-height $ch --left=-$((2 * cw)) --top=-$((4 * ch)) \
    "$tmp/$design.svg" -o "$out/$design.png.part"
  mv "$out/$design.png.part" "$out/$design.png"
done
