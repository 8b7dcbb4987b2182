#!/usr/bin/env bash
# `npm start`: builds everything, registers the native host, starts the daemon and opens
# Chromium with the NextAI extension and its side panel, in a profile of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-system-deps.sh
bash scripts/install-npm-deps.sh
npm run build --silent

data_dir="${NEXTAI_HOME:-$HOME/.nextai-agent}"
profile="${NEXTAI_CHROMIUM_PROFILE:-$data_dir/chromium-profile}"
chromium_bin="${CHROMIUM_PATH:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$chromium_bin" ]; then
  echo "Chromium was not found. Install it (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH." >&2
  exit 1
fi

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  # A machine without a screen (a server, a container): give Chromium — and the daemon, which
  # works on the desktop — a virtual one.
  export DISPLAY=:99
  if [ ! -S /tmp/.X11-unix/X99 ]; then
    Xvfb "$DISPLAY" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
    sleep 0.5
    openbox >/dev/null 2>&1 &
    echo "No display found: started a virtual one on $DISPLAY."
  fi
fi

mkdir -p "$profile"
# Register the host for this profile, and for the browsers this person already uses.
npx --no-install nextai install --browser chromium --user-data-dir "$profile"
npx --no-install nextai install || echo "(No other browser found to register the host with; that is fine.)"
npx --no-install nextai daemon --detach

extension_dir="$PWD/.output/chrome-mv3"
# The id is fixed by the public key in the manifest; shared/src/constants.ts names it.
extension_id="$(sed -n "s/^export const CHROME_EXTENSION_ID = '\([a-p]*\)';/\1/p" shared/src/constants.ts)"
echo
echo "NextAI Agent is running."
echo "  data directory: $data_dir"
echo "  status:         npx nextai status"
echo "  stop daemon:    npx nextai daemon stop"
echo "Opening Chromium; the toolbar button opens the side panel."
# NEXTAI_CHROMIUM_ARGS: extra Chromium flags, e.g. "--remote-debugging-port=9222".
# shellcheck disable=SC2086
exec "$chromium_bin" ${NEXTAI_CHROMIUM_ARGS:-} \
  --user-data-dir="$profile" \
  --no-first-run \
  --disable-features=DisableLoadExtensionCommandLineSwitch \
  --load-extension="$extension_dir" \
  "chrome-extension://$extension_id/sidepanel.html"
