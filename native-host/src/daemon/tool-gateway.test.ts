import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../logger.js';
import { dataPaths } from '../paths.js';
import { hostHandlers } from '../tools/host-handlers.js';
import type { HostHandlers } from '../tools/types.js';
import { openDatabase, type Db } from './database.js';
import { EventLog } from './event-log.js';
import { ToolGateway } from './tool-gateway.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db;
let events: EventLog;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-gateway-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  events = new EventLog(db);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function gateway(handlers: Partial<HostHandlers> = {}): ToolGateway {
  return new ToolGateway({
    handlers: { ...hostHandlers, ...handlers } as HostHandlers,
    platform: 'linux',
    paths: dataPaths(dir, 'linux'),
    log,
    events,
    browserClients: () => [],
  });
}

const fakeInfo = {
  os: 'Test OS',
  arch: 'x64',
  cpus: 2,
  memory_total: 100,
  memory_free: 50,
  displays: [],
};

describe('ToolGateway', () => {
  it('runs a tool with its defaults applied and records start and finish events', async () => {
    let received: unknown;
    const result = await gateway({
      system_info: async (input) => {
        received = input;
        return fakeInfo;
      },
    }).call({ name: 'system_info', input: {}, call_id: 'call-1' }, 'test');
    expect(result).toMatchObject({ ok: true, output: fakeInfo });
    expect(received).toEqual({});
    const recorded = events.missedSince(0, events.logId).events.map((event) => [event.type, event.data]);
    expect(recorded).toEqual([
      ['tool.started', { call_id: 'call-1', tool: 'system_info', source: 'test' }],
      ['tool.finished', expect.objectContaining({ call_id: 'call-1', ok: true })],
    ]);
  });

  it('throws UNKNOWN_TOOL for a name that is not in the catalog', async () => {
    await expect(gateway().call({ name: 'fly', input: {} }, 'test')).rejects.toMatchObject({ code: 'UNKNOWN_TOOL' });
  });

  it('returns INVALID_INPUT as a result, without running the handler', async () => {
    let ran = false;
    const result = await gateway({
      system_info: async () => {
        ran = true;
        return fakeInfo;
      },
    }).call({ name: 'system_info', input: { categories: 'cpu' } }, 'test');
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('categories') },
    });
    expect(ran).toBe(false);
  });

  it('returns UNAVAILABLE for a catalogued tool without a handler', async () => {
    const result = await gateway().call({ name: 'file_read', input: { path: '/etc/hostname' } }, 'test');
    expect(result).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringContaining('#4') } });
  });

  it('turns a handler error into a readable result with its code', async () => {
    const result = await gateway({
      system_info: async () => {
        throw new AppError('PERMISSION_DENIED', 'Not allowed to look.');
      },
    }).call({ name: 'system_info', input: {} }, 'test');
    expect(result).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED', message: 'Not allowed to look.' } });
    expect(events.missedSince(0, events.logId).events.at(-1)?.data).toMatchObject({
      ok: false,
      error_code: 'PERMISSION_DENIED',
    });
  });

  it('refuses to pass on output that breaks the tool’s own schema', async () => {
    const result = await gateway({ system_info: async () => ({ os: 42 }) as never }).call(
      { name: 'system_info', input: {} },
      'test',
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'INTERNAL', message: expect.stringContaining('malformed') },
    });
  });

  it('says a browser tool needs a connected browser when none is', async () => {
    const result = await gateway().call({ name: 'browser_snapshot', input: {} }, 'test');
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', message: expect.stringContaining('none is connected') },
    });
  });

  it('lists every tool with its availability and model-facing schema', () => {
    const tools = gateway().list();
    expect(tools).toHaveLength(38);
    expect(tools.find((tool) => tool.name === 'system_info')).toMatchObject({ available: true, runs_in: 'host' });
    expect(tools.find((tool) => tool.name === 'browser_tabs')).toMatchObject({
      available: false,
      unavailable_reason: expect.stringContaining('No browser'),
    });
    expect(tools.find((tool) => tool.name === 'screenshot')?.input_schema).toMatchObject({ type: 'object' });
  });
});
