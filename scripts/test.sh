#!/usr/bin/env bash
# `npm test`: every layer in order — lint, types, unit, medium, e2e, system — each timed. Stops at
# the first layer that fails; prints a summary of the layers run and their wall time either way.
set -uo pipefail
cd "$(dirname "$0")/.."

summary=()
report() {
  echo
  echo "Test layers (wall time on this machine, $(nproc) cores):"
  printf '  %s\n' "${summary[@]}"
}
layer() {
  local name=$1
  shift
  local started=$SECONDS
  echo
  echo "=== ${name}: $*"
  "$@"
  local code=$?
  local verdict=passed
  [ "$code" -eq 0 ] || verdict="FAILED (exit $code)"
  summary+=("$(printf '%-10s %6ss  %s' "$name" "$((SECONDS - started))" "$verdict")")
  if [ "$code" -ne 0 ]; then
    report
    exit "$code"
  fi
}

layer lint npm run -s lint
layer types npm run -s typecheck
layer unit npm run -s test:unit
layer medium npm run -s test:medium
layer e2e npm run -s test:e2e
layer system npm run -s test:system
report
