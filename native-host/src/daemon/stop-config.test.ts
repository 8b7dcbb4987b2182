import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { DEFAULT_STOP_GRACE_SECONDS, readDaemonConfig, stopGraceMs } from './stop-config.js';

let dir: string;
let file: string;
const log = createLogger({ component: 'test', level: 'error' });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-stop-config-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the daemon section of config.json', () => {
  it('gives running tool calls 30 s when config.json says nothing', () => {
    expect(DEFAULT_STOP_GRACE_SECONDS).toBe(30);
    expect(stopGraceMs(file, log)).toBe(30_000);
    fs.writeFileSync(file, '{ "security": {} }');
    expect(readDaemonConfig(file)).toEqual({ config: { stop_grace_seconds: 30 }, problems: [] });
  });

  it('reads stop_grace_seconds, comments allowed; 0 means a stop never waits', () => {
    fs.writeFileSync(file, '{ "daemon": { "stop_grace_seconds": 5 } // a short one\n}');
    expect(stopGraceMs(file, log)).toBe(5000);
    fs.writeFileSync(file, '{ "daemon": { "stop_grace_seconds": 0 } }');
    expect(stopGraceMs(file, log)).toBe(0);
  });

  it('uses the default, naming the field, for a value that is not a whole number of seconds in range or a misspelt key', () => {
    for (const section of ['{ "stop_grace_seconds": -1 }', '{ "stop_grace_seconds": 2.5 }', '{ "stop_grace": 5 }']) {
      fs.writeFileSync(file, `{ "daemon": ${section} }`);
      const read = readDaemonConfig(file);
      expect(read.config.stop_grace_seconds).toBe(30);
      expect(read.problems).toEqual([expect.stringMatching(new RegExp(`^${file}: daemon\\.`))]);
    }
  });
});
