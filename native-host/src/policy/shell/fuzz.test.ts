import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { BENIGN_COMMANDS } from './benign-corpus.js';
import { DANGEROUS_CORES } from './dangerous-corpus.js';
import { analyzeShellCommand, initShellAnalyzer, type ShellAnalysis } from './index.js';
import { HOME, PROJECT, fakeGuards } from './test-support.js';

beforeAll(async () => {
  await initShellAnalyzer();
});

const guards = fakeGuards();
/** More runs for a deeper search when investigating: SHELL_FUZZ_RUNS=100000 npx vitest run …/fuzz.test.ts */
const RUNS = Number(process.env.SHELL_FUZZ_RUNS ?? 1500);
const TIMEOUT_MS = 50;
/**
 * The deadline is checked between steps, so one step may overrun it; the margin also absorbs a
 * garbage-collection pause on a loaded machine. What matters is that the time is bounded.
 */
const SLACK_MS = 1000;

function run(command: string): { result: ShellAnalysis; elapsed: number } {
  const started = performance.now();
  const result = analyzeShellCommand(command, guards, { cwd: PROJECT, homeDir: HOME, timeoutMs: TIMEOUT_MS });
  return { result, elapsed: performance.now() - started };
}

/** Pieces of shell syntax, so that random strings reach deep into the grammar rather than stopping at the first character. */
const SHELL_PIECES = [
  'ls', 'rm', '-rf', '~', '/', 'sudo', 'echo', 'x', '"', "'", '`', '$', '$(', ')', '(', '{', '}', '${', '[[', ']]',
  '[', ']', '|', '||', '&&', ';', '&', '>', '>>', '<', '<<', '<<<', 'EOF', '\n', ' ', '\\', '*', '?', '=', 'IFS',
  'eval', 'bash', '-c', 'if', 'then', 'fi', 'for', 'in', 'do', 'done', 'case', 'esac', '$((', '))', '#', '!', '@',
  'find', '-exec', '{}', '\\;', 'xargs', 'awk', 'sed', 'curl', 'sh', 'a[', 'let', 'declare', 'export', 'PATH=',
  '\r', '\u202e', '\u200b', '\t', '$\'', '\\x72', 'function', 'f()', 'trap', 'alias',
]; // prettier-ignore

const shellish = fc
  .array(fc.oneof(fc.constantFrom(...SHELL_PIECES), fc.string({ maxLength: 4 })), { maxLength: 40 })
  .map((parts) => parts.join(''));

/** Commands with path-like arguments built from glob, brace and quoting characters. */
const withPaths = fc
  .tuple(
    fc.constantFrom(
      'cat',
      'rm -f',
      'cp x',
      'ls',
      'grep -r x',
      'mkdir -p',
      'tar czf a.tgz',
      'find',
      'chmod 600',
      'echo x >',
    ),
    fc.array(
      fc.constantFrom(
        '~',
        '/',
        '.',
        '..',
        '*',
        '**',
        '?',
        '[',
        ']',
        '{',
        '}',
        ',',
        '!',
        'a',
        '.ssh',
        'etc',
        '$HOME',
        '"',
        "'",
        '\\',
      ),
      {
        maxLength: 12,
      },
    ),
  )
  .map(([command, parts]) => `${command} ${parts.join('')}`);

const anyText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  shellish,
  withPaths,
);

describe('property: the analyser holds up against any input', () => {
  it('never throws, never hits an internal error, and keeps to its deadline', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const { result, elapsed } = run(text);
        expect(result.findings.filter((finding) => finding.reason.en.includes('the analyser failed'))).toEqual([]);
        expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }),
      { numRuns: RUNS },
    );
  });

  it('marks anything it cannot parse as critical', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const { result } = run(text);
        if (!result.parsed) expect(result.risk).toBe('critical');
        expect(['low', 'medium', 'high', 'critical']).toContain(result.risk);
      }),
      { numRuns: RUNS },
    );
  });

  it('stops a long input at the deadline and fails closed', () => {
    const long = Array.from({ length: 8000 }, (_, index) => `echo ${index} | cat`).join('; ');
    const { result, elapsed } = run(long);
    expect(result.risk).toBe('critical');
    expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });
});

describe('property: a dangerous command cannot hide behind a benign one', () => {
  const benign = fc.constantFrom(...BENIGN_COMMANDS.map((entry) => entry.command));
  const core = fc.constantFrom(...DANGEROUS_CORES);

  it.each([
    ['; <dangerous>', (command: string, danger: string) => `${command}; ${danger}`],
    ['&& <dangerous>', (command: string, danger: string) => `${command} && ${danger}`],
    ['|| <dangerous>', (command: string, danger: string) => `${command} || ${danger}`],
    ['newline <dangerous>', (command: string, danger: string) => `${command}\n${danger}`],
    ['$( <dangerous> ) as an argument', (command: string, danger: string) => `${command.split(' ')[0]} "$(${danger})"`],
    ['the whole command in $( )', (command: string, danger: string) => `echo "$(${command}; ${danger})"`],
  ])('appending %s to any benign command is critical', (_form, combine) => {
    fc.assert(
      fc.property(benign, core, (command, danger) => {
        const { result } = run(combine(command, danger));
        expect(result.risk).toBe('critical');
      }),
      { numRuns: 300 },
    );
  });
});
