import { describe, expect, it } from 'vitest';

import { MAX_COMMAND_BYTES, analyzeShellCommand } from './index.js';
import { HOME, PROJECT, analyze, expectLevels, fakeGuards, reasons, useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('result shape', () => {
  it('names the commands it found and explains findings in plain words with the command', () => {
    const result = analyze('git status && rm -rf build/ ~');
    expect(result.commands).toEqual(['git', 'rm']);
    expect(result.parsed).toBe(true);
    expect(result.risk).toBe('critical');
    expect(result.findings[0]).toMatchObject({ risk: 'critical', excerpt: 'rm -rf build/ ~' });
    expect(reasons('git status && rm -rf build/ ~')).toContain('deletes files recursively: rm -rf build/ ~');
  });

  it('lists findings riskiest first and counts repeats instead of listing them', () => {
    const chain = Array.from({ length: 30 }, (_, index) => `git add f${index}`).join(' && ');
    const result = analyze(`${chain} && sudo id`);
    expect(result.findings[0]?.risk).toBe('critical');
    expect(result.findings.map((finding) => finding.reason.en)).toContain(
      'runs git add: git add f0 (and 29 more like it)',
    );
  });

  it('has no findings for a harmless command', () => {
    const analysis = analyze('ls -la');
    expect(analysis).toMatchObject({ risk: 'low', findings: [], commands: ['ls'], parsed: true, complete: true });
    // It reads the current folder, and needs nothing a sandbox does not give.
    expect(analysis.effects.needs).toEqual([]);
    expect(analysis.effects.network.size).toBe(0);
    expect(analysis.effects.paths).toEqual([]);
  });

  it('treats an empty command and a comment as harmless', () => {
    expect(analyze('').risk).toBe('low');
    expect(analyze('# just a note').risk).toBe('low');
  });
});

describe('fails closed', () => {
  it.each([
    ['if true; then ls', 'missing fi'],
    ['echo "unterminated', 'unterminated string'],
    ['echo $(ls', 'unterminated substitution'],
    ['ls |', 'pipe to nothing'],
    ['cat <<A <<B\na\nA\nb\nB', 'two heredocs (unsupported by the grammar)'],
    ['exec 3<>/dev/tcp/h/1', 'read-write redirect (unsupported by the grammar)'],
    [')', 'stray parenthesis'],
  ])('%j (%s) is critical and unparsed', (command) => {
    const result = analyze(command);
    expect(result.parsed).toBe(false);
    expect(result.risk).toBe('critical');
    expect(result.findings.some((finding) => finding.reason.en.includes('fails closed'))).toBe(true);
  });

  it('refuses input over 64 KiB without parsing it', () => {
    const result = analyze(`echo ${'a'.repeat(MAX_COMMAND_BYTES)}`);
    expect(result).toMatchObject({ risk: 'critical', parsed: false });
    expect(result.findings[0]?.reason.en).toMatch(/over the 65536-byte limit/);
  });

  it('fails closed when the deadline passes', () => {
    const long = Array.from({ length: 6000 }, (_, index) => `echo ${index}`).join('; ');
    const result = analyzeShellCommand(long, fakeGuards(), { cwd: PROJECT, homeDir: HOME, timeoutMs: 0 });
    expect(result.risk).toBe('critical');
    expect(result.findings.some((finding) => /took too long/.test(finding.reason.en))).toBe(true);
  });

  it('nests sh -c at most 8 levels deep', () => {
    const nest = (depth: number): string => (depth === 0 ? 'ls' : `sh -c ${JSON.stringify(nest(depth - 1))}`);
    expect(analyze(nest(7)).risk).toBe('low');
    expect(analyze(nest(9)).risk).toBe('critical');
    expect(reasons(nest(9)).some((reason) => reason.includes('levels deep'))).toBe(true);
  });

  it('does not mistake a long flat chain for deep nesting', () => {
    const chain = Array.from({ length: 500 }, (_, index) => `git add f${index}.ts`).join(' && ');
    expect(analyze(chain).risk).toBe('medium');
  });

  it('analyses every command of a 500-command chain, middle and end', () => {
    const chain = Array.from({ length: 500 }, (_, index) => (index === 250 ? 'sudo id' : `echo ${index}`));
    const result = analyze(chain.join(' && '));
    expect(result.risk).toBe('critical');
    expect(result.commands).toContain('sudo');
    expect(result.findings.some((finding) => /took too long/.test(finding.reason.en))).toBe(false);
  });

  it('fails closed on syntax nested too deeply to walk', () => {
    const deep = `${'$(echo '.repeat(80)}x${')'.repeat(80)}`;
    expect(analyze(deep).risk).toBe('critical');
  });
});

describe('hidden characters', () => {
  it('fails closed on a backslash-newline inside a word, which bash joins', () => {
    expect(analyze('su\\\ndo id').risk).toBe('critical');
    expect(analyze('ls \\\n  -la').risk).toBe('low');
    expect(analyze('echo "a\\\nb"').risk).toBe('low');
  });
});

describe('history expansion and syntax the grammar misreads', () => {
  expectLevels([
    ['echo !!', 'critical'],
    ['sudo !!', 'critical'],
    ['!rm', 'critical'],
    ['echo !$', 'critical'],
    ['^build^~', 'critical'],
    ['git commit -m "feat!: drop node 18"', 'medium'],
    ['sh -c "echo !!"', 'critical'],
    ["echo 'a!b'", 'low'],
    ['[[ ! -f x ]] && echo ${!p*} $! && ls [!a]*', 'low'],
    ['[ "$a" != "$b" ]', 'low'],
    ['cat <<EOF\nHello!World\nEOF', 'low'],
    ['bash <<EOF\n!!\nEOF', 'critical'],
    ['time { rm -rf ~; }', 'critical'],
    ['time { ls; }', 'critical'],
    ['exec {fd}>out.txt', 'critical'],
    ['time ls', 'low'],
  ]);
});
