import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { LogFile } from './log-file.js';

let dir: string;
const open: LogFile[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-logfile-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((file) => file.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function logFile(...args: ConstructorParameters<typeof LogFile>): LogFile {
  const file = new LogFile(...args);
  open.push(file);
  return file;
}

/** Every file of the log, oldest first: `<file>.<keep>` … `<file>.1`, `<file>`. */
function rotatedSet(file: string): string[] {
  const names = fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(path.basename(file)));
  const rank = (name: string) => Number(name.slice(path.basename(file).length + 1) || 0);
  return names.sort((a, b) => rank(b) - rank(a)).map((name) => path.join(path.dirname(file), name));
}

function linesOf(files: string[]): string[] {
  return files.flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean));
}

/** A line of exactly `width` bytes with its newline. */
const line = (index: number, width = 100) => `${`line ${index} `.padEnd(width - 1, '.')}\n`;

describe('LogFile', () => {
  it('creates the file and its directory privately, and appends', async () => {
    const file = path.join(dir, 'logs', 'daemon.log');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, 'from before\n');
    const log = logFile(file);
    log.write('one\n');
    log.write('two\n');
    await log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('from before\none\ntwo\n');

    const nested = path.join(dir, 'new', 'logs', 'host.log');
    const other = logFile(nested);
    other.write('x\n');
    await other.close();
    expect(fs.statSync(path.dirname(nested)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(nested).mode & 0o777).toBe(0o600);
  });

  it('rotates at the size limit, keeps `keep` old files and loses nothing it keeps', async () => {
    const file = path.join(dir, 'daemon.log');
    const log = logFile(file, { maxBytes: 1000, keep: 3 });
    for (let index = 0; index < 55; index += 1) log.write(line(index));
    await log.close();

    const files = rotatedSet(file);
    expect(files.map((name) => path.basename(name))).toEqual([
      'daemon.log.3',
      'daemon.log.2',
      'daemon.log.1',
      'daemon.log',
    ]);
    for (const name of files) expect(fs.statSync(name).size).toBeLessThanOrEqual(1000);
    // Ten 100-byte lines fill a file; the oldest files went away, the rest is in order.
    expect(fs.statSync(`${file}.1`).size).toBe(1000);
    const kept = linesOf(files).map((text) => Number(text.split(' ')[1]));
    expect(kept).toEqual(Array.from({ length: 35 }, (_, index) => index + 20));
  });

  it('starts a new file at once when the one it finds is already full', async () => {
    const file = path.join(dir, 'daemon.log');
    fs.writeFileSync(file, 'x'.repeat(1000));
    const log = logFile(file, { maxBytes: 1000, keep: 1 });
    log.write('first line of this run\n');
    await log.close();
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('x'.repeat(1000));
    expect(fs.readFileSync(file, 'utf8')).toBe('first line of this run\n');
  });

  it('writes a line longer than the limit whole, into a file of its own', async () => {
    const file = path.join(dir, 'daemon.log');
    const log = logFile(file, { maxBytes: 100, keep: 5 });
    log.write(line(1, 50));
    log.write(line(2, 300));
    log.write(line(3, 50));
    await log.close();
    expect(linesOf([`${file}.2`])).toEqual([line(1, 50).trimEnd()]);
    expect(linesOf([`${file}.1`])).toEqual([line(2, 300).trimEnd()]);
    expect(linesOf([file])).toEqual([line(3, 50).trimEnd()]);
  });

  it('shares the file with another writer (another `nextai host`): one rotates, the other follows', async () => {
    const file = path.join(dir, 'host.log');
    const first = logFile(file, { maxBytes: 2000, keep: 50 });
    const second = logFile(file, { maxBytes: 2000, keep: 50 });
    for (let index = 0; index < 200; index += 1) {
      const writer = index % 2 === 0 ? first : second;
      writer.write(line(index));
      // As between two processes, each line is on disk before the other writer looks.
      await writer.flush();
    }
    await Promise.all([first.close(), second.close()]);

    const files = rotatedSet(file);
    // Nothing lost or written twice, though each process counted only its own bytes.
    const written = linesOf(files)
      .map((text) => Number(text.split(' ')[1]))
      .sort((a, b) => a - b);
    expect(written).toEqual(Array.from({ length: 200 }, (_, index) => index));
    // The file was cut, and no file grew far past the limit (a writer looks every eighth of it).
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const name of files) expect(fs.statSync(name).size).toBeLessThanOrEqual(2000 + 2000 / 8 + 100);
  });

  it('starts the file again when a person removed it', async () => {
    const file = path.join(dir, 'daemon.log');
    const log = logFile(file, { maxBytes: 800, keep: 2 });
    log.write(line(0));
    await expect.poll(() => fs.existsSync(file) && fs.statSync(file).size).toBe(100);
    fs.rmSync(file);
    for (let index = 1; index <= 3; index += 1) log.write(line(index));
    await log.close();
    expect(fs.existsSync(file)).toBe(true);
    expect(linesOf([file]).at(-1)).toBe(line(3).trimEnd());
  });

  it('never throws when the file cannot be opened, and says it is failing', () => {
    // A path under a regular file: no directory can be made there.
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    const failures: Error[] = [];
    const log = logFile(path.join(dir, 'a-file', 'logs', 'daemon.log'), undefined, {
      onFailure: (error) => failures.push(error),
    });
    expect(() => log.write('lost\n')).not.toThrow();
    expect(log.failing).toBe(true);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(/ENOTDIR|EEXIST/);
    expect(() => log.flushSync()).not.toThrow();
  });

  it('opens the file again later once it can, and says how many lines were lost meanwhile', async () => {
    const blocker = path.join(dir, 'logs');
    fs.writeFileSync(blocker, '');
    const recoveries: number[] = [];
    const log = logFile(path.join(blocker, 'daemon.log'), undefined, { onRecovery: (lost) => recoveries.push(lost) });
    log.write('lost 1\n');
    expect(log.failing).toBe(true);
    fs.rmSync(blocker);
    // Not tried again on every line: once in a while.
    log.write('lost 2\n');
    const later = vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 60_000);
    log.write('kept\n');
    later.mockRestore();
    await expect.poll(() => recoveries).toEqual([2]);
    expect(log.failing).toBe(false);
    await log.close();
    expect(fs.readFileSync(path.join(blocker, 'daemon.log'), 'utf8')).toBe('kept\n');
  });

  it.skipIf(!fs.existsSync('/dev/full'))(
    'never throws when writes fail (a full disk), and never measures or rotates a device',
    async () => {
      const failures: Error[] = [];
      const log = logFile('/dev/full', { maxBytes: 10, keep: 1 }, { onFailure: (error) => failures.push(error) });
      for (let index = 0; index < 20; index += 1) expect(() => log.write(line(index))).not.toThrow();
      await expect.poll(() => log.failing).toBe(true);
      expect(failures[0]).toMatchObject({ code: 'ENOSPC' });
      expect(failures).toHaveLength(1);
      expect(() => log.flushSync()).not.toThrow();
      expect(fs.existsSync('/dev/full.1')).toBe(false);
      expect(fs.statSync('/dev/full').isCharacterDevice()).toBe(true);
    },
  );

  it('refuses a rotation that keeps nothing', () => {
    expect(() => new LogFile(path.join(dir, 'x.log'), { maxBytes: 0, keep: 5 })).toThrow(RangeError);
    expect(() => new LogFile(path.join(dir, 'x.log'), { maxBytes: 100, keep: 0 })).toThrow(RangeError);
  });
});
