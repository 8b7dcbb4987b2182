import { describe, expect, it } from 'vitest';

import { expectLevels, reasons, useShellAnalyzer } from '../test-support.js';

useShellAnalyzer();

describe('command names', () => {
  expectLevels([
    ['\\rm -rf /', 'critical'],
    ["r''m -rf /", 'critical'],
    ['"rm" -rf /', 'critical'],
    ['/bin/rm -rf /', 'critical'],
    ['/usr/bin/env ls', 'low'],
    ['/usr/bin/ls', 'low'],
    ['$CMD', 'critical'],
    ['"$(echo ls)"', 'critical'],
    ["$'ls'", 'critical'],
    ['l? -la', 'critical'],
    ['{ls,x}', 'critical'],
    ['./configure --prefix=/usr/local', 'high'],
    ['./scripts/build.sh', 'high'],
    ['/opt/tools/bin/mytool', 'high'],
    ['~/bin/tool', 'high'],
    ['mytool --flag', 'high'],
    ['mytool "$ARG"', 'critical'],
    ['mytool ~/.bashrc', 'critical'],
    ['LS -la', 'low'],
    ['rm\u00a0-rf', 'critical'],
    ['rm -{r,}f build', 'critical'],
    ['rm {-r,x} build', 'critical'],
    ['python3.12 --version', 'low'],
  ]);

  it('classifies path-qualified programs by their name', () => {
    expect(reasons('/bin/rm -rf x')).toContain('deletes files recursively: /bin/rm -rf x');
  });
});
