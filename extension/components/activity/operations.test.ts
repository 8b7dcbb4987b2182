import { describe, expect, it } from 'vitest';

import { foldAudit, newestFirst, summariseParameters, type AuditRecordLike } from './operations.js';

let seq = 0;
const record = (kind: string, entry: Record<string, unknown>): AuditRecordLike => ({
  seq: ++seq,
  time: `2026-11-24T07:00:${String(seq).padStart(2, '0')}.000Z`,
  kind,
  entry: { kind, ...entry },
});

describe('the operation log folded from audit records', () => {
  it('gives one row per call, from decision to execution, whatever order the pages come in', () => {
    const decision = record('decision', {
      call_id: 'c1',
      tool: 'bash_execute',
      source: 'run',
      run_id: 'r1',
      parameters: { command: 'ls -la' },
      risk: 'medium',
      action: 'require_approval',
    });
    const waiting = newestFirst(foldAudit(new Map(), [decision]));
    expect(waiting).toMatchObject([{ id: 'c1', status: 'waiting', runId: 'r1', risk: 'medium' }]);

    const approval = record('approval', { call_id: 'c1', tool: 'bash_execute', result: 'approved' });
    const execution = record('execution', { call_id: 'c1', tool: 'bash_execute', result: 'success', duration_ms: 12 });
    const done = newestFirst(foldAudit(new Map(), [execution, approval, decision]));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      status: 'ok',
      durationMs: 12,
      parameters: { command: 'ls -la' },
      seq: decision.seq,
    });
  });

  it('marks blocked, denied and failed calls with the reason, and gives emergency stops their own row', () => {
    const rows = newestFirst(
      foldAudit(new Map(), [
        record('decision', { call_id: 'a', tool: 'file_delete', action: 'always_block', reason: 'protected path' }),
        record('decision', { call_id: 'b', tool: 'bash_execute', action: 'require_approval' }),
        record('approval', { call_id: 'b', tool: 'bash_execute', result: 'denied', reason: 'not now' }),
        record('decision', { call_id: 'c', tool: 'screenshot', action: 'allow' }),
        record('execution', { call_id: 'c', tool: 'screenshot', result: 'failed', error: 'UNAVAILABLE: no display' }),
        record('emergency_stop', { result: 'stop', actor: 'cli', reason: 'nextai stop' }),
      ]),
    );
    expect(rows.map((row) => [row.tool, row.status, row.detail])).toEqual([
      ['emergency_stop', 'blocked', 'nextai stop'],
      ['screenshot', 'failed', 'UNAVAILABLE: no display'],
      ['bash_execute', 'blocked', 'not now'],
      ['file_delete', 'blocked', 'protected path'],
    ]);
  });
});

describe('parameter summaries', () => {
  it('leads with what a person looks for', () => {
    expect(summariseParameters('bash_execute', { command: 'npm test', timeout: 5 })).toBe('npm test');
    expect(summariseParameters('left_click', { x: 10.4, y: 20 })).toBe('(10, 20)');
    expect(summariseParameters('mouse_drag', { from_x: 1, from_y: 2, to_x: 3, to_y: 4 })).toBe('(1, 2) → (3, 4)');
    expect(summariseParameters('key_press', { keys: ['ctrl', 's'] })).toBe('ctrl + s');
    expect(summariseParameters('type_text', { text: '你好' })).toBe('“你好”');
    expect(summariseParameters('screenshot', {})).toBe('');
    expect(summariseParameters('file_read', { path: 'x'.repeat(300) }, 20)).toHaveLength(20);
  });
});
