import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { tailOfLog } from './daemon-launcher.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-tail-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('tailOfLog', () => {
  it("shows the last lines of daemon.log as a person reads them, the logger's and Node's alike", () => {
    const file = path.join(dir, 'daemon.log');
    fs.writeFileSync(
      file,
      [
        '{"level":"info","time":"2026-01-02T03:04:05.000Z","component":"daemon","msg":"an older line"}',
        '{"level":"info","time":"2026-01-02T03:04:06.000Z","component":"daemon","pid":7,"msg":"daemon starting"}',
        '{"level":"error","time":"2026-01-02T03:04:07.000Z","component":"daemon","error":"schema 99","code":"DATABASE_TOO_NEW","msg":"the daemon could not start"}',
        'nextai: The database was written by a newer NextAI Agent (schema 99).',
        '',
      ].join('\n'),
    );
    expect(tailOfLog(file, 3)).toBe(
      [
        `Last lines of ${file}:`,
        '2026-01-02T03:04:06.000Z info  [daemon] daemon starting pid=7',
        '2026-01-02T03:04:07.000Z error [daemon] the daemon could not start error="schema 99" code="DATABASE_TOO_NEW"',
        'nextai: The database was written by a newer NextAI Agent (schema 99).',
      ].join('\n'),
    );
  });

  it('reads only the end of a large log, from a whole line', () => {
    const file = path.join(dir, 'daemon.log');
    const line = (index: number) =>
      `{"level":"info","time":"2026-01-02T03:04:05.000Z","component":"daemon","index":${index},"msg":"${'x'.repeat(200)}"}\n`;
    fs.writeFileSync(file, Array.from({ length: 2000 }, (_, index) => line(index)).join(''));
    const tail = tailOfLog(file, 2).split('\n');
    expect(tail).toHaveLength(3);
    expect(tail[1]).toMatch(/^2026-01-02T03:04:05.000Z info {2}\[daemon\] x+ index=1998$/);
    expect(tail[2]).toMatch(/index=1999$/);
  });

  it('says nothing for a missing or empty log', () => {
    expect(tailOfLog(path.join(dir, 'missing.log'))).toBe('');
    fs.writeFileSync(path.join(dir, 'empty.log'), '\n');
    expect(tailOfLog(path.join(dir, 'empty.log'))).toBe('');
  });
});
