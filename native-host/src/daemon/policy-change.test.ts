import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { AppError } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { AuditLog } from '../gateway/audit/index.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EventLog } from '../storage/event-log.js';
import { storageHealth } from '../storage/storage-health.js';
import { recordPolicyChange } from './policy-change.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db | undefined;

afterEach(() => {
  if (db) storageHealth(db).close();
  db?.close();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('recordPolicyChange', () => {
  it('tells the listeners of a change in force even when it cannot be recorded, and says it is not in the audit log', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-policy-change-'));
    db = await openDatabase(path.join(dir, 'data.db'), log);
    const events = new EventLog(db);
    const audit = new AuditLog(db, path.join(dir, 'audit-anchor.json'));
    const configFile = path.join(dir, 'config.json');
    fs.writeFileSync(configFile, '{}');
    const heard: unknown[] = [];
    events.subscribe((event) => heard.push(event.data));

    db.pragma('query_only = ON');
    let refused: unknown;
    try {
      recordPolicyChange({ events, audit, configFile }, 'allowed folders narrowed', 'the person (cli)');
    } catch (error) {
      refused = error;
    }
    // The terminals a narrower policy no longer allows are ended all the same (they listen for it).
    expect(heard).toEqual([{ source: 'the person (cli)', summary: 'allowed folders narrowed' }]);
    expect(refused).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'read_only' } });
    expect((refused as Error).message).toMatch(
      /^The change is in force \(config\.json was saved\), but it is not in the audit log\. Could not save the audit record: /,
    );
    expect((refused as AppError).translations?.['zh-CN']).toMatch(
      /^更改已生效（config\.json 已保存），但未写入审计日志。无法保存审计记录：/,
    );

    db.pragma('query_only = OFF');
    recordPolicyChange({ events, audit, configFile }, 'template set to strict', 'the person (cli)');
    expect(audit.list().map((record) => record.entry.reason)).toEqual(['template set to strict']);
  });
});
