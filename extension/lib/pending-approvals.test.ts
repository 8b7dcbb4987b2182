import type { Approval, DaemonEvent } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { PendingApprovals } from './pending-approvals.js';

function approval(id: string, created = '2026-01-01T00:00:00.000Z'): Approval {
  return {
    id,
    created_at: created,
    call_id: `call-${id}`,
    run_id: 'run-1',
    project: 'default',
    source: 'agent',
    tool: 'bash_execute',
    input: { command: `echo ${id}` },
    risk: 'high',
    layer: 'project_policy',
    reason: 'Shell commands need approval.',
    findings: [],
    translations: {},
    per_call: false,
    sandbox: null,
    status: 'pending',
    scope: null,
    message: null,
    answered_at: null,
    answered_by: null,
  };
}

let seq = 0;
const requested = (id: string): DaemonEvent => ({
  seq: ++seq,
  type: 'approval.requested',
  time: '2026-01-01T00:00:05.000Z',
  data: {
    approval_id: id,
    call_id: `call-${id}`,
    tool: 'bash_execute',
    risk: 'high',
    layer: 'project_policy',
    reason: 'r',
  },
});
const answered = (id: string, by = 'cli:nextai'): DaemonEvent => ({
  seq: ++seq,
  type: 'approval.answered',
  time: '2026-01-01T00:00:06.000Z',
  data: { approval_id: id, call_id: `call-${id}`, status: 'approved', scope: 'once', by },
});

/** A list whose answers the test releases one by one. */
function manualLoader() {
  const calls: ((list: Approval[]) => void)[] = [];
  return {
    load: () => new Promise<Approval[]>((resolve) => calls.push(resolve)),
    calls,
    async answer(index: number, list: Approval[]) {
      calls[index]!(list);
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

describe('PendingApprovals', () => {
  it('reads the list, sorted by time, and removes a request answered anywhere at once', async () => {
    const loader = manualLoader();
    const pending = new PendingApprovals(loader.load);
    pending.refresh();
    await loader.answer(0, [approval('b', '2026-01-01T00:00:02.000Z'), approval('a', '2026-01-01T00:00:01.000Z')]);
    expect(pending.items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(pending.loaded).toBe(true);

    const seen: string[] = [];
    pending.onAnswered((answer, item) => seen.push(`${item.id} ${answer.status} by ${answer.by}`));
    pending.onEvent(answered('a'));
    expect(pending.items.map((item) => item.id)).toEqual(['b']);
    expect(seen).toEqual(['a approved by cli:nextai']);
  });

  it('shows a new request from its event at once, then completes it from the list', async () => {
    const loader = manualLoader();
    const pending = new PendingApprovals(loader.load);
    pending.onEvent(requested('x'));
    expect(pending.count).toBe(1);
    expect(pending.get('x')?.complete).toBe(false);
    await loader.answer(0, [approval('x')]);
    expect(pending.get('x')).toMatchObject({ complete: true, input: { command: 'echo x' } });
  });

  it('a list sent before an answer does not bring the answered request back', async () => {
    const loader = manualLoader();
    const pending = new PendingApprovals(loader.load);
    pending.refresh();
    pending.onEvent(answered('a'));
    await loader.answer(0, [approval('a'), approval('b')]);
    expect(pending.items.map((item) => item.id)).toEqual(['b']);
  });

  it('a request raised while a list is on its way is kept, and the list is read again', async () => {
    const loader = manualLoader();
    const pending = new PendingApprovals(loader.load);
    pending.refresh();
    pending.onEvent(requested('new'));
    await loader.answer(0, [approval('old')]);
    expect(pending.items.map((item) => item.id).sort()).toEqual(['new', 'old']);
    expect(loader.calls).toHaveLength(2);
    await loader.answer(1, [approval('old'), approval('new')]);
    expect(pending.get('new')?.complete).toBe(true);
  });

  it('drops requests that the list no longer holds (answered while this client was away)', async () => {
    const loader = manualLoader();
    const pending = new PendingApprovals(loader.load);
    pending.refresh();
    await loader.answer(0, [approval('a'), approval('b')]);
    pending.refresh();
    await loader.answer(1, [approval('b')]);
    expect(pending.items.map((item) => item.id)).toEqual(['b']);
  });

  it('ignores a replayed request event for a request it saw answered', () => {
    const pending = new PendingApprovals(() => Promise.resolve([]));
    pending.onEvent(requested('a'));
    pending.onEvent(answered('a'));
    pending.onEvent(requested('a'));
    expect(pending.count).toBe(0);
  });

  it('keeps what it had when a list fails, and says why', async () => {
    const loader = manualLoader();
    let fail = false;
    const pending = new PendingApprovals(() => (fail ? Promise.reject(new Error('not connected')) : loader.load()));
    pending.refresh();
    await loader.answer(0, [approval('a')]);
    fail = true;
    pending.refresh();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pending.error?.message).toBe('not connected');
    expect(pending.count).toBe(1);
  });
});
