import { AppError, type Approval, type DaemonEvent } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { INITIAL_STATE, type ConnectionState } from '../../lib/connection-state.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { ApprovalsStore } from './approvals-store.js';

function approval(id: string): Approval {
  return {
    id,
    created_at: '2026-01-01T00:00:00.000Z',
    call_id: `call-${id}`,
    run_id: 'run-1',
    project: 'default',
    source: 'agent',
    tool: 'bash_execute',
    input: { command: 'echo hi' },
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

const daemon = (startedAt: string) =>
  ({
    version: '0.1.0',
    protocol_version: 1,
    pid: 1,
    platform: 'linux',
    arch: 'x64',
    data_dir: '/tmp',
    started_at: startedAt,
  }) as const;

/** A panel client with a scripted daemon: `pending` is what approvals.list returns. */
function fakeClient() {
  const listeners = new Set<() => void>();
  const eventListeners = new Set<(event: DaemonEvent) => void>();
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const fake = {
    pending: [] as Approval[],
    answerError: undefined as AppError | undefined,
    state: { ...INITIAL_STATE } as ConnectionState,
    calls,
    call(method: string, params: Record<string, unknown>) {
      calls.push({ method, params });
      if (method === 'approvals.list') return Promise.resolve({ approvals: [...fake.pending] });
      if (method === 'tools.list')
        return Promise.resolve({ tools: [{ name: 'bash_execute', title: 'Run a shell command' }] });
      if (method === 'approvals.answer') {
        if (fake.answerError) return Promise.reject(fake.answerError);
        fake.pending = fake.pending.filter((item) => item.id !== params.id);
        return Promise.resolve({ approval: { ...approval(String(params.id)), status: 'approved' } });
      }
      return Promise.reject(new Error(`unexpected ${method}`));
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onEvent(listener: (event: DaemonEvent) => void) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    setState(state: Partial<ConnectionState>) {
      fake.state = { ...fake.state, ...state };
      for (const listener of listeners) listener();
    },
    emit(event: DaemonEvent) {
      for (const listener of eventListeners) listener(event);
    },
  };
  return fake;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const lists = (client: ReturnType<typeof fakeClient>) =>
  client.calls.filter((call) => call.method === 'approvals.list').length;

describe('ApprovalsStore', () => {
  it('reads the list and the tool titles once connected, and again after a reconnection or a new daemon', async () => {
    const client = fakeClient();
    client.pending = [approval('a')];
    const store = new ApprovalsStore(client as unknown as PanelClient);
    expect(lists(client)).toBe(0);
    client.setState({ status: 'connected', daemon: daemon('t1') });
    await settle();
    expect(store.pending.items.map((item) => item.id)).toEqual(['a']);
    expect(store.titleOf('bash_execute')).toBe('Run a shell command');

    client.setState({ lastEventSeq: 9 });
    expect(lists(client)).toBe(1);
    client.setState({ status: 'connected', daemon: daemon('t2') });
    expect(lists(client)).toBe(2);
    client.setState({ status: 'disconnected' });
    client.setState({ status: 'connected' });
    await settle();
    expect(lists(client)).toBe(3);
  });

  it('an answer from this panel leaves no notice; one from the terminal does', async () => {
    const client = fakeClient();
    client.pending = [approval('a'), approval('b')];
    const store = new ApprovalsStore(client as unknown as PanelClient);
    client.setState({ status: 'connected', daemon: daemon('t1') });
    await settle();

    const a = store.pending.get('a')!;
    const answering = store.answer(a, { decision: 'approve', scope: 'run' });
    client.emit({
      seq: 1,
      type: 'approval.answered',
      time: 'now',
      data: { approval_id: 'a', call_id: 'call-a', status: 'approved', scope: 'run', by: 'extension:chromium' },
    });
    await answering;
    expect(client.calls.at(-1)).toEqual({
      method: 'approvals.answer',
      params: { id: 'a', decision: 'approve', scope: 'run' },
    });
    expect(store.notices).toEqual([]);

    client.emit({
      seq: 2,
      type: 'approval.answered',
      time: 'now',
      data: { approval_id: 'b', call_id: 'call-b', status: 'denied', by: 'cli:nextai' },
    });
    expect(store.pending.count).toBe(0);
    expect(store.notices).toEqual([
      expect.objectContaining({ kind: 'answered_elsewhere', tool: 'bash_execute', status: 'denied', by: 'cli:nextai' }),
    ]);
    store.dismiss(store.notices[0]!.id);
    expect(store.notices).toEqual([]);
  });

  it('ALREADY_ANSWERED and NOT_FOUND become notices and the card goes; other failures are for the card to show', async () => {
    const client = fakeClient();
    client.pending = [approval('a'), approval('b'), approval('c')];
    const store = new ApprovalsStore(client as unknown as PanelClient);
    client.setState({ status: 'connected', daemon: daemon('t1') });
    await settle();

    client.answerError = new AppError('ALREADY_ANSWERED', 'Approval request a was already approved by cli:nextai.');
    await store.answer(store.pending.get('a')!, { decision: 'deny', scope: 'once', message: 'no' });
    client.answerError = new AppError('NOT_FOUND', 'There is no approval request with id "b".');
    await store.answer(store.pending.get('b')!, { decision: 'approve', scope: 'once' });
    expect(store.notices.map((notice) => notice.kind)).toEqual(['already_answered', 'gone']);
    expect(store.pending.items.map((item) => item.id)).toEqual(['c']);

    client.answerError = new AppError('DAEMON_UNAVAILABLE', 'Not connected.');
    await expect(store.answer(store.pending.get('c')!, { decision: 'approve', scope: 'once' })).rejects.toThrow(
      'Not connected.',
    );
    expect(store.pending.count).toBe(1);
  });
});
