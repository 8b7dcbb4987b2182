import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Logger } from '../core/logger.js';
import { NO_FIFOS, fifoWithoutWriter } from '../policy/testing/fifo.js';
import { readBrowserConfig } from './browser-config.js';

let dir: string;
let file: string;
let warnings: string[];
const log: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => void warnings.push(message),
  error: () => undefined,
  child: () => log,
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-browser-config-'));
  file = path.join(dir, 'config.json');
  warnings = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readBrowserConfig', () => {
  it('reads the browser section, comments allowed', () => {
    fs.writeFileSync(file, '{\n  // mine\n  "browser": { "executable_path": "/opt/chrome" },\n}');
    expect(readBrowserConfig(file, log)).toEqual({ executable_path: '/opt/chrome' });
    expect(warnings).toEqual([]);
  });

  it('uses the defaults with a warning for a config.json nested thousands of levels deep', () => {
    fs.writeFileSync(file, `{ "browser": ${'['.repeat(3000)}${']'.repeat(3000)} }`);
    expect(readBrowserConfig(file, log)).toEqual({});
    expect(warnings).toHaveLength(1);
  });

  it.skipIf(NO_FIFOS)('uses the defaults at once, with a warning, for a named pipe', () => {
    const release = fifoWithoutWriter(file);
    try {
      const started = Date.now();
      expect(readBrowserConfig(file, log)).toEqual({});
      expect(Date.now() - started).toBeLessThan(1000);
      expect(warnings).toHaveLength(1);
    } finally {
      release();
    }
  });
});
