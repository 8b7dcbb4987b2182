#!/usr/bin/env bash
# `npm test`: every test, from a fresh clone. Installs what it needs (system packages, npm
# dependencies), builds, then runs format/lint/typecheck/unit tests, desktop tests under a real X
# server, integration tests against real processes, and end-to-end tests in real Chromium and Firefox.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh
bash scripts/install-npm-deps.sh

echo "== build"
npm run build
echo "== check (format, lint, typecheck, unit tests)"
npm run check
echo "== desktop tests (real X server: Xvfb + openbox)"
npm run test:desktop
echo "== integration tests"
npm run test:integration
echo "== end-to-end tests (Chromium, Firefox)"
npm run test:e2e
