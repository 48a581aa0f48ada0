#!/usr/bin/env bash
# `npm run up`: from a clean clone to a running registry on one machine. Starts PostgreSQL and Redis
# when they do not answer, writes .env from .env.example if there is none, installs, builds, then
# runs the API and a worker (migrations applied and vocabularies seeded first). Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-services.sh
if [ ! -f .env ]; then
  cp .env.example .env
  echo "up: wrote .env from .env.example"
fi
# --no-save: install exactly what package-lock.json names without rewriting it (npm would add this
# platform's optional packages to it).
npm install --no-audit --no-fund --no-save
npm run build
exec node dist/src/start-all.js
