import { describe } from 'vitest';

import { expectLevels, useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('structure: every part is walked', () => {
  expectLevels([
    ['ls; ls && ls || ls | cat', 'low'],
    ['(ls)', 'low'],
    ['{ ls; }', 'low'],
    ['if ls; then pwd; elif true; then ls; else pwd; fi', 'low'],
    ['while false; do ls; done', 'low'],
    ['case x in a) ls;; *) pwd;; esac', 'low'],
    ['f() { ls; }; f', 'low'],
    ['f() { sudo id; }', 'critical'],
    ['function f { rm -rf ~; }', 'critical'],
    ['echo "$(ls)" `pwd`', 'low'],
    ['echo "${x:-$(sudo id)}"', 'critical'],
    ['cat <<EOF\n$(sudo id)\nEOF', 'critical'],
    ["cat <<'EOF'\n$(sudo id)\nEOF", 'low'],
    ['diff <(ls a) <(ls b)', 'low'],
    ['diff <(ls) <(sudo id)', 'critical'],
    ['echo $(( 1 + 2 ))', 'low'],
    ['x=$(ls)', 'low'],
    ['FOO=$(sudo id) ls', 'critical'],
    ['cat <<< "$(sudo id)"', 'critical'],
    ['ls > >(cat)', 'medium'],
    ['tee >(sh) < x', 'critical'],
    ['echo $(< README.md)', 'low'],
    ['echo $(< ~/.ssh/id_rsa)', 'critical'],
    ['[[ -n "$(sudo id)" ]]', 'critical'],
    ['for f in $(sudo id); do :; done', 'critical'],
    ['cat file | while read -r l; do echo "$l"; done', 'low'],
  ]);
});
