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
extra_flags=()
if [ "$(id -u)" -eq 0 ]; then
  # Chromium refuses to run as root with its sandbox on.
  extra_flags+=(--no-sandbox)
fi
# NEXTAI_CHROMIUM_ARGS: extra Chromium flags, e.g. "--remote-debugging-port=9222".
# shellcheck disable=SC2086
"$chromium_bin" "${extra_flags[@]}" ${NEXTAI_CHROMIUM_ARGS:-} \
  --user-data-dir="$profile" \
  --no-first-run \
  --disable-features=DisableLoadExtensionCommandLineSwitch \
  --load-extension="$extension_dir" &
browser_pid=$!
# Open the side panel page once the browser (and with it the extension) is up: a URL given at
# launch can race the extension's loading and end on an error page. A second invocation with the
# same profile hands the URL to the running browser.
for _ in $(seq 1 50); do
  [ -e "$profile/SingletonSocket" ] && break
  sleep 0.2
done
sleep 1
"$chromium_bin" "${extra_flags[@]}" --user-data-dir="$profile" "chrome-extension://$extension_id/sidepanel.html" >/dev/null 2>&1 \
  || echo "Could not open the side panel page; use the NextAI toolbar button."
wait "$browser_pid"
