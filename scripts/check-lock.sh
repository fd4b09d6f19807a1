#!/usr/bin/env bash
# Fails when package-lock.json is not what npm would write for package.json: out of sync, or
# missing another platform's optional packages (which makes `npm ci` fail on that platform and
# `npm install` rewrite the lock). Leaves the committed lock untouched either way.
set -euo pipefail
cd "$(dirname "$0")/.."
saved=$(mktemp)
trap 'cp "$saved" package-lock.json; rm -f "$saved"' EXIT
cp package-lock.json "$saved"
npm install --package-lock-only --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
if ! cmp -s "$saved" package-lock.json; then
  echo "package-lock.json is out of date: run 'npm install' and commit the lock" >&2
  diff -u "$saved" package-lock.json | head -40 >&2 || true
  exit 1
fi
echo "package-lock.json is complete and in sync"
