#!/usr/bin/env bash
# Renders the real card artwork of Debian's gnome-cards-data and kdegames-card-data-kf5 to PNG:
# every face (52) and every back of every French-suited deck design, into the card-art cache that
# nertz::synth reads. Reproducible and idempotent: a design whose files are all there is skipped.
#
# usage: render_card_art.sh [CACHE_DIR [DESIGN...]]
#   CACHE_DIR default: $NERTZ_CARDART, else ~/.cache/nertzref/cardart. Naming DESIGNs (e.g.
#   gnome-simplistic) renders only those (tests use this for a small cache).
# layout: CACHE_DIR/<design>/faces/<CARD>.png (CARD: AS, 10H, ...), CACHE_DIR/<design>/backs/<id>.png,
#         CACHE_DIR/<design>/source.txt, CACHE_DIR/manifest.json (all designs), CACHE_DIR/COMPLETE
# Cards are rendered to fit 250x350 px keeping each design's true aspect ratio, on transparency.
set -euo pipefail

cache=${1:-${NERTZ_CARDART:-${XDG_CACHE_HOME:-$HOME/.cache}/nertzref/cardart}}
shift || true
only=("$@")
width=250
height=350
version=3   # bump when the rendering changes; a cache with another version is re-rendered

command -v rsvg-convert >/dev/null || { echo "render_card_art: rsvg-convert missing: apt-get install librsvg2-bin (scripts/setup.sh)" >&2; exit 1; }
gnome_dir=/usr/share/aisleriot/cards
kde_dir=/usr/share/carddecks
[ -d "$gnome_dir" ] || { echo "render_card_art: $gnome_dir missing: apt-get install gnome-cards-data (scripts/setup.sh)" >&2; exit 1; }
[ -d "$kde_dir" ] || { echo "render_card_art: $kde_dir missing: apt-get install kdegames-card-data-kf5 (scripts/setup.sh)" >&2; exit 1; }

if [ ${#only[@]} -eq 0 ] && [ -f "$cache/COMPLETE" ] && [ "$(cat "$cache/COMPLETE")" = "$version" ]; then
  echo "render_card_art: cache complete: $cache" >&2
  exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ranks=(1 2 3 4 5 6 7 8 9 10 11 12 13)
rank_names=(A 2 3 4 5 6 7 8 9 10 J Q K)
gnome_ranks=(1 2 3 4 5 6 7 8 9 10 jack queen king)
kde_ranks=(1 2 3 4 5 6 7 8 9 10 jack queen king)
suits=(club diamond heart spade)
suit_letters=(C D H S)

# Designs left out: not French-suited (German/Swiss/tarot pips), Cyrillic ranks (slavic-costumes),
# no corner index (tango-nuevo: rank and suit in different corners), or duplicates of another
# design (the bitmap variants).
skip_re='^(kde-xskat-german|gnome-slavic-costumes|gnome-tango-nuevo|gnome-swiss-xvii|gnome-tarocco|gnome-atlasnye-skat|gnome-anglo-bitmap|gnome-gnomangelo-bitmap)$'

# render_design NAME PACKAGE SVGZ STYLE(gnome|kde)
render_design() {
  local name=$1 package=$2 svgz=$3 style=$4
  local out="$cache/$name"
  if [[ $name =~ $skip_re ]]; then rm -rf "$out"; return 0; fi
  if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then return 0; fi
  if grep -qx "version=$version" "$out/source.txt" 2>/dev/null && [ "$(ls "$out/faces" 2>/dev/null | wc -l)" -eq 52 ] && [ -n "$(ls "$out/backs" 2>/dev/null)" ]; then
    return 0
  fi
  local svg="$tmp/$name.svg"
  if ! gzip -dc "$svgz" >"$svg" 2>/dev/null; then cp "$svgz" "$svg"; fi
  # every card id must be present, or the design is not a standard 52-card deck
  local r s id
  for r in "${!ranks[@]}"; do
    for s in "${!suits[@]}"; do
      if [ "$style" = gnome ]; then id="${suits[$s]}_${gnome_ranks[$r]}"; else id="${kde_ranks[$r]}_${suits[$s]}"; fi
      grep -q "id=\"$id\"" "$svg" || { echo "render_card_art: skip $name: no card '$id'" >&2; return 0; }
    done
  done
  rm -rf "$out.part"
  mkdir -p "$out.part/faces" "$out.part/backs"
  local backs ok=1
  if [ "$style" = gnome ]; then
    # GNOME sheets are a 13x5 grid (rows: clubs, diamonds, hearts, spades; then black joker, red
    # joker, back); element bounding boxes are unreliable, so each grid cell is rendered as a page.
    local dims sw sh cw ch
    rsvg-convert "$svg" -o "$tmp/sheet.png"
    dims=$(head -c 24 "$tmp/sheet.png" | od -An -tu1 -j16 | tr -s ' ')
    read -r b0 b1 b2 b3 b4 b5 b6 b7 <<<"$dims"
    sw=$(( (b0 << 24) | (b1 << 16) | (b2 << 8) | b3 ))
    sh=$(( (b4 << 24) | (b5 << 16) | (b6 << 8) | b7 ))
    # cell size fitting width x height with the cell's true aspect (sw/13 : sh/5)
    ch=$height
    cw=$(( (sw * 5 * height + sh * 13 / 2) / (sh * 13) ))
    if [ $cw -gt $width ]; then cw=$width; ch=$(( (sh * 13 * width + sw * 5 / 2) / (sw * 5) )); fi
    cell() {  # cell COL ROW FILE
      rsvg-convert -w $((13 * cw)) -h $((5 * ch)) --page-width $cw --page-height $ch \
        --left=-$(($1 * cw)) --top=-$(($2 * ch)) "$svg" -o "$3" 2>"$tmp/err"
    }
    for r in "${!ranks[@]}"; do
      for s in "${!suits[@]}"; do
        cell "$r" "$s" "$out.part/faces/${rank_names[$r]}${suit_letters[$s]}.png" || ok=0
      done
    done
    cell 2 4 "$out.part/backs/back.png" || ok=0
    backs=back
  else
    # KDE themes are rendered element by element (libkcardgame draws them by id the same way):
    # the element's size at zoom 1 gives the zoom that fits width x height.
    element() {  # element ID FILE
      rsvg-convert -i "$1" -z 1 "$svg" -o "$tmp/z1.png" 2>"$tmp/err" || return 1
      local d w h
      d=$(head -c 24 "$tmp/z1.png" | od -An -tu1 -j16 | tr -s ' ')
      read -r b0 b1 b2 b3 b4 b5 b6 b7 <<<"$d"
      w=$(( (b0 << 24) | (b1 << 16) | (b2 << 8) | b3 ))
      h=$(( (b4 << 24) | (b5 << 16) | (b6 << 8) | b7 ))
      rsvg-convert -i "$1" -z "$(awk -v w=$w -v h=$h -v W=$width -v H=$height 'BEGIN { z = W / w; if (H / h < z) z = H / h; printf "%.6f", z }')" \
        "$svg" -o "$2" 2>"$tmp/err"
    }
    for r in "${!ranks[@]}"; do
      for s in "${!suits[@]}"; do
        element "${kde_ranks[$r]}_${suits[$s]}" "$out.part/faces/${rank_names[$r]}${suit_letters[$s]}.png" || ok=0
      done
    done
    backs=$(grep -oE 'id="back(_c[0-9]+)?"' "$svg" | sed -E 's/id="(.*)"/\1/' | sort -u)
    for id in $backs; do
      element "$id" "$out.part/backs/$id.png" || rm -f "$out.part/backs/$id.png"
    done
  fi
  if [ $ok -eq 1 ] && [ "$style" = kde ]; then
    # librsvg's element bounds are wrong for some KDE cards (clipped or shifted art): keep a KDE
    # design only when every face and back came out the same size.
    local f sizes mode
    sizes=$(for f in "$out.part"/faces/*.png "$out.part"/backs/*.png; do head -c 24 "$f" | od -An -tu1 -j16 | tr -s ' '; done)
    mode=$(echo "$sizes" | sort | uniq -c | sort -rn | head -n1 | sed -E 's/^ *[0-9]+ //')
    for f in "$out.part"/backs/*.png; do
      [ "$(head -c 24 "$f" | od -An -tu1 -j16 | tr -s ' ')" = "$mode" ] || rm -f "$f"
    done
    if [ "$(echo "$sizes" | grep -cxF "$mode")" -lt $((52 + 1)) ] || [ -z "$(ls "$out.part/backs")" ]; then
      echo "render_card_art: skip $name: librsvg gives its cards inconsistent bounds" >&2
      rm -rf "$out.part"
      return 0
    fi
  fi
  if [ $ok -eq 0 ]; then
    echo "render_card_art: skip $name: rsvg-convert failed: $(head -c 200 "$tmp/err")" >&2
    rm -rf "$out.part"
    return 0
  fi
  [ -n "$(ls "$out.part/backs")" ] || { echo "render_card_art: skip $name: no back renders" >&2; rm -rf "$out.part"; return 0; }
  printf 'design=%s\npackage=%s\nsvg=%s\nbacks=%s\nversion=%s\n' "$name" "$package" "$svgz" "$(cd "$out.part/backs" && echo *.png)" "$version" \
    >"$out.part/source.txt"
  rm -rf "$out"
  mv "$out.part" "$out"
  echo "render_card_art: $name ($(ls "$out/backs" | wc -l) backs)" >&2
}

for f in "$gnome_dir"/*.svgz; do
  base=$(basename "$f" .svgz)
  [[ $base =~ ^[a-z0-9_-]+$ ]] || continue   # the Cyrillic-named file duplicates atlasnye
  render_design "gnome-${base//_/-}" gnome-cards-data "$f" gnome
done
for d in "$kde_dir"/svg-*; do
  f=$(ls "$d"/*.svgz | head -n1)
  base=$(basename "$d")
  render_design "kde-${base#svg-}" kdegames-card-data-kf5 "$f" kde
done

# manifest.json: every design in the cache, its source package and files
{
  echo '{'
  echo "  \"version\": $version, \"card_width\": $width, \"card_height\": $height,"
  echo '  "designs": ['
  first=1
  for dir in "$cache"/*/; do
    [ -f "$dir/source.txt" ] || continue
    name=$(basename "$dir")
    package=$(sed -n 's/^package=//p' "$dir/source.txt")
    svg=$(sed -n 's/^svg=//p' "$dir/source.txt")
    backs=$(cd "$dir/backs" && ls *.png | sed 's/.*/"backs\/&"/' | paste -sd, -)
    [ $first -eq 1 ] || echo ','
    first=0
    printf '    {"name": "%s", "package": "%s", "svg": "%s", "faces": "faces/<CARD>.png", "backs": [%s]}' \
      "$name" "$package" "$svg" "$backs"
  done
  echo
  echo '  ]'
  echo '}'
} >"$cache/manifest.json"
[ ${#only[@]} -gt 0 ] || echo "$version" >"$cache/COMPLETE"
echo "render_card_art: done: $cache" >&2
