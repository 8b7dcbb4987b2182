import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { NO_FIFOS, fifoWithoutWriter } from '../policy/testing/fifo.js';
import { DEFAULT_SCHEDULER_CONFIG, readSchedulerConfig } from './scheduler-config.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-scheduler-config-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readSchedulerConfig', () => {
  it('reads the section, and names the line and column of a syntax error', () => {
    fs.writeFileSync(file, '{ "scheduler": { "enabled": false } }');
    expect(readSchedulerConfig(file)).toEqual({
      config: { ...DEFAULT_SCHEDULER_CONFIG, enabled: false },
      problems: [],
    });
    fs.writeFileSync(file, '{\n  "scheduler": {,\n}');
    const read = readSchedulerConfig(file);
    expect(read.config).toEqual(DEFAULT_SCHEDULER_CONFIG);
    expect(read.problems[0]).toBe(`${file} line 2, column 17: expected a value`);
  });

  it('uses the defaults, saying why, for a config.json nested thousands of levels deep', () => {
    fs.writeFileSync(file, `{ "scheduler": ${'{"heartbeat":'.repeat(3000)}1${'}'.repeat(3000)} }`);
    expect(readSchedulerConfig(file)).toEqual({
      config: DEFAULT_SCHEDULER_CONFIG,
      problems: [expect.stringMatching(/line 1, column \d+: scheduler\.heartbeat\..*nested more than 64 levels/)],
    });
  });

  it.skipIf(NO_FIFOS)('uses the defaults at once, saying why, for a named pipe', () => {
    const release = fifoWithoutWriter(file);
    try {
      const started = Date.now();
      expect(readSchedulerConfig(file)).toEqual({
        config: DEFAULT_SCHEDULER_CONFIG,
        problems: [`${file}: not read: it is a named pipe (FIFO); config.json must be a regular file.`],
      });
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      release();
    }
  });
});
