#!/usr/bin/env bash
# The duplicates report over the tracked tree, without skills/previous/ (earlier versions kept byte for byte,
# so they repeat the current skills by design). Arguments go to `duplicates` (e.g. --most 40).
# `duplicates` is a tool of the development machines (/usr/local/bin), not an npm package.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v duplicates >/dev/null 2>&1; then
  echo "duplicates: not installed on this machine (a development-machine tool; nothing to report)" >&2
  exit 2
fi
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
# The working tree's tracked and untracked-but-not-ignored files, as `duplicates` itself would read them.
git ls-files -z --cached --others --exclude-standard | grep -zv '^skills/previous/' | while IFS= read -r -d '' file; do
  [ -f "$file" ] || continue
  mkdir -p "$tree/$(dirname "$file")"
  cp -p "$file" "$tree/$file"
done
duplicates --repo "$tree" "$@" | sed "s#$tree/##g"
