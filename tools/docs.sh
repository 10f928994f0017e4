#!/usr/bin/env bash
# Regenerates (or, with --check, verifies) what docs quote from ringsim: every fenced block
# that follows a marker
#
#   <!-- docs: COMMAND -->          the block becomes "$ COMMAND" and COMMAND's stdout
#   <!-- docs-command: COMMAND -->  the block becomes "$ COMMAND" alone (e.g. it makes a picture)
#   <!-- docs-hidden: COMMAND -->   COMMAND runs; nothing is shown, no block follows
#   <!-- docs-run -->               every command of the next block runs (lines joined at a
#                                   trailing backslash); the block stays as written
#
# Commands run in order, per page, in a scratch directory that looks like the repository's
# root (scenarios/, tools/, tests/ link to the repository; docs/img/ is where pictures go),
# with `ringsim` on PATH being the build's. Their stderr is not shown (it carries wall-clock
# figures). With --check, nothing in the repository changes: the pages and the pictures
# (SVG) made anew must equal the committed ones, or the difference is printed and the exit
# status is 1. tests/CMakeLists.txt runs `tools/docs.sh --check`.
#
#   tools/docs.sh [--check] [--build DIR] [PAGE.md...]     (default: README.md docs/*.md)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
check=0 build=build
pages=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --check) check=1; shift ;;
    --build) build=${2:?}; shift 2 ;;
    -*) echo "docs.sh: unknown flag $1" >&2; exit 2 ;;
    *) pages+=("$1"); shift ;;
  esac
done
((${#pages[@]})) || pages=(README.md docs/*.md)
binary=$(cd "$build" 2>/dev/null && pwd)/ringsim
[[ -x $binary ]] || { echo "docs.sh: no ringsim binary in $build (build first)" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/root/docs/img" "$scratch/out"
ln -s "$binary" "$scratch/bin/ringsim"
for d in scenarios tools tests; do ln -s "$repo/$d" "$scratch/root/$d"; done
export PATH="$scratch/bin:$PATH"

status=0
for page in "${pages[@]}"; do
  grep -q '^<!-- docs\(\(-hidden\|-command\)\?: \|-run -->\)' "$page" || continue
  new="$scratch/out/$(echo "$page" | tr / _)"
  : >"$new"
  skipping=0 pending="" running=0 joined=""
  while IFS= read -r line || [[ -n $line ]]; do
    if ((running == 1)) && [[ $line == '```'* ]]; then
      running=2
    elif ((running == 2)) && [[ $line == '```' ]]; then
      running=0
    elif ((running == 2)); then
      joined+=$line
      if [[ $joined == *\\ ]]; then
        joined=${joined%\\}
      else
        cmd=$joined joined=""
        if [[ -n ${cmd// /} && $cmd != \#* ]] &&
          ! (cd "$scratch/root" && bash -o pipefail -c "$cmd" >/dev/null 2>"$scratch/stderr"); then
          echo "docs.sh: $page: '$cmd' failed:" >&2
          cat "$scratch/stderr" >&2
          exit 1
        fi
      fi
    fi
    [[ $line == '<!-- docs-run -->' ]] && running=1
    if ((skipping)); then
      # Drop the old block: from its opening fence to its closing one.
      if [[ $skipping == 1 && $line == '```'* ]]; then skipping=2; continue; fi
      if [[ $skipping == 2 ]]; then [[ $line == '```' ]] && skipping=0; continue; fi
    fi
    printf '%s\n' "$line" >>"$new"
    if [[ $line =~ ^\<\!--\ docs(-hidden|-command)?:\ (.*)\ --\>$ ]]; then
      cmd=${BASH_REMATCH[2]}
      if ! output=$(cd "$scratch/root" && bash -o pipefail -c "$cmd" 2>"$scratch/stderr"); then
        echo "docs.sh: $page: '$cmd' failed:" >&2
        cat "$scratch/stderr" >&2
        exit 1
      fi
      kind=${BASH_REMATCH[1]}
      if [[ $kind != -hidden ]]; then
        [[ $kind == -command ]] && output=""
        shown=${cmd//; /$'\n'\$ }     # one command per line, as a reader types them
        shown=${shown// && /$'\n'\$ }
        { printf '```console\n$ %s\n' "$shown"; [[ -n $output ]] && printf '%s\n' "$output"; printf '```\n'; } >>"$new"
        skipping=1
      fi
    elif ((skipping == 1)); then
      skipping=0 # a marker whose next line is not a block: nothing to replace
    fi
  done <"$page"
  if ((check)); then
    if ! diff -u "$page" "$new" >"$scratch/diff"; then
      echo "docs.sh: $page is out of date (run tools/docs.sh):" >&2
      cat "$scratch/diff" >&2
      status=1
    fi
  else
    cmp -s "$page" "$new" || { cp "$new" "$page"; echo "docs.sh: rewrote $page"; }
  fi
done

# Pictures: the SVGs must match; PNGs are copied with them.
for svg in "$scratch"/root/docs/img/*.svg; do
  [[ -e $svg ]] || continue
  name=$(basename "$svg" .svg)
  if ((check)); then
    if ! cmp -s "$svg" "docs/img/$name.svg"; then
      echo "docs.sh: docs/img/$name.svg is out of date (run tools/docs.sh)" >&2
      status=1
    fi
  else
    mkdir -p docs/img
    cmp -s "$svg" "docs/img/$name.svg" || echo "docs.sh: rewrote docs/img/$name.svg and .png"
    cp "$svg" "docs/img/$name.svg"
    [[ -e ${svg%.svg}.png ]] && cp "${svg%.svg}.png" "docs/img/$name.png"
  fi
done
exit $status
