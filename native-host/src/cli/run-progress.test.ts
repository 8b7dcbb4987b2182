import { describe, expect, it } from 'vitest';

import type { DaemonEvent, RunView } from '@nextai/shared';

import {
  formatAttention,
  formatCost,
  formatDetached,
  formatDuration,
  formatRunDetails,
  formatRunEnd,
  formatRunStart,
  formatRunTable,
  formatSessionDetails,
  formatSessionTable,
  messageText,
  oneLine,
  RunProgress,
  shortParams,
  terminalSafe,
} from './run-progress.js';
import { exitCodeForOutcome } from './command-run.js';

const RUN = 'run-1';
let seq = 0;

function event(type: string, data: Record<string, unknown>): DaemonEvent {
  seq += 1;
  return { seq, type, time: '2025-01-01T00:00:00.000Z', data };
}

function view(overrides: Partial<RunView> = {}): RunView {
  return {
    id: RUN,
    session_id: 'session-1',
    goal: 'Say which OS this is',
    project: 'default',
    state: 'finished',
    limits: { max_steps: 100, max_tokens: 2_000_000, max_cost_usd: 5 },
    usage: { input_tokens: 1200, output_tokens: 34, cost_usd: 0.0042, cost_known: true },
    turns: 2,
    created_at: '2025-01-01T10:00:00.000Z',
    updated_at: '2025-01-01T10:00:03.500Z',
    finished_at: '2025-01-01T10:00:03.500Z',
    error: null,
    result: 'This machine runs Linux.',
    question: null,
    approvals: [],
    model: 'claude-test',
    ...overrides,
  };
}

/** Feeds events through a progress as `nextai run` does and returns what it would print. */
function render(progress: RunProgress, events: DaemonEvent[]): string {
  let out = '';
  for (const item of events) if (progress.accepts(item)) out += progress.format(item);
  return out + progress.close();
}

describe('RunProgress', () => {
  it('prints the model’s thinking dim on a colour terminal, marked “thinking:” otherwise, apart from its text', () => {
    const thinking = [
      event('run.reasoning', { run_id: RUN, step: 1, delta: 'Which OS? ' }),
      event('run.reasoning', { run_id: RUN, step: 1, delta: 'Ask the tool.\nThen answer.' }),
      event('run.text', { run_id: RUN, step: 1, delta: 'Let me look.' }),
    ];
    expect(render(new RunProgress(view({ state: 'running' })), thinking)).toBe(
      ['   1  thinking: Which OS? Ask the tool.', '      Then answer.', '   1  Let me look.', ''].join('\n'),
    );
    expect(render(new RunProgress(view({ state: 'running' }), { color: true }), thinking)).toBe(
      [
        '   1  \u001b[2mWhich OS? \u001b[22m\u001b[2mAsk the tool.\u001b[22m',
        '      \u001b[2mThen answer.\u001b[22m',
        '   1  Let me look.',
        '',
      ].join('\n'),
    );
  });

  it('streams model text inline, then numbers tool calls with short params, results and the cost so far', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const out = render(progress, [
      event('run.state', { run_id: RUN, state: 'running', previous: 'queued' }),
      event('run.step', { run_id: RUN, step: 1, kind: 'model_call', phase: 'started' }),
      event('run.text', { run_id: RUN, step: 1, delta: '\n\nLet me ' }),
      event('run.text', { run_id: RUN, step: 1, delta: 'look.' }),
      event('run.step', { run_id: RUN, step: 1, kind: 'model_call', phase: 'finished', ok: true }),
      event('run.usage', { run_id: RUN, input_tokens: 1000, output_tokens: 20, cost_usd: 0.0031, turns: 1 }),
      event('run.step', {
        run_id: RUN,
        step: 2,
        kind: 'tool_call',
        phase: 'started',
        tool: 'system_info',
        input: { categories: ['os'] },
      }),
      event('run.step', {
        run_id: RUN,
        step: 2,
        kind: 'tool_call',
        phase: 'finished',
        tool: 'system_info',
        ok: true,
        summary: 'linux 6.1',
        duration_ms: 35,
      }),
      event('run.text', { run_id: RUN, step: 3, delta: 'It runs Linux.\nThat is all.\n' }),
      event('run.state', { run_id: RUN, state: 'finished', previous: 'running' }),
    ]);
    expect(out).toBe(
      [
        '   1  Let me look.',
        '      $0.0031 · 1,020 tokens so far',
        '   2  → system_info categories=["os"]',
        '   2  ✓ system_info  linux 6.1  (35 ms)',
        '   3  It runs Linux.',
        '      That is all.',
        '',
      ].join('\n'),
    );
    expect(progress.ended).toBe('finished');
    expect(progress.streamed('It runs Linux.\nThat is all.')).toBe(true);
    expect(progress.streamed('Something else')).toBe(false);
  });

  it('says how a tool or a model call failed, with the code and the attempt', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const out = render(progress, [
      event('run.step', {
        run_id: RUN,
        step: 4,
        kind: 'tool_call',
        phase: 'finished',
        tool: 'file_write',
        ok: false,
        error_code: 'NOT_WRITABLE',
        summary: 'outside the allowed directories',
        duration_ms: 3,
        attempt: 2,
      }),
      event('run.step', {
        run_id: RUN,
        step: 5,
        kind: 'model_call',
        phase: 'finished',
        ok: false,
        error_code: 'PERMISSION_DENIED',
        summary: 'the API key was rejected',
      }),
    ]);
    expect(out).toBe(
      '   4  ✗ file_write failed [NOT_WRITABLE]: outside the allowed directories  (3 ms, attempt 2)\n' +
        '   5  ✗ model call failed [PERMISSION_DENIED]: the API key was rejected\n',
    );
  });

  it('closes an open line of text before any other line', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const out = render(progress, [
      event('run.text', { run_id: RUN, step: 1, delta: 'Writing the file' }),
      event('run.step', {
        run_id: RUN,
        step: 2,
        kind: 'tool_call',
        phase: 'started',
        tool: 'file_write',
        input: { path: '/tmp/a.txt', content: 'hello world' },
      }),
    ]);
    expect(out).toBe('   1  Writing the file\n   2  → file_write path=/tmp/a.txt content="hello world"\n');
  });

  it('prints exactly how to approve or deny what the run waits for, and the answer', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const out = render(progress, [
      event('run.step', {
        run_id: RUN,
        step: 2,
        kind: 'tool_call',
        phase: 'started',
        tool: 'bash_execute',
        input: { command: 'echo hi' },
      }),
      event('approval.requested', {
        approval_id: 'ap-7',
        call_id: 'c-1',
        run_id: RUN,
        tool: 'bash_execute',
        risk: 'high',
        layer: 'project_policy',
        reason: 'the development template asks before shell commands',
      }),
      event('run.state', { run_id: RUN, state: 'waiting_approval', previous: 'running' }),
      // Another run's approval answer is not ours; ours names no run, only the approval.
      event('approval.answered', { approval_id: 'ap-other', call_id: 'c-9', status: 'denied', by: 'cli' }),
      event('approval.answered', { approval_id: 'ap-7', call_id: 'c-1', status: 'approved', scope: 'once', by: 'cli' }),
    ]);
    expect(out).toBe(
      [
        '   2  → bash_execute command="echo hi"',
        '      ⏸ waiting for your approval — bash_execute (risk high): the development template asks before shell commands',
        '        approve: nextai approvals approve ap-7',
        '        deny:    nextai approvals deny ap-7 --message "…"',
        '      ✓ approved by cli',
        '',
      ].join('\n'),
    );
  });

  it('prints a question with its options and the command that answers it', () => {
    const question = event('run.question', {
      run_id: RUN,
      question_id: 'q-1',
      kind: 'ask_user',
      question: 'Which file?',
      options: ['a.txt', 'b.txt'],
    });
    const expected =
      '      ? The agent asks: Which file?\n' +
      '        options: a.txt · b.txt\n' +
      `        answer:  nextai runs answer ${RUN} "<answer>"\n`;
    expect(formatAttention(question, RUN)).toBe(expected);
    expect(formatAttention(question, 'another-run')).toBe('');
    const progress = new RunProgress(view({ state: 'running' }));
    expect(render(progress, [question, event('run.answered', { run_id: RUN, question_id: 'q-1', by: 'cli' })])).toBe(
      `${expected}      ✓ answered by cli\n`,
    );
  });

  it('says how to resume a paused run, steering, the plan, and a resume', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const out = render(progress, [
      event('run.state', { run_id: RUN, state: 'paused', previous: 'running' }),
      event('run.state', { run_id: RUN, state: 'running', previous: 'paused' }),
      event('run.steered', { run_id: RUN, text: 'use   staging', by: 'cli' }),
      event('run.todo', {
        run_id: RUN,
        items: [
          { id: '1', content: 'Look', status: 'completed' },
          { id: '2', content: 'Write', status: 'in_progress' },
          { id: '3', content: 'Report', status: 'pending' },
        ],
      }),
    ]);
    expect(out).toBe(
      [
        `      ⏸ paused — continue with: nextai runs resume ${RUN}`,
        '      ▶ resumed',
        '      ↪ new instruction from cli: use staging',
        '      plan  ✓ Look',
        '            ▸ Write',
        '            · Report',
        '',
      ].join('\n'),
    );
    expect(progress.ended).toBeUndefined();
  });

  it("ignores other runs' events and replayed ones, and ends on stopped or failed", () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const ours = event('run.state', { run_id: RUN, state: 'stopped', previous: 'running', reason: 'by hand' });
    expect(progress.accepts(event('run.text', { run_id: 'other', step: 1, delta: 'x' }))).toBe(false);
    expect(progress.accepts(event('tool.started', { call_id: 'c', tool: 'screenshot', source: 'cli' }))).toBe(false);
    expect(progress.accepts(ours)).toBe(true);
    expect(progress.accepts(ours)).toBe(false);
    expect(progress.ended).toBe('stopped');
    expect(progress.format(ours)).toBe('');
  });

  it('names what a run followed late already waits for, once', () => {
    const progress = new RunProgress(view({ state: 'running' }));
    const waiting = view({
      state: 'waiting_user',
      approvals: ['ap-1'],
      question: { id: 'q-1', kind: 'ask_user', question: 'Proceed?', options: [], asked_at: '' },
    });
    const first = progress.pending(waiting);
    expect(first).toContain('nextai approvals approve ap-1');
    expect(first).toContain(`nextai runs answer ${RUN} "<answer>"`);
    expect(progress.pending(waiting)).toBe('');
  });
});

describe('views', () => {
  it('starts and ends a run with its totals, and the answer unless it was streamed', () => {
    expect(formatRunStart(view())).toBe(`run ${RUN} · project default · session session-1 · claude-test\n`);
    expect(formatRunEnd(view())).toBe(
      '✓ finished · 2 model turns · $0.0042 · 1,234 tokens · 3.5 s\n\nThis machine runs Linux.\n',
    );
    expect(formatRunEnd(view(), { resultShown: true })).toBe(
      '✓ finished · 2 model turns · $0.0042 · 1,234 tokens · 3.5 s\n',
    );
    const failed = view({
      state: 'failed',
      result: null,
      turns: 1,
      usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, cost_known: true },
      error: { code: 'PERMISSION_DENIED', message: 'The model API rejected the key.' },
    });
    expect(formatRunEnd(failed)).toBe(
      '✗ failed · 1 model turn · $0.00 · 0 tokens · 3.5 s\n      PERMISSION_DENIED: The model API rejected the key.\n',
    );
  });

  it('a run that finished without an answer says so, with the reason, never as ✓ finished', () => {
    const declined = view({ result: 'I can’t help with that.', result_kind: 'declined' });
    expect(formatRunEnd(declined, { resultShown: true })).toBe(
      '⊘ declined · 2 model turns · $0.0042 · 1,234 tokens · 3.5 s\n      The model declined: I can’t help with that.\n',
    );
    expect(formatRunEnd(view({ result: '', result_kind: 'declined' }))).toBe(
      '⊘ declined · 2 model turns · $0.0042 · 1,234 tokens · 3.5 s\n' +
        '      The model declined to answer. Rephrase the request, or try another model.\n',
    );
    expect(formatRunEnd(view({ result: '', result_kind: 'filtered' }))).toMatch(
      /^⊘ filtered · .*\n {6}The provider's content filter stopped the answer\. Rephrase/,
    );
    expect(formatRunEnd(view({ result: '', result_kind: 'no_answer' }))).toMatch(
      /^∅ no answer · .*\n {6}The model gave no answer, though it was asked twice\./,
    );
    expect(formatRunEnd(view({ result_kind: 'answer' }))).toMatch(/^✓ finished · .*\n\nThis machine runs Linux\.\n$/);
    expect(formatRunDetails(declined)).toContain('outcome    The model declined: I can’t help with that.');
    expect(formatRunTable([declined]).split('\n')[1]).toContain('finished (declined)');
  });

  it('exits 6 for a run that finished without an answer, 0 only for an answer', () => {
    const ended = (overrides: Partial<RunView>) => exitCodeForOutcome({ kind: 'ended', run: view(overrides) });
    expect(ended({})).toBe(0);
    expect(ended({ result_kind: 'answer' })).toBe(0);
    expect(ended({ result_kind: 'declined' })).toBe(6);
    expect(ended({ result_kind: 'filtered' })).toBe(6);
    expect(ended({ result_kind: 'no_answer' })).toBe(6);
    expect(ended({ state: 'failed' })).toBe(1);
    expect(ended({ state: 'stopped' })).toBe(5);
  });

  it('lists runs in aligned columns', () => {
    const table = formatRunTable([view(), view({ id: 'run-22', state: 'waiting_approval', goal: 'x\ny' })]);
    expect(table.split('\n')).toEqual([
      'ID      STATE             TURNS  COST     STARTED           GOAL',
      'run-1   finished          2      $0.0042  2025-01-01 10:00  Say which OS this is',
      'run-22  waiting_approval  2      $0.0042  2025-01-01 10:00  x y',
      '',
    ]);
    expect(formatRunTable([])).toBe('');
  });

  it('shows a run with what it waits for and its steps', () => {
    const text = formatRunDetails(view({ state: 'waiting_approval', result: null, approvals: ['ap-3'] }), [
      {
        step: 0,
        kind: 'model_call',
        intent: { kind: 'model_call', turn: 1, model: 'm' },
        result: { ok: true, text: 'Let me look.', tool_calls: [{ id: 't', name: 'system_info' }] },
        intent_at: '',
        result_at: '2025',
      },
      {
        step: 1,
        kind: 'tool_call',
        intent: { kind: 'tool_call', tool: 'system_info', input: { categories: ['os'] } },
        result: { ok: true },
        intent_at: '',
        result_at: '2025',
      },
      {
        step: 2,
        kind: 'tool_call',
        intent: { kind: 'tool_call', tool: 'bash_execute', input: { command: 'ls' } },
        result: null,
        intent_at: '',
        result_at: null,
      },
    ]);
    expect(text).toContain('state      waiting_approval\n');
    expect(text).toContain('usage      1,200 in · 34 out · $0.0042 of at most $5\n');
    expect(text).toContain('approve: nextai approvals approve ap-3');
    expect(text).toContain('   0  model_call turn 1  → Let me look. · calls system_info\n');
    expect(text).toContain('   1  tool_call  system_info categories=["os"]  → ok\n');
    expect(text).toContain('   2  tool_call  bash_execute command=ls  → outcome unknown\n');
  });

  it('lists and shows sessions with their conversation', () => {
    const session = {
      id: 's-1',
      title: 'OS check',
      project: 'default',
      created_at: '2025-01-01T10:00:00.000Z',
      updated_at: '2025-01-01T11:30:00.000Z',
    };
    expect(formatSessionTable([session])).toBe(
      'ID   UPDATED           PROJECT  TITLE\ns-1  2025-01-01 11:30  default  OS check\n',
    );
    const text = formatSessionDetails(
      session,
      [view()],
      [
        { seq: 1, role: 'user', content: 'Which OS?', created_at: '' },
        {
          seq: 2,
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 't', name: 'system_info', input: {} },
          ],
          created_at: '',
        },
      ],
    );
    expect(text).toContain('title     OS check\n');
    expect(text).toContain('run-1  finished');
    expect(text).toContain('     user  Which OS?\n');
    expect(text).toContain('assistant  Let me look.\n           → system_info\n');
  });
});

describe('small formatters', () => {
  it('keeps params and summaries on one short line', () => {
    expect(shortParams({ path: '/tmp/x', lines: 3, text: 'a b' })).toBe('path=/tmp/x lines=3 text="a b"');
    expect(shortParams({ content: 'x'.repeat(200) }).length).toBeLessThanOrEqual(80);
    expect(oneLine('a\n\n b  c')).toBe('a b c');
    expect(oneLine('abcdef', 4)).toBe('abc…');
  });

  it('formats money, time and the detach hint', () => {
    expect(formatCost(0, true)).toBe('$0.00');
    expect(formatCost(0.00123, true)).toBe('$0.0012');
    expect(formatCost(1.5, true)).toBe('$1.50');
    expect(formatCost(0, false)).toBe('cost unknown');
    expect(formatCost(0.5, false)).toBe('≥ $0.50 (some prices unknown)');
    expect(formatDuration(35)).toBe('35 ms');
    expect(formatDuration(3500)).toBe('3.5 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDetached('r')).toContain('nextai runs stop r');
    expect(messageText([{ type: 'image' }, { type: 'tool_result', is_error: true }])).toBe('[image]\n✗ tool error');
  });
});

describe('the model’s words in a terminal', () => {
  it('keep newlines and tabs, and lose escape sequences, other controls and bidirectional overrides', () => {
    // OSC 52 (write the clipboard), a cursor move, a carriage return, a bidi override.
    const hostile = 'Done.\u001b]52;c;ZXZpbA==\u0007\n\tNext\u001b[2Astep\rX\u202eevil\u009b';
    expect(terminalSafe(hostile)).toBe('Done.]52;c;ZXZpbA==\n\tNext[2AstepXevil');
    expect(terminalSafe('中文 and emoji 🙂')).toBe('中文 and emoji 🙂');
  });
});
