import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { TEMPLATES } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { openDatabase, type Db } from '../storage/database.js';
import { storageHealth } from '../storage/storage-health.js';
import { createLogger, type Logger } from '../core/logger.js';
import { parsePolicyConfig } from './config-file.js';
import { PolicyStore } from './policy-store.js';
import { NO_FIFOS, fifoWithoutWriter } from './testing/fifo.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db;
let file: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-policy-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  file = path.join(dir, 'config.json');
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('parsePolicyConfig', () => {
  it('fills in the defaults for an empty object', () => {
    const parsed = parsePolicyConfig('{}', 'config.json');
    expect(parsed).toMatchObject({
      ok: true,
      config: {
        security: { permission_level: 'L3', allowed_directories: ['~/Projects', '~/Documents/NextAI', '~/Desktop'] },
        projects: { default_approval_template: 'development', default_project: 'default', items: {} },
      },
    });
  });

  it('names the line, column and field of a wrong value', () => {
    const text = '{\n  "security": {\n    "permission_level": "L9"\n  }\n}\n';
    const parsed = parsePolicyConfig(text, 'config.json');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems[0]).toMatch(/^config\.json line 3, column 5: security\.permission_level: /);
  });

  it('names a misspelt field instead of ignoring it', () => {
    const text =
      '{\n  "projects": {\n    "items": {\n      "web": { "name": "Web", "approval": { "mode": "auto", "risk_polices": {} } }\n    }\n  }\n}';
    const parsed = parsePolicyConfig(text, 'config.json');
    expect(!parsed.ok && parsed.problems.join('\n')).toMatch(/line 4, .*projects\.items\.web\.approval/);
  });

  it('names the position of a JSON syntax error', () => {
    const parsed = parsePolicyConfig('{\n  "security": {,\n}', 'config.json');
    expect(!parsed.ok && parsed.problems[0]).toMatch(/^config\.json line 2, column \d+: /);
  });

  it('reports one problem per spot, not every error the parser saw there', () => {
    const parsed = parsePolicyConfig('{\n  "security": { "permission_level" "L2" }\n}', 'config.json');
    expect(!parsed.ok && parsed.problems).toHaveLength(1);
  });

  it('accepts trailing commas, as editors do for JSON with comments', () => {
    expect(parsePolicyConfig('{ "security": { "permission_level": "L2", }, }', 'c')).toMatchObject({
      ok: true,
      config: { security: { permission_level: 'L2' } },
    });
  });

  it('accepts the example config in the README, as written there', () => {
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const example = /```jsonc\n([\s\S]*?)```/u.exec(readme)?.[1];
    expect(example).toBeDefined();
    const parsed = parsePolicyConfig(example ?? '', 'README.md');
    expect(parsed).toMatchObject({ ok: true, config: { projects: { items: { work: { name: 'Work' } } } } });
  });

  it('accepts comments, and sections it does not own', () => {
    const parsed = parsePolicyConfig(
      '{\n  // models are configured elsewhere\n  "model": { "provider": "anthropic" }\n}',
      'c',
    );
    expect(parsed.ok).toBe(true);
  });

  it("keeps other sections' secrets out of the policy and out of the last good copy in SQLite", () => {
    const secret = 'sk-ant-test-0123456789abcdef';
    fs.writeFileSync(file, JSON.stringify({ model: { provider: 'anthropic', api_key: secret } }));
    const parsed = parsePolicyConfig(fs.readFileSync(file, 'utf8'), 'c');
    expect(parsed.ok && Object.keys(parsed.config).sort()).toEqual(['projects', 'security']);
    const store = new PolicyStore(file, db, log);
    try {
      expect(store.current.source).toBe('file');
      const stored = db.prepare('SELECT value FROM safety_state').pluck().all() as string[];
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.join('\n')).not.toContain(secret);
    } finally {
      store.close();
    }
  });

  it('accepts Chinese category names and template names', () => {
    const text = JSON.stringify({
      projects: {
        default_approval_template: '严格模式',
        items: {
          ops: {
            name: 'Ops',
            approval: { ...TEMPLATES.strict.policy, category_overrides: { 终端操控: 'require_approval' } },
          },
        },
      },
    });
    expect(parsePolicyConfig(text, 'c').ok).toBe(true);
  });
});

describe('PolicyStore', () => {
  it('uses the defaults when there is no config.json, with the development template', () => {
    const store = new PolicyStore(file, db, log);
    expect(store.current.source).toBe('defaults');
    expect(store.project()).toMatchObject({ id: 'default', template: 'development' });
  });

  it('keeps the previous policy when the file becomes invalid, and says why', () => {
    fs.writeFileSync(file, JSON.stringify({ projects: { default_approval_template: 'strict' } }));
    const store = new PolicyStore(file, db, log);
    expect(store.project().template).toBe('strict');
    fs.writeFileSync(file, '{ "projects": { "default_approval_template": "reckless" } }');
    const result = store.reload();
    expect(result.accepted).toBe(false);
    expect(store.project().template).toBe('strict');
    expect(store.current.problem).toMatch(/line 1, column \d+: projects\.default_approval_template/);
  });

  it('after a restart with a broken file, uses the last good policy from the database', () => {
    fs.writeFileSync(file, JSON.stringify({ projects: { default_approval_template: 'observe' } }));
    new PolicyStore(file, db, log);
    fs.writeFileSync(file, '{ broken');
    const restarted = new PolicyStore(file, db, log);
    expect(restarted.current.source).toBe('last_good');
    expect(restarted.project().template).toBe('observe');
  });

  it('sets a template by editing config.json in place, keeping other sections', () => {
    fs.writeFileSync(file, '{\n  // my settings\n  "model": { "provider": "openai" }\n}\n');
    const store = new PolicyStore(file, db, log);
    expect(store.setTemplate('全自动')).toMatchObject({ id: 'default', template: 'full-auto' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// my settings');
    expect(text).toContain('"provider": "openai"');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(new PolicyStore(file, db, log).project().template).toBe('full-auto');
  });

  it('announces a removed config.json: the defaults it falls back to are a change like any other', () => {
    fs.writeFileSync(file, JSON.stringify({ security: { allowed_directories: ['~/Work'] } }));
    const changes: string[] = [];
    const store = new PolicyStore(file, db, log, (change) => changes.push(change.summary));
    fs.rmSync(file);
    expect(store.reload().accepted).toBe(true);
    expect(store.current.source).toBe('defaults');
    expect(changes).toEqual(['config.json removed; the built-in defaults are in force']);
    // Still missing: nothing changed, nothing to announce.
    store.reload();
    expect(changes).toHaveLength(1);
  });

  it('puts a change in force and announces it when its copy cannot be kept in the database', () => {
    fs.writeFileSync(file, JSON.stringify({ projects: { default_approval_template: 'development' } }));
    const changes: string[] = [];
    const store = new PolicyStore(file, db, log, (change) => changes.push(change.summary));
    db.pragma('query_only = ON');
    fs.writeFileSync(file, JSON.stringify({ security: { allowed_directories: ['~/Work'] } }));
    expect(store.reload()).toEqual({ accepted: true, problems: [] });
    expect(store.current.config.security.allowed_directories).toEqual(['~/Work']);
    expect(store.setTemplate('strict')).toMatchObject({ template: 'strict' });
    // Listeners (the terminals a narrower policy no longer allows) heard both.
    expect(changes).toEqual(['config.json reloaded', 'project default set to strict']);
    expect(storageHealth(db).failing).toMatchObject({ code: 'SQLITE_READONLY' });
    db.pragma('query_only = OFF');
  });

  it('refuses an unknown template or project by name, listing the choices', () => {
    const store = new PolicyStore(file, db, log);
    expect(() => store.setTemplate('yolo')).toThrow(/full-auto \(全自动\), development/);
    expect(() => store.project('nope')).toThrow(/Projects: default/);
  });
});

describe('PolicyStore with a hostile config.json', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  const nestedArrays = (depth: number) => `{ "ui": ${'['.repeat(depth)}${']'.repeat(depth)} }`;
  const nestedObjects = (depth: number) => `{ "ui": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)} }`;
  const strict = JSON.stringify({ projects: { default_approval_template: 'strict' } });

  /** What the store logs, to see that a failed reload is reported rather than thrown. */
  function recordingLog(): Logger & { errors: string[]; warnings: string[] } {
    const errors: string[] = [];
    const warnings: string[] = [];
    const recording = {
      errors,
      warnings,
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => void warnings.push(message),
      error: (message: string) => void errors.push(message),
      child: () => recording,
    };
    return recording;
  }

  /** Puts `replace` where config.json is, as an editor or another program would. */
  async function swapAndWaitForRefusal(store: PolicyStore, replace: () => void, problem: RegExp): Promise<void> {
    fs.rmSync(file, { recursive: true, force: true });
    replace();
    // The watcher's own path: fs.watch, the debounce timer, reload.
    await vi.waitFor(() => expect(store.current.problem).toMatch(problem), { timeout: 5000 });
  }

  it('keeps the last good policy while config.json turns into each bad thing, through the watcher', async () => {
    fs.writeFileSync(file, strict);
    const recording = recordingLog();
    const outcomes: boolean[] = [];
    const store = new PolicyStore(file, db, recording, (change) => outcomes.push(change.accepted));
    store.watch();
    cleanups.push(() => store.close());
    expect(store.project().template).toBe('strict');

    await swapAndWaitForRefusal(store, () => fs.writeFileSync(file, nestedArrays(3000)), /nested more than 64/);
    expect(store.project().template).toBe('strict');

    await swapAndWaitForRefusal(store, () => fs.writeFileSync(file, nestedObjects(3000)), /ui\.a\.a\.a\..*: nested/);
    expect(store.project().template).toBe('strict');

    if (!NO_FIFOS) {
      await swapAndWaitForRefusal(store, () => cleanups.push(fifoWithoutWriter(file)), /named pipe \(FIFO\)/);
      expect(store.project().template).toBe('strict');

      const elsewhere = path.join(dir, 'pipe');
      cleanups.push(fifoWithoutWriter(elsewhere));
      await swapAndWaitForRefusal(store, () => fs.symlinkSync(elsewhere, file), /symbolic link to a named pipe/);
      expect(store.project().template).toBe('strict');
    }

    await swapAndWaitForRefusal(store, () => fs.mkdirSync(file), /it is a directory/);
    expect(store.project().template).toBe('strict');

    await swapAndWaitForRefusal(
      store,
      () => fs.writeFileSync(file, `{"ui":{},"x":"${'x'.repeat(5 * 1024 * 1024)}"}`),
      /it is 5\.0 MiB .*at most 1 MiB/,
    );
    expect(store.project().template).toBe('strict');
    expect(store.current.source).toBe('file');
    expect(outcomes.every((accepted) => !accepted)).toBe(true);

    // A good file again is taken at once.
    fs.rmSync(file);
    fs.writeFileSync(file, JSON.stringify({ projects: { default_approval_template: 'observe' } }));
    await vi.waitFor(() => expect(store.project().template).toBe('observe'), { timeout: 5000 });
    expect(store.current.problem).toBeUndefined();
    expect(recording.errors).toEqual([]);
  });

  it('starts with the last good policy, saying why, when config.json is bad at start', () => {
    fs.writeFileSync(file, strict);
    new PolicyStore(file, db, log).close();
    for (const bad of [nestedArrays(3000), nestedObjects(3000)]) {
      fs.writeFileSync(file, bad);
      const restarted = new PolicyStore(file, db, log);
      expect(restarted.current).toMatchObject({ source: 'last_good', problem: expect.stringMatching(/nested/) });
      expect(restarted.project().template).toBe('strict');
    }
  });

  it.skipIf(NO_FIFOS)(
    'starts with the defaults, saying why, when config.json is a named pipe and nothing good was kept',
    () => {
      cleanups.push(fifoWithoutWriter(file));
      const started = Date.now();
      const store = new PolicyStore(file, db, log);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(store.current).toMatchObject({ source: 'defaults', problem: expect.stringMatching(/named pipe/) });
      expect(() => store.setTemplate('strict')).toThrow(/config\.json has problems/);
    },
  );

  it('never throws out of the watcher: a failing reload is logged and the policy in force stays', async () => {
    fs.writeFileSync(file, strict);
    const recording = recordingLog();
    let failing = false;
    const store = new PolicyStore(file, db, recording, () => {
      if (failing) throw new Error('the listener failed');
    });
    store.watch();
    cleanups.push(() => store.close());
    failing = true;
    fs.writeFileSync(file, nestedArrays(3000));
    await vi.waitFor(() => expect(recording.errors).toHaveLength(1), { timeout: 5000 });
    expect(recording.errors[0]).toMatch(/the policy in force stays/);
    expect(store.project().template).toBe('strict');
  });
});
