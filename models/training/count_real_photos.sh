#!/bin/bash
# `nertzref-cli count` on every real photo of ../shared/data/real-cards, as a club would count them:
# the set's black deck enrolled from one of its photos (one back lying flat, IMG_7736), faces read.
# Prints, for the pictures with no labelled face-down card and for those with some, the cards given
# to the deck, the unknown ones and the strips of rows left out as like no deck; one TSV line a
# picture goes to OUT (group, picture, labelled backs, black, unknown, face-up left out, rows left
# out). BACKS.md, "Rows that look like no deck".
#
#   bash models/training/count_real_photos.sh [OUT.tsv] [CLI]
#   (CLI: build/app/cli/nertzref-cli; NERTZ_MODEL_DIR chooses other models, as everywhere)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=${NERTZ_REAL_CARDS:-$root/../shared/data/real-cards}
out=${1:-/tmp/count_real_photos.tsv}
cli=${2:-$root/build/app/cli/nertzref-cli}
[ -d "$data" ] || { echo "no real photos at $data (set NERTZ_REAL_CARDS)" >&2; exit 2; }
[ -x "$cli" ] || { echo "no nertzref-cli at $cli (build first, or give its path)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" backs enroll --deck black --out "$work/black.sig" "$data/phone/images/IMG_7736.jpg" > /dev/null
back=$(awk '$1 == "BACK" {print NR - 1}' "$data/classes.txt")
: > "$out.part"
for group in phone webcam_handheld webcam_table; do
    for img in "$data/$group"/images/*.jpg; do
        name=$(basename "$img" .jpg)
        labelled=$(grep -c "^$back " "$data/$group/labels/$name.txt" || true)
        "$cli" count --back "black=$work/black.sig" "$img" --json | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
print('\t'.join(map(str, ['$group', '$name', $labelled, d['counts']['black'], d['unknown'],
                          d.get('face_up', 0), d.get('rows_left_out', 0)])))" >> "$out.part"
    done
done
mv "$out.part" "$out"
awk -F'\t' '{k = ($3 == 0) ? "no face-down card" : "face-down cards"; n[k]++; l[k] += $3; b[k] += $4;
             u[k] += $5; f[k] += $6; r[k] += $7}
     END {for (k in n) printf "%d pictures with %s (%d labelled): black %d, unknown %d, face-up left out %d, row strips left out %d\n",
                                n[k], k, l[k], b[k], u[k], f[k], r[k]}' "$out"
