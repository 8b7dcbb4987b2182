import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { dataPaths } from '../core/paths.js';
import { InstanceLock } from './instance-lock.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('InstanceLock', () => {
  it('lets one holder in, names it to the next, and frees itself on release', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-lock-'));
    const paths = dataPaths(dir, 'linux');
    const first = InstanceLock.acquire(paths);
    expect(fs.readFileSync(paths.pidFile, 'utf8').trim()).toBe(String(process.pid));
    expect(fs.statSync(paths.runDir).mode & 0o777).toBe(0o700);
    expect(() => InstanceLock.acquire(paths)).toThrow(
      expect.objectContaining({
        code: 'DAEMON_ALREADY_RUNNING',
        message: expect.stringContaining(`pid ${process.pid}`),
      }),
    );
    first.release();
    expect(fs.existsSync(paths.pidFile)).toBe(false);
    InstanceLock.acquire(paths).release();
  });
});
