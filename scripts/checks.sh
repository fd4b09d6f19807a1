#!/usr/bin/env bash
# Lint (eslint + prettier) and type-check side by side: they are independent and each keeps about
# one core busy, so CI waits for the longer of the two instead of their sum.
set -u
npm run -s lint &
lint=$!
npm run -s typecheck
typecheck_status=$?
wait "$lint"
lint_status=$?
[ "$typecheck_status" -eq 0 ] && [ "$lint_status" -eq 0 ]
