import { verbatim } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { analyzeShellCommand } from './index.js';
import { HOME, PROJECT, analyze, expectLevels, fakeGuards, useShellAnalyzer, type GuardCalls } from './test-support.js';

useShellAnalyzer();

describe('files written, then run, in the same command', () => {
  expectLevels([
    ['cat > x.sh <<EOF\nls\nEOF\nbash x.sh', 'high'],
    ['cat > x.sh <<EOF\nrm -rf ~\nEOF\nbash x.sh', 'critical'],
    ["cat > x.sh <<'EOF'\nsudo id\nEOF\nchmod +x x.sh && ./x.sh", 'critical'],
    ['echo "sudo id" > y.sh; sh y.sh', 'critical'],
    ['echo "ls" > y.sh; source y.sh', 'high'],
    ['printf "%s" "$X" > z.sh; . ./z.sh', 'critical'],
    ['echo "ls" >> y.sh; bash y.sh', 'critical'],
    ['echo "print(1)" > a.py; python3 a.py', 'critical'],
    ['echo "sudo id" | tee t.sh > /dev/null; bash t.sh', 'critical'],
    ['curl -o a https://example.com/x && mv a b.sh && bash b.sh', 'critical'],
    ['curl -o a https://example.com/x && cp a b && ./b', 'critical'],
  ]);
});

describe('working folder changes', () => {
  it('checks relative paths in every folder the command may have changed to', () => {
    const calls: GuardCalls = { paths: [], urls: [] };
    // `;` goes on whether the cd worked or not.
    analyzeShellCommand('cd sub; cat notes.txt', fakeGuards(calls), {
      cwd: PROJECT,
      homeDir: HOME,
      timeoutMs: 10_000,
    });
    expect(calls.paths).toEqual(
      expect.arrayContaining([
        { path: 'notes.txt', access: 'read', cwd: PROJECT },
        { path: 'notes.txt', access: 'read', cwd: `${PROJECT}/sub` },
      ]),
    );
  });

  it('after `cd x &&`, only x: what follows runs only when the cd worked', () => {
    const calls: GuardCalls = { paths: [], urls: [] };
    analyzeShellCommand('cd sub && cat notes.txt && cd .. && cat top.txt', fakeGuards(calls), {
      cwd: PROJECT,
      homeDir: HOME,
      timeoutMs: 10_000,
    });
    const reads = calls.paths.filter((call) => call.access === 'read' && call.path.endsWith('.txt'));
    expect(reads).toEqual([
      { path: 'notes.txt', access: 'read', cwd: `${PROJECT}/sub` },
      { path: 'top.txt', access: 'read', cwd: PROJECT },
    ]);
    // Not for `cd x || …`, nor for a cd inside something else.
    expect(analyze('cd sub || rm -rf build').effects.paths.map((path) => path.target)).toContain(`${PROJECT}/build`);
    expect(analyze('(cd sub) && rm -rf build').effects.paths.map((path) => path.target)).toContain(`${PROJECT}/build`);
  });

  expectLevels([
    ['cd ~/.ssh && cat id_rsa', 'critical'],
    ['cd && echo x > .profile', 'critical'],
    ['cd /etc && echo x > hosts', 'critical'],
    ['cd "$DIR" && ls', 'low'],
    ['cd "$DIR" && cat notes.txt', 'critical'],
    ['cd "$DIR" && cat /etc/hostname', 'low'],
    ['cd - && cat x', 'critical'],
    ['pushd src && ls && popd', 'low'],
    ['popd; cat a.txt', 'critical'],
    ['(cd ~ && echo x > .bashrc)', 'critical'],
    ['cd build && make', 'high'],
    ['cd ~ > /dev/null && echo x >> .zshrc', 'critical'],
  ]);
});

describe('guards', () => {
  it('asks about redirect targets, file arguments and their access, with the working folder', () => {
    const calls: GuardCalls = { paths: [], urls: [] };
    analyzeShellCommand('cat a.txt > b.txt && cp c.txt ~/d.txt && rm e.txt', fakeGuards(calls), {
      cwd: PROJECT,
      homeDir: HOME,
    });
    expect(calls.paths).toEqual([
      { path: 'b.txt', access: 'write', cwd: PROJECT },
      { path: 'a.txt', access: 'read', cwd: PROJECT },
      { path: 'c.txt', access: 'read', cwd: PROJECT },
      { path: '~/d.txt', access: 'write', cwd: PROJECT },
      { path: '~/d.txt/c.txt', access: 'write', cwd: PROJECT },
      { path: 'e.txt', access: 'write', cwd: PROJECT },
    ]);
  });

  it('reports a write into protected files as blocked by that layer', () => {
    const result = analyze('echo {} > ~/.nextai-agent/config.json');
    expect(result.blocked).toEqual({
      layer: 'protected_files',
      reason: verbatim("NextAI's own files cannot be changed"),
    });
    expect(result.risk).toBe('critical');
  });

  it('takes the highest verdict risk even when nothing is blocked', () => {
    const result = analyze('head -1 ~/.aws/config');
    expect(result.blocked).toBeUndefined();
    expect(result.risk).toBe('critical');
  });

  it('passes the guard the path as written; it resolves ~ and relative paths itself', () => {
    const calls: GuardCalls = { paths: [], urls: [] };
    analyzeShellCommand('cat ~/notes.md ../other/x.md', fakeGuards(calls), {
      cwd: PROJECT,
      homeDir: HOME,
      timeoutMs: 10_000,
    });
    expect(calls.paths.map((call) => call.path)).toEqual(['~/notes.md', '../other/x.md']);
  });
});
