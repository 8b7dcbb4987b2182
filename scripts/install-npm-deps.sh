#!/usr/bin/env bash
# Installs npm dependencies when they are missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies (better-sqlite3 compiles from source: about a minute)…"
  npm ci --no-audit --no-fund
fi
