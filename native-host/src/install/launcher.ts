import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';
import { posixQuote } from '../core/posix-quote.js';

/**
 * The launcher is what a host manifest's `path` names. Browsers start native hosts with a
 * minimal environment (PATH may be just /usr/bin:/bin, or whatever the desktop session had), so
 * `#!/usr/bin/env node` would often fail; the launcher finds node itself, points the host at the
 * data directory chosen at install time and hands every argument through (Chrome passes the
 * caller's origin, Firefox the manifest path and the add-on id).
 */
export interface LauncherOptions {
  /** Absolute path of the bundled CLI (`native-host/dist/nextai.js`). */
  cliPath: string;
  /** The data directory resolved at install time; exported as NEXTAI_HOME. */
  dataDir: string;
  /** Absolute path of the node that ran `nextai install` (`process.execPath`); tried first. */
  nodePath: string;
  /** Where else to look for node, in order; see {@link defaultNodeSearch}. */
  nodeSearch: NodeSearch;
}

export interface NodeSearch {
  /** Fixed paths tried after the install-time node and `command -v node`. */
  paths: string[];
  /**
   * Version-manager directories holding one `v<major>.<minor>.<patch>` folder per version; the
   * newest version whose `nodeInside` is executable wins.
   */
  versionDirectories: { root: string; nodeInside: string }[];
}

export function launcherFileName(platform: Platform): string {
  return platform === 'windows' ? 'nextai-host.cmd' : 'nextai-host';
}

/** The usual places node lives when it is not on the browser's PATH (Linux and macOS). */
export function defaultNodeSearch(homeDir: string): NodeSearch {
  const join = path.posix.join;
  return {
    paths: [
      '/usr/local/bin/node',
      '/opt/homebrew/bin/node',
      '/usr/bin/node',
      join(homeDir, '.volta', 'bin', 'node'),
      join(homeDir, '.local', 'share', 'fnm', 'aliases', 'default', 'bin', 'node'),
      join(homeDir, 'Library', 'Application Support', 'fnm', 'aliases', 'default', 'bin', 'node'),
    ],
    versionDirectories: [
      { root: join(homeDir, '.nvm', 'versions', 'node'), nodeInside: 'bin/node' },
      { root: join(homeDir, '.local', 'share', 'fnm', 'node-versions'), nodeInside: 'installation/bin/node' },
      { root: join(homeDir, '.fnm', 'node-versions'), nodeInside: 'installation/bin/node' },
      {
        root: join(homeDir, 'Library', 'Application Support', 'fnm', 'node-versions'),
        nodeInside: 'installation/bin/node',
      },
    ],
  };
}

/**
 * A POSIX sh launcher. It uses only shell built-ins to find node, so it works whatever PATH the
 * browser passes, and `exec`s node so that the process the browser started and later kills is
 * node itself.
 */
export function renderPosixLauncher(options: LauncherOptions): string {
  const { cliPath, dataDir, nodePath, nodeSearch } = options;
  const candidates = [posixQuote(nodePath), '"$(command -v node 2>/dev/null)"', ...nodeSearch.paths.map(posixQuote)];
  const versionLookups = nodeSearch.versionDirectories.map(
    ({ root, nodeInside }) => `  newest_node ${posixQuote(root)} ${posixQuote(nodeInside)} && return 0`,
  );
  return `#!/bin/sh
# NextAI Agent native-messaging host launcher, written by \`nextai install\`: run it again to
# update this file; \`nextai uninstall\` removes it.
#
# Browsers start native hosts with a minimal environment (PATH may be just /usr/bin:/bin), so
# this script finds node itself: the node that ran \`nextai install\`, then PATH, then common
# locations and version managers.

NEXTAI_HOME=${posixQuote(dataDir)}
export NEXTAI_HOME
nextai_cli=${posixQuote(cliPath)}

usable() {
  [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ]
}

# Prints the node of the newest v<major>.<minor>.<patch> folder in $1 ($2: where node is inside).
newest_node() {
  newest=
  newest_key=-1
  for folder in "$1"/v*; do
    version=\${folder##*/v}
    case $version in
      *[!0-9.]*) continue ;;
      *.*.*) ;;
      *) continue ;;
    esac
    major=\${version%%.*}
    rest=\${version#*.}
    minor=\${rest%%.*}
    patch=\${rest#*.}
    # Empty parts, a fourth part, or a leading zero (which sh arithmetic would read as octal).
    case "$major:$minor:$patch" in
      :* | *::* | *: | *.* | 0[0-9]* | *:0[0-9]*) continue ;;
    esac
    usable "$folder/$2" || continue
    key=$((major * 1000000 + minor * 1000 + patch))
    if [ "$key" -gt "$newest_key" ]; then
      newest_key=$key
      newest="$folder/$2"
    fi
  done
  [ -n "$newest" ] && printf '%s\\n' "$newest"
}

find_node() {
  for candidate in ${candidates.join(' \\\n    ')}; do
    if usable "$candidate"; then
      printf '%s\\n' "$candidate"
      return 0
    fi
  done
${versionLookups.join('\n')}
  return 1
}

if ! NODE=$(find_node); then
  echo "nextai-host: cannot find Node.js (tried ${escapeForDoubleQuotes(nodePath)}, node on PATH, common locations, nvm and fnm). Install Node.js 20 or newer, then run \\\`nextai install\\\` again." >&2
  exit 127
fi
exec "$NODE" "$nextai_cli" host "$@"
`;
}

/** Escapes text placed inside a double-quoted sh string. */
function escapeForDoubleQuotes(value: string): string {
  return value.replace(/[\\"$`]/g, (character) => `\\${character}`);
}

/**
 * A Windows batch launcher. Windows paths cannot contain `"`, and inside `set "NAME=value"` and a
 * quoted argument only `%` is special (it must be doubled); delayed expansion stays off, so `!`
 * is literal. CRLF line endings, as cmd.exe expects.
 */
export function renderWindowsLauncher(options: Pick<LauncherOptions, 'cliPath' | 'dataDir' | 'nodePath'>): string {
  const { cliPath, dataDir, nodePath } = options;
  for (const value of [cliPath, dataDir, nodePath]) {
    if (/["\r\n]/.test(value)) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `The path ${value} contains a quote or a line break; Windows cannot use it.`,
      );
    }
  }
  const batch = (value: string) => value.replace(/%/g, '%%');
  const lines = [
    '@echo off',
    'rem NextAI Agent native-messaging host launcher, written by `nextai install`: run it again to',
    'rem update this file; `nextai uninstall` removes it.',
    'setlocal',
    `set "NEXTAI_HOME=${batch(dataDir)}"`,
    `set "NEXTAI_NODE=${batch(nodePath)}"`,
    'if not exist "%NEXTAI_NODE%" set "NEXTAI_NODE="',
    `if not defined NEXTAI_NODE for /f "delims=" %%N in ('where node 2^>nul') do if not defined NEXTAI_NODE set "NEXTAI_NODE=%%N"`,
    'if not defined NEXTAI_NODE if exist "%ProgramFiles%\\nodejs\\node.exe" set "NEXTAI_NODE=%ProgramFiles%\\nodejs\\node.exe"',
    'if not defined NEXTAI_NODE (',
    '  echo nextai-host: cannot find Node.js. Install Node.js 20 or newer, then run `nextai install` again. 1>&2',
    '  exit /b 127',
    ')',
    `"%NEXTAI_NODE%" "${batch(cliPath)}" host %*`,
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export function renderLauncher(platform: Platform, options: LauncherOptions): string {
  return platform === 'windows' ? renderWindowsLauncher(options) : renderPosixLauncher(options);
}
