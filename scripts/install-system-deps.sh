#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the product and its tests use, if any is missing:
# browsers to test in, an X server and window tools for desktop work, notify-send, and a
# notification daemon (dunst) for the tests to send notifications to, and Mono's C# compiler (mono-mcs)
# to compile-check the Windows adapter's Win32 helper, and systemd (systemd-analyze) to verify the
# user unit `nextai install --service` writes, and bubblewrap, the sandbox every command and app the agent
# starts runs in, and pytest for the system's python3 (the sandbox tests run `python3 -m pytest` in a project).
set -euo pipefail

packages=(bubblewrap chromium firefox-esr xvfb openbox xdotool wmctrl xclip x11-xserver-utils x11-utils xterm imagemagick libnotify-bin dunst dbus-daemon libglib2.0-bin procps mono-mcs systemd python3-pytest)
# Commands that tell whether each package is there, in the same order. ImageMagick is looked for
# as `import`: some machines have a `convert` of their own in /usr/local/bin.
commands=(bwrap chromium firefox-esr Xvfb openbox xdotool wmctrl xclip xrandr xwininfo xterm import notify-send dunst dbus-daemon gio pgrep mcs systemd-analyze pytest-3)

missing=()
for i in "${!packages[@]}"; do
  command -v "${commands[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
# A font with Chinese glyphs, for the OCR tests that render Chinese text (any CJK font will do).
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
  missing+=(fonts-droid-fallback)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing: ${missing[*]}. Install them with your package manager (this script knows apt-get only)." >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "Missing: ${missing[*]}. Run as root, or install them: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
echo "Installing system packages: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
