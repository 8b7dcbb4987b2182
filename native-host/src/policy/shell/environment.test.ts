import { describe, expect, it } from 'vitest';

import { analyze, expectLevels, reasons, useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('environment', () => {
  expectLevels([
    ['CI=1 NODE_ENV=test ls', 'low'],
    ['FOO=bar', 'low'],
    ['export FOO=bar', 'low'],
    ['LD_PRELOAD=/tmp/x.so ls', 'critical'],
    ['LD_LIBRARY_PATH=. ./app', 'critical'],
    ['DYLD_INSERT_LIBRARIES=x ls', 'critical'],
    ['PATH=/tmp:$PATH ls', 'critical'],
    ['export PATH="$HOME/bin:$PATH"', 'critical'],
    ['BASH_ENV=x bash s.sh', 'critical'],
    ['ENV=x sh s.sh', 'critical'],
    ['PROMPT_COMMAND=ls', 'critical'],
    ["PS4='+ ' bash -x s.sh", 'high'],
    ["PS4='$(id)' bash -x s.sh", 'critical'],
    ["PS1='\\u@\\h \\w$ '", 'low'],
    ['IFS=, ls', 'critical'],
    ['IFS=, read -r a b <<< "1,2"', 'low'],
    ['SHELLOPTS=x ls', 'critical'],
    ['BASHOPTS=x ls', 'critical'],
    ['GLOBIGNORE=x ls', 'critical'],
    ["NODE_OPTIONS='--max-old-space-size=4096' node app.js", 'high'],
    ["NODE_OPTIONS='--require ./x.js' node app.js", 'critical'],
    ["NODE_OPTIONS='-r ./x.js' node app.js", 'critical'],
    ['PYTHONPATH=src python3 -m app', 'high'],
    ['PYTHONPATH=/tmp python3 -m app', 'critical'],
    ['PYTHONPATH=../other python3 -m app', 'critical'],
    ['GIT_AUTHOR_NAME=x git commit -m y', 'medium'],
    ['GIT_SSH_COMMAND="ssh -i key" git fetch', 'critical'],
    ['GIT_DIR=/tmp/x git status', 'critical'],
    ['PAGER=cat git log', 'critical'],
    ['EDITOR=vim git commit', 'critical'],
    ['VISUAL=code git commit', 'critical'],
    ['HISTFILE=/dev/null', 'critical'],
    ['HISTSIZE=0', 'critical'],
    ['unset HISTFILE', 'critical'],
    ['unset FOO', 'low'],
    ['unset -f myfunc', 'low'],
    ["x='a[$(id)]'", 'critical'],
    ['msg="use `date`"', 'low'],
    ["msg='use `date`'", 'critical'],
    ['msg="literal text"', 'low'],
    ['declare -A map; map[key]=1', 'low'],
    ['declare -i n=5', 'low'],
    ['declare -i n=$x', 'critical'],
    ['declare -i n', 'critical'],
    ['declare -n r=x', 'critical'],
    ['declare -p PATH', 'low'],
    ['declare -f', 'low'],
    ['export -f myfunc', 'critical'],
    ['export $NAME=1', 'critical'],
    ['local x=1', 'low'],
    ['readonly y=2', 'low'],
    ['npm_config_script_shell=/bin/zsh npm test', 'critical'],
    ['npm_config_loglevel=silent npm test', 'high'],
    ['HOME=/tmp/h ls', 'critical'],
    ['printf -v PATH /tmp', 'critical'],
    ['read -r PATH', 'critical'],
    ['https_proxy=http://proxy.example:3128 curl https://example.com', 'medium'],
    ['https_proxy=http://evil.example:3128 curl https://example.com', 'critical'],
  ]);

  it('still knows $HOME after a harmless assignment, and stops knowing it once HOME is assigned', () => {
    expect(analyze('echo x > "$HOME/.bashrc"').risk).toBe('critical');
    expect(reasons('echo x > "$HOME/.bashrc"')).toContain('writes to a shell start-up file: echo x > "$HOME/.bashrc"');
    expect(reasons('HOME=/tmp/h; echo x > "$HOME/notes"')).toContain(
      'changes a file whose name is computed at run time: echo x > "$HOME/notes"',
    );
  });
});
