import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger, renderLogLine } from './logger.js';

const here = path.dirname(fileURLToPath(import.meta.url));

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-logger-'));
});
afterEach(() => {
  delete process.env.NEXTAI_LOG_LEVEL;
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Entry {
  level: string;
  time: string;
  component: string;
  msg: string;
  [field: string]: unknown;
}

function entriesOf(file: string): Entry[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry);
}

/** The file's entries once `count` of them are there (the file is written asynchronously). */
async function settled(file: string, count: number): Promise<Entry[]> {
  await expect.poll(() => entriesOf(file).length).toBe(count);
  return entriesOf(file);
}

/**
 * Runs a script in a Node process of its own (exiting and crashing concern the whole process),
 * with stderr to a pipe, or to a file (as `nextai daemon --detach` does).
 */
function runNode(script: string, options: { stderrFile?: string; env?: NodeJS.ProcessEnv } = {}) {
  const stderrFd = options.stderrFile ? fs.openSync(options.stderrFile, 'a') : undefined;
  try {
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: here,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, NEXTAI_LOG_LEVEL: '', ...options.env },
      stdio: ['ignore', 'pipe', stderrFd ?? 'pipe'],
    });
    const stderr = options.stderrFile ? fs.readFileSync(options.stderrFile, 'utf8') : result.stderr;
    return { status: result.status, stdout: result.stdout, stderr };
  } finally {
    if (stderrFd !== undefined) fs.closeSync(stderrFd);
  }
}

describe('createLogger', () => {
  it('writes JSON lines with the level, the time, the component, the fields and the message', async () => {
    const file = path.join(dir, 'logs', 'daemon.log');
    const log = createLogger({ component: 'daemon', file });
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    log.info('daemon started', {
      pid: 42,
      socket: '/run/daemon.sock',
      error: new Error('an error is written as its message'),
      nested: { list: [1, 'two'] },
      absent: undefined,
      circular,
      // Keys of the line itself are not overwritten.
      level: 'full-auto',
      msg: 'a field named msg',
    });
    const [entry] = await settled(file, 1);
    expect(entry).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      component: 'daemon',
      msg: 'daemon started',
      pid: 42,
      socket: '/run/daemon.sock',
      error: 'an error is written as its message',
      nested: { list: [1, 'two'] },
      circular: { name: 'loop', self: '[Circular]' },
      level_: 'full-auto',
      msg_: 'a field named msg',
    });
    expect(Math.abs(Date.parse(entry!.time) - Date.now())).toBeLessThan(60_000);
  });

  it('names a child by its parent: daemon, daemon:runs, daemon:runs:db', async () => {
    const file = path.join(dir, 'daemon.log');
    const log = createLogger({ component: 'daemon', file });
    const runs = log.child('runs');
    log.info('parent');
    runs.info('child');
    runs.child('db').info('grandchild', { step: 3 });
    const entries = await settled(file, 3);
    expect(entries.map(({ component, msg }) => `${component} ${msg}`)).toEqual([
      'daemon parent',
      'daemon:runs child',
      'daemon:runs:db grandchild',
    ]);
    // One component key per line, not one per ancestor.
    expect(
      fs
        .readFileSync(file, 'utf8')
        .split('\n')[2]!
        .match(/"component"/g),
    ).toHaveLength(1);
  });

  it('leaves out what is below its level, in children too', async () => {
    const file = path.join(dir, 'daemon.log');
    const log = createLogger({ component: 'daemon', file, level: 'warn' });
    for (const target of [log, log.child('runs')]) {
      target.debug('debug line');
      target.info('info line');
      target.warn('warn line');
      target.error('error line');
    }
    const entries = await settled(file, 4);
    expect(entries.map(({ level, msg }) => `${level}: ${msg}`)).toEqual([
      'warn: warn line',
      'error: error line',
      'warn: warn line',
      'error: error line',
    ]);
  });

  it('takes its level from NEXTAI_LOG_LEVEL, and info when that is not a level', async () => {
    process.env.NEXTAI_LOG_LEVEL = 'debug';
    const verbose = path.join(dir, 'verbose.log');
    createLogger({ component: 'x', file: verbose }).debug('seen at debug');
    expect((await settled(verbose, 1))[0]).toMatchObject({ level: 'debug', msg: 'seen at debug' });

    process.env.NEXTAI_LOG_LEVEL = 'loud';
    const fallback = path.join(dir, 'fallback.log');
    const log = createLogger({ component: 'x', file: fallback });
    log.debug('not seen');
    log.info('seen at info');
    expect((await settled(fallback, 1)).map((entry) => entry.msg)).toEqual(['seen at info']);
  });

  it('rotates its file at the size limit, keeping the newest lines', async () => {
    const file = path.join(dir, 'host.log');
    const log = createLogger({ component: 'host:1', file, rotation: { maxBytes: 2000, keep: 2 } });
    for (let index = 0; index < 100; index += 1) log.info('a line of the bridge', { index });
    await expect.poll(() => fs.existsSync(`${file}.2`) && entriesOf(file).at(-1)?.index).toBe(99);
    expect(fs.existsSync(`${file}.3`)).toBe(false);
    await expect
      .poll(() => [file, `${file}.1`, `${file}.2`].map((name) => fs.statSync(name).size))
      .toSatisfy((sizes: number[]) => sizes.every((size) => size > 0 && size <= 2000));
    const kept = [`${file}.2`, `${file}.1`, file].flatMap(entriesOf).map((entry) => entry.index as number);
    // The newest lines, in order, with nothing missing between the oldest kept and the last.
    expect(kept.at(-1)).toBe(99);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, offset) => 100 - kept.length + offset));
    expect(kept.length).toBeGreaterThan(20);
  });

  it('writes nothing anywhere without a file or stderr', () => {
    const log = createLogger({ component: 'test', level: 'debug' });
    expect(() => log.error('nowhere', { error: new Error('x') })).not.toThrow();
  });
});

describe('renderLogLine', () => {
  it('renders a line as `time level [component] message key=value`', () => {
    const line =
      '{"level":"warn","time":"2026-01-02T03:04:05.678Z","component":"daemon:runs","run":"r1","count":2,"error":"disk \\"full\\"","stack":"Error: x\\n    at y","ok":true,"detail":{"a":[1]},"msg":"could not save"}\n';
    expect(renderLogLine(line)).toBe(
      '2026-01-02T03:04:05.678Z warn  [daemon:runs] could not save run="r1" count=2 error="disk \\"full\\"" stack="Error: x\\n    at y" ok=true detail={"a":[1]}',
    );
  });

  it('leaves other lines as they are: what was printed before the logger existed, a crash report', () => {
    expect(renderLogLine('nextai: The database was written by a newer NextAI Agent\n')).toBe(
      'nextai: The database was written by a newer NextAI Agent',
    );
    expect(renderLogLine('    at Object.<anonymous> (file.js:1:1)')).toBe('    at Object.<anonymous> (file.js:1:1)');
    expect(renderLogLine('{not json')).toBe('{not json');
    expect(renderLogLine('{"no":"message"}')).toBe('{"no":"message"}');
  });
});

describe('the logger in a process of its own', () => {
  it('writes every buffered line before process.exit()', () => {
    const file = path.join(dir, 'daemon.log');
    const result = runNode(`
      const { createLogger } = await import('./logger.ts');
      const log = createLogger({ component: 'daemon', file: ${JSON.stringify(file)} });
      for (let index = 0; index < 5000; index += 1) log.info('line', { index });
      process.exit(0);
    `);
    expect(result.status, result.stderr).toBe(0);
    const entries = entriesOf(file);
    expect(entries).toHaveLength(5000);
    expect(entries.at(-1)).toMatchObject({ msg: 'line', index: 4999 });
  });

  it('writes the lines just before a crash, and the crash itself when the daemon logs it', () => {
    const file = path.join(dir, 'daemon.log');
    const result = runNode(`
      const { createLogger } = await import('./logger.ts');
      const { logUncaughtExceptions } = await import('../daemon/process-guards.ts');
      const log = createLogger({ component: 'daemon', file: ${JSON.stringify(file)} });
      logUncaughtExceptions(log);
      for (let index = 0; index < 1000; index += 1) log.info('working', { index });
      log.warn('the last line before the crash');
      // Thrown from a callback, as in the daemon (a throw at the top of a module is a rejection).
      setTimeout(() => {
        throw new Error('a bug');
      });
    `);
    expect(result.status, result.stderr).toBe(1);
    // Node still reports the crash on stderr, as before.
    expect(result.stderr).toContain('Error: a bug');
    const entries = entriesOf(file);
    expect(entries, result.stderr).toHaveLength(1002);
    expect(entries.at(-2)).toMatchObject({ level: 'warn', msg: 'the last line before the crash' });
    expect(entries.at(-1)).toMatchObject({
      level: 'error',
      msg: 'an exception nothing caught ends the daemon (a bug)',
      error: 'a bug',
      origin: 'uncaughtException',
      stack: expect.stringMatching(/^Error: a bug\n\s+at /),
    });
  });

  it("with stderr 'auto', echoes readable lines to a pipe, and not to a file (the launcher's redirect)", () => {
    const script = (file: string) => `
      const { createLogger } = await import('./logger.ts');
      const log = createLogger({ component: 'daemon', file: ${JSON.stringify(file)}, stderr: 'auto' });
      log.info('daemon started', { pid: 7 });
    `;
    const piped = runNode(script(path.join(dir, 'piped.log')));
    expect(piped.status).toBe(0);
    expect(piped.stderr).toMatch(/^\d{4}-\S+Z info {2}\[daemon\] daemon started pid=7\n$/);
    expect(entriesOf(path.join(dir, 'piped.log'))).toHaveLength(1);

    const redirected = path.join(dir, 'redirected.log');
    const toFile = runNode(script(redirected), { stderrFile: redirected });
    expect(toFile.status).toBe(0);
    // Once, as JSON, by the logger: not a second time as text through stderr.
    expect(toFile.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(entriesOf(redirected)).toMatchObject([{ msg: 'daemon started', pid: 7 }]);
  });

  it('never throws nor stops the process when the file cannot be made', () => {
    fs.writeFileSync(path.join(dir, 'not-a-directory'), '');
    const file = path.join(dir, 'not-a-directory', 'daemon.log');
    const result = runNode(`
      const { createLogger } = await import('./logger.ts');
      const log = createLogger({ component: 'daemon', file: ${JSON.stringify(file)}, stderr: 'auto' });
      log.error('still said', { step: 1 });
      process.stdout.write('still running');
    `);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('still running');
    expect(result.stderr).toContain(`nextai: cannot write the log file ${file}: `);
    expect(result.stderr).toMatch(/error \[daemon\] still said step=1/);
  });

  it.skipIf(!fs.existsSync('/dev/full'))(
    'survives a full disk: says so once, sends the lines to stderr meanwhile, and exits without hanging',
    () => {
      const stderrFile = path.join(dir, 'stderr.txt');
      const result = runNode(
        `
        const { setTimeout: sleep } = await import('node:timers/promises');
        const { createLogger } = await import('./logger.ts');
        const log = createLogger({ component: 'daemon', file: '/dev/full', stderr: 'auto' });
        log.info('the first line finds the disk full');
        await sleep(100);
        for (let index = 0; index < 3; index += 1) log.warn('written while the disk is full', { index });
        process.stdout.write('still running');
      `,
        // stderr to a file: the logger does not echo there unless its own file fails.
        { stderrFile },
      );
      expect(result.status).toBe(0);
      expect(result.stdout).toBe('still running');
      expect(result.stderr.match(/cannot write the log file \/dev\/full/g)).toHaveLength(1);
      expect(result.stderr).toContain('ENOSPC');
      expect(result.stderr).toContain('; its lines go to stderr until it works again');
      expect(result.stderr).toMatch(/warn {2}\[daemon\] written while the disk is full index=2/);
    },
  );
});
