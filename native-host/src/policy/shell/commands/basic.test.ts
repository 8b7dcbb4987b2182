import { describe } from 'vitest';

import { expectLevels, useShellAnalyzer } from '../test-support.js';

useShellAnalyzer();

describe('shell state that would change what runs later', () => {
  expectLevels([
    ['alias', 'low'],
    ['alias ll', 'low'],
    ["alias ll='ls -l'", 'critical'],
    ['unalias ll', 'low'],
    ['ls() { command ls --color "$@"; }', 'critical'],
    ['mybuild() { make; }', 'high'],
    ['bomb() { bomb | bomb & }; bomb', 'critical'],
    ['retry() { make || retry; }', 'critical'],
    ['/usr/bin/git() { :; }', 'critical'],
    ["trap 'rm -f tmp' EXIT", 'critical'],
    ["trap '' INT", 'low'],
    ['trap - INT', 'low'],
    ['trap -p', 'low'],
    ['enable', 'low'],
    ['enable -f ./x.so x', 'critical'],
    ['hash', 'low'],
    ['hash -r', 'low'],
    ['hash -p /tmp/x ls', 'critical'],
    ['set -e', 'low'],
    ['set -euxo pipefail', 'low'],
    ['set +H', 'low'],
    ['set -o noglob', 'critical'],
    ['set -f', 'critical'],
    ['set -H', 'critical'],
    ['set -- a b', 'low'],
    ['shopt', 'low'],
    ['shopt -q extglob', 'low'],
    ['shopt -s nullglob', 'critical'],
    ['bind -p', 'low'],
    ['bind \'"\\C-x": kill-line\'', 'critical'],
    ['complete -F _git git', 'critical'],
    ['complete -W "a b" cmd', 'low'],
    ['fc -l', 'low'],
    ['fc -s ls', 'critical'],
    ['history -c', 'critical'],
    ['history 10', 'low'],
    ['umask', 'low'],
    ['umask 022', 'medium'],
  ]);
});
