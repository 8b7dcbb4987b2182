import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { AuditLog } from './audit/index.js';
import { PolicyChangeRecorder, configFingerprint } from './config-fingerprint.js';
import { openDatabase, type Db } from '../storage/database.js';
import { NO_FIFOS, fifoWithoutWriter } from '../policy/testing/fifo.js';

let dir: string;
let db: Db;
let audit: AuditLog;
let file: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-fingerprint-'));
  db = await openDatabase(path.join(dir, 'data.db'), createLogger({ component: 'test', level: 'error' }));
  audit = new AuditLog(db, path.join(dir, 'audit.anchor'));
  file = path.join(dir, 'config.json');
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rows = () =>
  audit
    .list()
    .map((record) => [record.entry.result, record.entry.actor])
    .reverse();

describe('PolicyChangeRecorder', () => {
  it("records the daemon's own change once, by who asked, and a direct edit as a change from outside", () => {
    const recorder = new PolicyChangeRecorder(audit, file);
    recorder.recordIfOutside({ accepted: true, problems: [] }, 'at start');
    fs.writeFileSync(file, '{"security":{}}');
    recorder.recordOwn('project default set to full-auto', 'person (CLI, process 7)');
    // The watcher sees the daemon's own write: nothing new.
    recorder.recordIfOutside({ accepted: true, problems: [] }, 'while the daemon ran');
    // Another program rewrites the file.
    fs.writeFileSync(file, '{"security":{"permission_level":"L4"}}');
    recorder.recordIfOutside({ accepted: true, problems: [] }, 'while the daemon ran');
    recorder.recordIfOutside({ accepted: true, problems: [] }, 'while the daemon ran');
    expect(rows()).toEqual([
      ['in_force', 'config.json'],
      ['changed', 'person (CLI, process 7)'],
      ['changed', 'config.json edited directly, not through the daemon'],
    ]);
    expect(audit.verify().ok).toBe(true);
  });

  it.skipIf(NO_FIFOS)(
    'fingerprints a named pipe or a directory as unreadable, at once, and records the refusal',
    () => {
      const recorder = new PolicyChangeRecorder(audit, file);
      recorder.recordIfOutside({ accepted: true, problems: [] }, 'at start');
      const release = fifoWithoutWriter(file);
      try {
        const started = Date.now();
        expect(configFingerprint(file)).toBe('unreadable');
        recorder.recordIfOutside({ accepted: false, problems: ['a named pipe'] }, 'while the daemon ran');
        expect(Date.now() - started).toBeLessThan(1000);
      } finally {
        release();
      }
      fs.rmSync(file);
      fs.mkdirSync(file);
      expect(configFingerprint(file)).toBe('unreadable');
      expect(rows()).toEqual([
        ['in_force', 'config.json'],
        ['rejected', 'config.json edited directly, not through the daemon'],
      ]);
    },
  );
});
