#!/usr/bin/env bash
# Make what a device command carries fit its 64 MiB, and put everything back afterwards:
#   bash benchmarks/gpu_travel.sh light     # before the device calls
#   bash benchmarks/gpu_travel.sh restore   # after them, before any commit
# Why: a device command carries the tracked tree, the untracked files git does not ignore and the carried
# paths (.whl/, ~30 MiB). The tracked tree outgrew the limit on its own (75 MiB on 2026-12-04), most of it
# benchmarks/results/her-hand and benchmarks/results/metaworld (policies and metrics that no device
# command reads). `light` takes those folders out of git's index and ignores them (.git/info/exclude,
# between marker lines), and sets aside the two wheels training never imports (mujoco_studio 13 MiB,
# pyopengl 3 MiB) in .whl-aside/; `restore` gives the index back as HEAD has it, removes the marker lines
# and returns the wheels. No file on disk is touched. Commit nothing in between: the folders would be
# committed as deleted.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
heavy=(benchmarks/results/her-hand benchmarks/results/metaworld)
exclude=.git/info/exclude
begin="# gpu_travel.sh light: begin" end="# gpu_travel.sh light: end"
size() {  # MiB that travel without the carried paths
  { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 stat -c %s 2>/dev/null \
    | awk '{s += $1} END {printf "%.1f", s / 1048576}'
}
case "${1:-}" in
  light)
    if grep -qx "$begin" "$exclude" 2>/dev/null; then echo "already light ($(size) MiB)"; exit 0; fi
    git rm -r -q --cached "${heavy[@]}"
    { echo "$begin"; for h in "${heavy[@]}"; do echo "/$h/"; done; echo "$end"; } >> "$exclude"
    mkdir -p .whl-aside
    grep -qx '/.whl-aside/' "$exclude" || echo '/.whl-aside/' >> "$exclude"
    mv .whl/mujoco_studio-* .whl/pyopengl-* .whl-aside/ 2>/dev/null || true
    echo "tree $(size) MiB, .whl $(du -sm .whl 2>/dev/null | cut -f1) MiB (limit 64 MiB together)"
    ;;
  restore)
    git reset -q -- "${heavy[@]}"
    sed -i "/^$begin\$/,/^$end\$/d" "$exclude"
    mv .whl-aside/* .whl/ 2>/dev/null || true
    git status --short -- "${heavy[@]}" | head -3
    echo "restored: tree $(size) MiB"
    ;;
  *) echo "usage: $0 light|restore" >&2; exit 2 ;;
esac
