import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { AppError, Decision } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { ApprovalQueue } from './approvals.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EventLog } from '../storage/event-log.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db;
let events: EventLog;
let queue: ApprovalQueue;

const decision = (perCall = false): Decision => ({
  action: 'require_approval',
  risk: perCall ? 'critical' : 'high',
  default_risk: 'high',
  layer: perCall ? 'sensitive_operation' : 'project_policy',
  reason: 'asks first',
  trail: [],
  translations: { 'zh-CN': { reason: '先问你', findings: [] } },
  findings: perCall ? ['deletes files recursively'] : [],
  per_call: perCall,
});

const request = (runId?: string, perCall = false) =>
  queue.request({
    callId: `call-${Math.random()}`,
    runId,
    project: 'default',
    source: 'test',
    tool: 'bash_execute',
    input: { command: 'npm publish' },
    decision: decision(perCall),
  });

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-approvals-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  events = new EventLog(db);
  queue = new ApprovalQueue(db, events);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ApprovalQueue', () => {
  it('keeps a request pending until a person answers, then wakes the waiter', async () => {
    const approval = request();
    expect(queue.list('pending', 10).map((entry) => entry.id)).toEqual([approval.id]);
    const waiting = queue.wait(approval.id);
    queue.answer(approval.id, { decision: 'approve', scope: 'once' }, 'cli:test');
    await expect(waiting).resolves.toEqual({ status: 'approved', scope: 'once' });
    expect(queue.get(approval.id)).toMatchObject({ status: 'approved', answered_by: 'cli:test' });
    const types = events.missedSince(0, events.logId).events.map((event) => event.type);
    expect(types).toEqual(['approval.requested', 'approval.answered']);
  });

  it('passes a denial message to the waiter', async () => {
    const approval = request();
    const waiting = queue.wait(approval.id);
    queue.answer(approval.id, { decision: 'deny', scope: 'once', message: 'use the staging server' }, 'panel');
    await expect(waiting).resolves.toEqual({ status: 'denied', message: 'use the staging server' });
  });

  it('answers a wait at once for a request answered before (as after a restart)', async () => {
    const approval = request('run-1');
    queue.answer(approval.id, { decision: 'approve', scope: 'run' }, 'cli');
    const reopened = new ApprovalQueue(db, events);
    await expect(reopened.wait(approval.id)).resolves.toEqual({ status: 'approved', scope: 'run' });
  });

  it('refuses unknown ids and second answers with clear errors', () => {
    expect(() => queue.answer('nope', { decision: 'approve', scope: 'once' }, 'cli')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    const approval = request();
    queue.answer(approval.id, { decision: 'deny', scope: 'once' }, 'cli');
    expect(() => queue.answer(approval.id, { decision: 'approve', scope: 'once' }, 'cli')).toThrow(
      expect.objectContaining({ code: 'ALREADY_ANSWERED', message: expect.stringContaining('already denied by cli') }),
    );
  });

  it('approves "for this run" only for run requests that are not sensitive', () => {
    expect(() => queue.answer(request().id, { decision: 'approve', scope: 'run' }, 'cli')).toThrow(
      /not part of an agent run/,
    );
    expect(() => queue.answer(request('run-1', true).id, { decision: 'approve', scope: 'run' }, 'cli')).toThrow(
      /each time/,
    );
    queue.answer(request('run-1').id, { decision: 'approve', scope: 'run' }, 'cli');
    expect(queue.runState('run-1', 'bash_execute')).toEqual({
      approvedForRun: true,
      denials: { consecutive: 0, total: 0 },
    });
    expect(queue.runState('run-1', 'file_write').approvedForRun).toBe(false);
  });

  it('counts denials per run for the circuit breaker; an approval resets the streak', () => {
    for (let i = 0; i < 3; i++) queue.answer(request('run-2').id, { decision: 'deny', scope: 'once' }, 'cli');
    expect(queue.runState('run-2', 'bash_execute').denials).toEqual({ consecutive: 3, total: 3 });
    queue.answer(request('run-2').id, { decision: 'approve', scope: 'once' }, 'cli');
    expect(queue.runState('run-2', 'bash_execute').denials).toEqual({ consecutive: 0, total: 3 });
  });

  it('closes a request unanswered when cancelled, and not twice', async () => {
    const approval = request();
    const waiting = queue.wait(approval.id);
    queue.cancel(approval.id, 'the caller went away');
    queue.cancel(approval.id, 'again');
    await expect(waiting).resolves.toEqual({ status: 'cancelled', message: 'the caller went away' });
    expect(queue.list('pending', 10)).toEqual([]);
  });
});

describe('ApprovalQueue when the database cannot be written', () => {
  const eventTypes = () => events.missedSince(0, events.logId).events.map((event) => event.type);

  it('refuses a request whole: no row without its event', () => {
    db.pragma('query_only = ON');
    expect(() => request()).toThrow(
      expect.objectContaining({
        code: 'STORAGE_ERROR',
        message: expect.stringMatching(/^Could not save the approval request: The database in .* read-only/) as string,
      }) as Error,
    );
    db.pragma('query_only = OFF');
    expect(queue.list('all', 10)).toEqual([]);
    expect(eventTypes()).toEqual([]);
  });

  it('refuses an answer whole: the request stays pending, unheard by its waiter, until it can be saved', async () => {
    const approval = request('run-1');
    let settled: unknown;
    void queue.wait(approval.id).then((answer) => (settled = answer));
    db.pragma('query_only = ON');
    let refused: unknown;
    try {
      queue.answer(approval.id, { decision: 'approve', scope: 'run' }, 'cli');
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'read_only' } });
    expect((refused as AppError).translations?.['zh-CN']).toMatch(/^无法保存对审批请求的答复：/);
    expect(() => queue.cancel(approval.id, 'the caller left')).toThrow(
      expect.objectContaining({ code: 'STORAGE_ERROR' }) as Error,
    );
    db.pragma('query_only = OFF');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    expect(queue.get(approval.id)).toMatchObject({ status: 'pending', answered_by: null });
    expect(queue.runState('run-1', 'bash_execute').approvedForRun).toBe(false);
    expect(eventTypes()).toEqual(['approval.requested']);

    queue.answer(approval.id, { decision: 'approve', scope: 'run' }, 'cli');
    await expect.poll(() => settled).toEqual({ status: 'approved', scope: 'run' });
    expect(queue.runState('run-1', 'bash_execute').approvedForRun).toBe(true);
    expect(eventTypes()).toEqual(['approval.requested', 'approval.answered']);
  });
});

describe('ApprovalQueue.findForRunCall: an earlier answer stands only for what was asked', () => {
  const input = { action: 'click', ref: 'e3' };
  const ask = (asked: Decision, sensitive?: 'download' | 'credential_submit') =>
    queue.request({
      callId: 'step-3',
      runId: 'run-1',
      project: 'default',
      source: 'run',
      tool: 'browser_interact',
      input,
      decision: asked,
      sensitive,
    });
  const webContent: Decision = { ...decision(), layer: 'web_content', per_call: true };

  it('reuses the answer for the same decision and sensitive kind', () => {
    const approval = ask(webContent, 'download');
    queue.answer(approval.id, { decision: 'approve', scope: 'once' }, 'test');
    expect(
      queue.findForRunCall('run-1', 'step-3', 'browser_interact', input, {
        decision: webContent,
        sensitive: 'download',
      })?.id,
    ).toBe(approval.id);
  });

  it('does not let an approval of one kind, or of a plain call, stand for another sensitive kind', () => {
    const plain = ask(decision());
    queue.answer(plain.id, { decision: 'approve', scope: 'once' }, 'test');
    const find = (now: Decision, sensitive?: 'download' | 'credential_submit') =>
      queue.findForRunCall('run-1', 'step-3', 'browser_interact', input, { decision: now, sensitive });
    expect(find(webContent, 'credential_submit')).toBeUndefined();
    expect(find(decision())?.id).toBe(plain.id);
    const download = ask(webContent, 'download');
    queue.answer(download.id, { decision: 'approve', scope: 'once' }, 'test');
    expect(find(webContent, 'credential_submit')).toBeUndefined();
    expect(find({ ...webContent, risk: 'critical' }, 'download')).toBeUndefined();
  });

  it('closes a still-pending request for what the call no longer is', () => {
    const stale = ask(decision());
    expect(
      queue.findForRunCall('run-1', 'step-3', 'browser_interact', input, {
        decision: webContent,
        sensitive: 'credential_submit',
      }),
    ).toBeUndefined();
    expect(queue.get(stale.id)).toMatchObject({ status: 'cancelled' });
    expect(queue.get(stale.id)).not.toHaveProperty('sensitive_kind');
  });
});

describe('ApprovalQueue when the clock is set back or forward', () => {
  let time: number;
  const HOUR = 3_600_000;
  const input = { command: 'npm publish' };
  const ask = (asked: Decision) =>
    queue.request({
      callId: 'step-4',
      runId: 'run-1',
      project: 'default',
      source: 'run',
      tool: 'bash_execute',
      input,
      decision: asked,
    });

  beforeEach(() => {
    time = Date.parse('2025-06-02T10:00:00Z');
    queue = new ApprovalQueue(db, events, () => new Date(time));
  });

  it('a request waits for the person however the clock moves: it never expires, early or late', async () => {
    const approval = ask(decision());
    let settled: unknown;
    void queue.wait(approval.id).then((answer) => (settled = answer));
    time += 24 * HOUR;
    await new Promise((resolve) => setImmediate(resolve));
    time -= 25 * HOUR;
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    expect(queue.get(approval.id).status).toBe('pending');
    expect(queue.list('pending', 10).map((entry) => entry.id)).toEqual([approval.id]);
    queue.answer(approval.id, { decision: 'approve', scope: 'once' }, 'cli');
    await expect.poll(() => settled).toEqual({ status: 'approved', scope: 'once' });
    expect(queue.get(approval.id).answered_at).toBe('2025-06-02T09:00:00.000Z');
  });

  it('the latest request for a call is the one made last, even when the clock went back between them', () => {
    // Asked at 10:00; the daemon restarts after the clock is set back an hour, the run repeats the
    // call, which now needs another kind of approval: the old request is closed, a new one asked.
    const first = ask(decision());
    time -= HOUR;
    const critical = decision(true);
    expect(queue.findForRunCall('run-1', 'step-4', 'bash_execute', input, { decision: critical })).toBeUndefined();
    expect(queue.get(first.id).status).toBe('cancelled');
    const second = ask(critical);
    expect(second.created_at < first.created_at).toBe(true);
    queue.answer(second.id, { decision: 'approve', scope: 'once' }, 'cli');
    // The call may have run: a run resumed after another restart must not take it for never run.
    expect(queue.statusForRunCall('run-1', 'step-4')).toBe('approved');
    expect(queue.findForRunCall('run-1', 'step-4', 'bash_execute', input, { decision: critical })?.id).toBe(second.id);
  });
});
