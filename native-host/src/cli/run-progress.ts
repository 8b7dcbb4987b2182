import type { z } from 'zod';

import {
  ENDED_RUN_STATES,
  applyEvent,
  buildTimeline,
  orderedItems,
  runEventData as dataOf,
  type DaemonEvent,
  type EventData,
  type RunStateName,
  type RunTimeline,
  type RunView,
  type runStepViewSchema,
  type sessionMessageViewSchema,
  type sessionViewSchema,
} from '@nextai/shared';

/**
 * Pure formatting of agent runs for the terminal: the live progress of `nextai run` (built from
 * the daemon's `run.*` and `approval.*` events) and the views of `nextai runs` / `nextai sessions`.
 * Nothing here writes anywhere, so every line can be unit-tested.
 */

export type RunStepView = z.infer<typeof runStepViewSchema>;
export type SessionView = z.infer<typeof sessionViewSchema>;
export type SessionMessageView = z.infer<typeof sessionMessageViewSchema>;

/** Width of the step-number column; every progress line lines up after it. */
const GUTTER = 6;
const INDENT = ' '.repeat(GUTTER);
const PARAMS_WIDTH = 80;
const SUMMARY_WIDTH = 100;

function gutter(step: number | undefined): string {
  return step === undefined ? INDENT : `${String(step).padStart(GUTTER - 2)}  `;
}

/**
 * The lines that need the person: an approval to give, a question to answer, a paused run to
 * resume. Each says exactly which command does it. `nextai run --json` prints these on stderr,
 * so a person watching JSON output still sees them.
 */
export function formatAttention(event: DaemonEvent, runId: string): string {
  if (event.data.run_id !== runId) return '';
  if (event.type === 'approval.requested') {
    const id = typeof event.data.approval_id === 'string' ? event.data.approval_id : '?';
    const tool = String(event.data.tool ?? 'a tool');
    const risk = typeof event.data.risk === 'string' ? ` (risk ${event.data.risk})` : '';
    const reason = typeof event.data.reason === 'string' ? `: ${oneLine(event.data.reason, SUMMARY_WIDTH)}` : '';
    return (
      `${INDENT}⏸ waiting for your approval — ${tool}${risk}${reason}\n` +
      `${INDENT}  approve: nextai approvals approve ${id}\n` +
      `${INDENT}  deny:    nextai approvals deny ${id} --message "…"\n`
    );
  }
  const question = dataOf(event, 'run.question');
  if (question) {
    const who = question.kind === 'stuck' ? 'The agent is stuck and asks' : 'The agent asks';
    const lines = [`${INDENT}? ${who}: ${question.question.trim().split('\n').join(`\n${INDENT}  `)}`];
    if (question.options.length > 0) lines.push(`${INDENT}  options: ${question.options.join(' · ')}`);
    lines.push(`${INDENT}  answer:  nextai runs answer ${runId} "<answer>"`);
    return `${lines.join('\n')}\n`;
  }
  const state = dataOf(event, 'run.state');
  if (state?.state === 'paused') {
    return `${INDENT}⏸ paused${state.reason ? ` (${oneLine(state.reason, SUMMARY_WIDTH)})` : ''} — continue with: nextai runs resume ${runId}\n`;
  }
  return '';
}

/**
 * Turns the event stream of one run into terminal text. Model text streams inline, in pieces, as
 * it arrives; every other line starts on a line of its own, so text is closed before it.
 */
export class RunProgress {
  private readonly approvals = new Set<string>();
  private readonly questions = new Set<string>();
  private lastSeq = 0;
  /** The step whose model text (or thinking) is being written, while its line is open. */
  private textStep: number | undefined;
  private textKind: StreamKind = 'text';
  private atLineStart = true;
  /** Model text (and thinking) per step as printed: whether a step's text is starting, for the gutter. */
  private readonly texts = new Map<string, string>();
  /** The run as its events left it: the same fold the side panel's chat keeps (shared/). */
  private readonly timeline: RunTimeline;
  /** Terminal colours: the model's thinking is printed dim; without them it is marked `thinking:`. */
  private readonly color: boolean;

  constructor(run: RunView, options: { color?: boolean } = {}) {
    this.timeline = buildTimeline(run, [], []);
    this.color = options.color === true;
  }

  get runId(): string {
    return this.timeline.run.id;
  }

  /** The end state once a `run.state` event said the run ended. */
  get ended(): RunStateName | undefined {
    const { state } = this.timeline.run;
    return ENDED_RUN_STATES.includes(state) ? state : undefined;
  }

  /**
   * Whether the event is about this run: its `run.*` events, and the approvals it asked for
   * (`approval.answered` names only the approval, so the ids asked for are remembered). A replayed
   * event seen before is refused.
   */
  accepts(event: DaemonEvent): boolean {
    if (event.seq <= this.lastSeq) return false;
    const ours =
      event.data.run_id === this.runId ||
      (event.type === 'approval.answered' && this.approvals.has(String(event.data.approval_id)));
    if (!ours) return false;
    this.lastSeq = event.seq;
    if (event.type === 'approval.requested') this.approvals.add(String(event.data.approval_id));
    if (event.type === 'run.question') this.questions.add(String(event.data.question_id));
    applyEvent(this.timeline, event);
    return true;
  }

  /** Text for an event `accepts` took ('' when it shows nothing). */
  format(event: DaemonEvent): string {
    const text = dataOf(event, 'run.text');
    if (text) return this.streamText(text.step, text.delta, 'text');
    const reasoning = dataOf(event, 'run.reasoning');
    if (reasoning) return this.streamText(reasoning.step, reasoning.delta, 'reasoning');

    const attention = formatAttention(event, this.runId);
    if (attention !== '') return this.close() + attention;

    const step = dataOf(event, 'run.step');
    if (step) return this.lines(step.step, formatStepEvent(step));

    const usage = dataOf(event, 'run.usage');
    if (usage) {
      return this.lines(undefined, [
        `${formatCost(usage.cost_usd, true)} · ${formatTokens(usage.input_tokens + usage.output_tokens)} tokens so far`,
      ]);
    }

    if (event.type === 'approval.answered') {
      const status = String(event.data.status);
      const mark = status === 'approved' ? '✓' : '✗';
      const scope = event.data.scope === 'run' ? ' for the rest of the run' : '';
      return this.lines(undefined, [`${mark} ${status}${scope} by ${String(event.data.by)}`]);
    }

    const answered = dataOf(event, 'run.answered');
    if (answered) return this.lines(undefined, [`✓ answered by ${answered.by}`]);

    const steered = dataOf(event, 'run.steered');
    if (steered) return this.lines(undefined, [`↪ new instruction from ${steered.by}: ${oneLine(steered.text)}`]);

    const todo = dataOf(event, 'run.todo');
    if (todo) {
      return this.lines(
        undefined,
        todo.items.map(
          (item, index) => `${index === 0 ? 'plan' : '    '}  ${todoMark(item.status)} ${oneLine(item.content)}`,
        ),
      );
    }

    const state = dataOf(event, 'run.state');
    if (state) {
      if (state.state === 'running' && state.previous === 'paused') return this.lines(undefined, ['▶ resumed']);
      // The end is printed from the final run view; approvals and questions have lines of their own.
      return ENDED_RUN_STATES.includes(state.state) ? this.close() : '';
    }

    if (event.type === 'run.breaker_tripped') {
      return this.lines(undefined, [
        `⚠ ${String(event.data.consecutive)} denials in a row (${String(event.data.total)} in this run)`,
      ]);
    }
    return '';
  }

  /**
   * What the run already waited for when following began — its events came before we did — in
   * the words of `formatAttention`. Approvals and questions whose events were seen are skipped.
   */
  pending(run: RunView): string {
    let out = '';
    for (const approval of run.approvals) {
      if (this.approvals.has(approval)) continue;
      this.approvals.add(approval);
      out += formatAttention(
        {
          seq: 0,
          type: 'approval.requested',
          time: '',
          data: { run_id: run.id, approval_id: approval, tool: 'a tool' },
        },
        run.id,
      );
    }
    if (run.question && !this.questions.has(run.question.id)) {
      this.questions.add(run.question.id);
      out += formatAttention(
        {
          seq: 0,
          type: 'run.question',
          time: '',
          data: {
            run_id: run.id,
            question_id: run.question.id,
            kind: run.question.kind,
            question: run.question.question,
            options: run.question.options,
          },
        },
        run.id,
      );
    }
    if (run.state === 'paused') {
      out += formatAttention(
        { seq: 0, type: 'run.state', time: '', data: { run_id: run.id, state: 'paused' } },
        run.id,
      );
    }
    return out === '' ? '' : this.close() + out;
  }

  /** Closes a line of model text left open (before the summary, or when the stream ends). */
  close(): string {
    if (this.textStep === undefined) return '';
    this.textStep = undefined;
    const wasAtLineStart = this.atLineStart;
    this.atLineStart = true;
    return wasAtLineStart ? '' : '\n';
  }

  /** Whether the model's last words, as streamed, are already this text (so it need not be printed again). */
  streamed(text: string): boolean {
    const last = orderedItems(this.timeline)
      .filter((item) => item.kind === 'text')
      .at(-1);
    return last?.kind === 'text' && last.text.trim() === text.trim();
  }

  private lines(step: number | undefined, lines: string[]): string {
    if (lines.length === 0) return '';
    return this.close() + lines.map((line) => `${gutter(step)}${line}\n`).join('');
  }

  private streamText(step: number, delta: string, kind: StreamKind): string {
    let out = '';
    let piece = terminalSafe(delta);
    const key = `${kind}:${step}`;
    const before = this.texts.get(key) ?? '';
    if (this.textStep !== step || this.textKind !== kind) {
      out += this.close();
      this.textStep = step;
      this.textKind = kind;
      // A reply often opens with blank lines; they would leave an empty numbered line.
      if (before === '') piece = piece.replace(/^\s+/, '');
      if (piece === '') {
        this.textStep = undefined;
        return out;
      }
      out += gutter(step);
      if (kind === 'reasoning' && !this.color && before === '') out += 'thinking: ';
      this.atLineStart = false;
    }
    this.texts.set(key, before + delta);
    // Each new line of text is indented under the first; the indent is written only when text
    // follows, so a reply ending in a newline leaves no dangling gutter. Thinking is dim, each
    // piece on its own, so that nothing else is printed dim if the run is cut off.
    const dim = kind === 'reasoning' && this.color;
    const parts = piece.split('\n');
    parts.forEach((part, index) => {
      if (index > 0) {
        out += '\n';
        this.atLineStart = true;
      }
      if (part === '') return;
      if (this.atLineStart) out += INDENT;
      out += dim ? `${DIM}${part}${UNDIM}` : part;
      this.atLineStart = false;
    });
    return out;
  }
}

type StreamKind = 'text' | 'reasoning';

/**
 * The model's words as a terminal may print them: no control characters but newline and tab (an
 * escape sequence in an answer — which a page the model read may have put there — could set the
 * clipboard, rename the window or hide lines), and no bidirectional overrides (text that reads
 * differently from what it is).
 */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu, '');
}
const DIM = '\u001b[2m';
const UNDIM = '\u001b[22m';

function formatStepEvent(step: EventData<'run.step'>): string[] {
  const attempt = step.attempt !== undefined && step.attempt > 1 ? `, attempt ${step.attempt}` : '';
  const took = step.duration_ms !== undefined ? formatDuration(step.duration_ms) : '';
  const timing = took || attempt ? `  (${[took, attempt.replace(/^, /, '')].filter(Boolean).join(', ')})` : '';
  const failure = (what: string) =>
    `✗ ${what} failed${step.error_code ? ` [${step.error_code}]` : ''}${step.summary ? `: ${oneLine(step.summary, SUMMARY_WIDTH)}` : ''}${timing}`;
  switch (step.kind) {
    case 'tool_call': {
      const tool = step.tool ?? 'tool';
      if (step.phase === 'started') return [`→ ${tool} ${shortParams(step.input ?? {})}`.trimEnd()];
      if (step.ok === false) return [failure(tool)];
      return [`✓ ${tool}${step.summary ? `  ${oneLine(step.summary, SUMMARY_WIDTH)}` : ''}${timing}`];
    }
    case 'model_call':
      // The model's work shows as its streamed text and the tools it calls; only a failure has a line.
      return step.phase === 'finished' && step.ok === false ? [failure('model call')] : [];
    case 'observe':
      if (step.phase === 'started') return [];
      if (step.ok === false) return [failure('observing')];
      return [`◉ observed${step.summary ? `  ${oneLine(step.summary, SUMMARY_WIDTH)}` : ''}${timing}`];
    case 'summary':
      return step.phase === 'finished' && step.ok !== false
        ? ['… summarised the older turns to keep the context short']
        : [];
  }
}

function todoMark(status: string): string {
  if (status === 'completed' || status === 'done') return '✓';
  if (status === 'in_progress' || status === 'active') return '▸';
  return '·';
}

/** `key=value` pairs of a tool's input, short enough for one line. */
export function shortParams(input: Record<string, unknown>, width = PARAMS_WIDTH): string {
  const pairs = Object.entries(input).map(([key, value]) => {
    const shown =
      typeof value === 'string' && /^[^\s"'=]{1,40}$/.test(value) ? value : oneLine(JSON.stringify(value) ?? '', 60);
    return `${key}=${shown}`;
  });
  return oneLine(pairs.join(' '), width);
}

/** One line of at most `width` characters (code points), with … when cut. */
export function oneLine(text: string, width = SUMMARY_WIDTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= width ? flat : `${points.slice(0, width - 1).join('')}…`;
}

export function formatCost(usd: number, known: boolean): string {
  if (!known && usd === 0) return 'cost unknown';
  const amount = usd === 0 ? '$0.00' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
  return known ? amount : `≥ ${amount} (some prices unknown)`;
}

export function formatTokens(count: number): string {
  return count.toLocaleString('en-US');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** The first line of `nextai run`: which run, where to find it again. */
export function formatRunStart(run: RunView): string {
  const where = [`project ${run.project}`, run.session_id ? `session ${run.session_id}` : undefined, run.model]
    .filter(Boolean)
    .join(' · ');
  return `run ${run.id} · ${where}\n`;
}

/** The last lines of `nextai run`: how it ended, what it cost, and the answer, the error or why there is no answer. */
export function formatRunEnd(run: RunView, options: { resultShown?: boolean } = {}): string {
  const lines = [`${stateWord(run)} · ${runTotals(run)}`];
  if (run.error) lines.push(`${INDENT}${run.error.code}: ${run.error.message.split('\n').join(`\n${INDENT}`)}`);
  const noAnswer = withoutAnswer(run);
  if (noAnswer) lines.push(`${INDENT}${noAnswer.split('\n').join(`\n${INDENT}`)}`);
  else if (run.result && !options.resultShown) lines.push('', run.result.trimEnd());
  return `${lines.join('\n')}\n`;
}

/**
 * Why a finished run has no answer, in a sentence with what to do (the provider's reason in it when
 * it gave one); undefined for a run that answered or has not finished.
 */
export function withoutAnswer(run: RunView): string | undefined {
  if (run.state !== 'finished') return undefined;
  const reason = run.result?.trim() ? run.result.trim() : undefined;
  switch (run.result_kind) {
    case 'declined':
      return reason
        ? `The model declined: ${reason}`
        : 'The model declined to answer. Rephrase the request, or try another model.';
    case 'filtered':
      return `The provider's content filter stopped the answer${reason ? `: ${reason}` : '.'} Rephrase the request, or try another model.`;
    case 'no_answer':
      return 'The model gave no answer, though it was asked twice. Try again, or rephrase the request.';
    default:
      return undefined;
  }
}

/** What Ctrl-C prints: the run keeps going, and how to reach it again. */
export function formatDetached(runId: string): string {
  return (
    `detached: the run goes on in the daemon.\n` +
    `  follow: nextai runs show ${runId} --follow\n` +
    `  stop:   nextai runs stop ${runId}\n`
  );
}

function stateWord(run: RunView): string {
  switch (run.state) {
    case 'finished':
      if (run.result_kind === 'declined') return '⊘ declined';
      if (run.result_kind === 'filtered') return '⊘ filtered';
      if (run.result_kind === 'no_answer') return '∅ no answer';
      return '✓ finished';
    case 'failed':
      return '✗ failed';
    case 'stopped':
      return '■ stopped';
    default:
      return run.state.replace('_', ' ');
  }
}

function runTotals(run: RunView): string {
  const parts = [
    `${run.turns} model ${run.turns === 1 ? 'turn' : 'turns'}`,
    formatCost(run.usage.cost_usd, run.usage.cost_known),
    `${formatTokens(run.usage.input_tokens + run.usage.output_tokens)} tokens`,
  ];
  const took = run.finished_at ? Date.parse(run.finished_at) - Date.parse(run.created_at) : Number.NaN;
  if (Number.isFinite(took) && took >= 0) parts.push(formatDuration(took));
  return parts.join(' · ');
}

/** `nextai runs list`: one aligned row a run, newest first. */
export function formatRunTable(runs: readonly RunView[]): string {
  if (runs.length === 0) return '';
  const rows = runs.map((run) => [
    run.id,
    run.state === 'finished' && run.result_kind !== undefined && run.result_kind !== 'answer'
      ? `finished (${run.result_kind.replace('_', ' ')})`
      : run.state,
    String(run.turns),
    formatCost(run.usage.cost_usd, run.usage.cost_known),
    shortTime(run.created_at),
    oneLine(run.goal, 60),
  ]);
  return table(['ID', 'STATE', 'TURNS', 'COST', 'STARTED', 'GOAL'], rows);
}

/** `nextai runs show`: the run, what it waits for, and optionally its steps. */
export function formatRunDetails(run: RunView, steps?: readonly RunStepView[]): string {
  const fields: [string, string | undefined][] = [
    ['run', run.id],
    ['state', run.state],
    ['goal', run.goal.trim().split('\n').join('\n           ')],
    ['project', run.project],
    ['session', run.session_id ?? undefined],
    ['model', run.model ?? undefined],
    ['started', run.created_at],
    ['ended', run.finished_at ?? undefined],
    ['turns', `${run.turns} of at most ${run.limits.max_steps}`],
    [
      'usage',
      `${formatTokens(run.usage.input_tokens)} in · ${formatTokens(run.usage.output_tokens)} out · ${formatCost(run.usage.cost_usd, run.usage.cost_known)} of at most $${run.limits.max_cost_usd}`,
    ],
    ['error', run.error ? `${run.error.code}: ${run.error.message}` : undefined],
  ];
  const lines = fields.filter(([, value]) => value !== undefined).map(([key, value]) => `${key.padEnd(9)}  ${value}`);
  for (const approval of run.approvals) {
    lines.push(`waiting    for your approval`);
    lines.push(`           approve: nextai approvals approve ${approval}`);
    lines.push(`           deny:    nextai approvals deny ${approval} --message "…"`);
  }
  if (run.question) {
    lines.push(`question   ${run.question.question.trim().split('\n').join('\n           ')}`);
    if (run.question.options.length > 0) lines.push(`           options: ${run.question.options.join(' · ')}`);
    lines.push(`           answer: nextai runs answer ${run.id} "<answer>"`);
  }
  if (run.state === 'paused') lines.push(`           continue with: nextai runs resume ${run.id}`);
  const noAnswer = withoutAnswer(run);
  if (noAnswer) lines.push(`outcome    ${noAnswer}`);
  else if (run.result) lines.push('', run.result.trimEnd());
  if (steps) {
    lines.push('', steps.length === 0 ? 'no steps yet' : 'steps:');
    for (const step of steps) lines.push(formatStepRow(step));
  }
  return `${lines.join('\n')}\n`;
}

function formatStepRow(step: RunStepView): string {
  const intent = step.intent;
  let what: string;
  if (step.kind === 'model_call') what = typeof intent.turn === 'number' ? `turn ${intent.turn}` : 'model';
  else {
    const tool = typeof intent.tool === 'string' ? intent.tool : typeof intent.name === 'string' ? intent.name : '';
    const input =
      intent.input && typeof intent.input === 'object' && !Array.isArray(intent.input)
        ? ` ${shortParams(intent.input as Record<string, unknown>, 60)}`
        : '';
    what = `${tool}${input}`.trim() || '-';
  }
  const outcome = step.result_at === null ? 'outcome unknown' : resultWord(step.result);
  return `${gutter(step.step)}${step.kind.padEnd(10)} ${what}  → ${outcome}`;
}

/** A stored step result in a few words: failed with its code, the model's text and calls, or ok. */
function resultWord(result: unknown): string {
  if (!result || typeof result !== 'object') return 'ok';
  const record = result as Record<string, unknown>;
  if (record.interrupted !== undefined) return `interrupted (${String(record.interrupted)})`;
  if (record.outcome === 'unknown') return 'outcome unknown';
  if (record.ok === false) {
    const error = record.error as Record<string, unknown> | undefined;
    return `failed${error && typeof error.code === 'string' ? ` [${error.code}]` : ''}`;
  }
  const parts: string[] = [];
  if (typeof record.text === 'string' && record.text.trim() !== '') parts.push(oneLine(record.text, 50));
  if (Array.isArray(record.tool_calls) && record.tool_calls.length > 0) {
    const names = record.tool_calls.map((call) => String((call as Record<string, unknown>).name ?? '?'));
    parts.push(`calls ${names.join(', ')}`);
  }
  if (typeof record.summary === 'string') parts.push(oneLine(record.summary, 60));
  return parts.length > 0 ? parts.join(' · ') : 'ok';
}

/** `nextai sessions list`. */
export function formatSessionTable(sessions: readonly SessionView[]): string {
  if (sessions.length === 0) return '';
  const rows = sessions.map((session) => [
    session.id,
    shortTime(session.updated_at),
    session.project,
    oneLine(session.title, 60),
  ]);
  return table(['ID', 'UPDATED', 'PROJECT', 'TITLE'], rows);
}

/** `nextai sessions show`: the session, its runs and its conversation. */
export function formatSessionDetails(
  session: SessionView,
  runs: readonly RunView[],
  messages: readonly SessionMessageView[],
): string {
  const lines = [
    `session   ${session.id}`,
    `title     ${session.title}`,
    `project   ${session.project}`,
    `created   ${session.created_at}`,
    `updated   ${session.updated_at}`,
  ];
  if (runs.length > 0) lines.push('', 'runs:', formatRunTable(runs).trimEnd());
  if (messages.length > 0) {
    lines.push('', 'conversation:');
    for (const message of messages) {
      const text = messageText(message.content);
      if (text === '') continue;
      lines.push(`${message.role.padStart(GUTTER + 3)}  ${text.split('\n').join(`\n${' '.repeat(GUTTER + 5)}`)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The readable part of a stored message: text, tool calls as one-liners, images as a mark. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  if (Array.isArray(content)) {
    return content
      .map((block) => messageText(block))
      .filter((text) => text !== '')
      .join('\n');
  }
  if (content && typeof content === 'object') {
    const block = content as Record<string, unknown>;
    if (typeof block.text === 'string') return block.text.trim();
    if (block.type === 'tool_use' || block.type === 'tool_call') {
      const input = block.input && typeof block.input === 'object' ? (block.input as Record<string, unknown>) : {};
      return `→ ${String(block.name ?? 'tool')} ${shortParams(input, 60)}`.trimEnd();
    }
    if (block.type === 'tool_result') return block.is_error === true ? '✗ tool error' : '✓ tool result';
    if (block.type === 'image') return '[image]';
    if (Array.isArray(block.content)) return messageText(block.content);
    if (typeof block.content === 'string') return block.content.trim();
  }
  return '';
}

/** `2025-01-02T03:04:05.678Z` → `2025-01-02 03:04` (UTC, as stored). */
function shortTime(iso: string): string {
  return iso.length >= 16 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => Array.from(row[column] ?? '').length)),
  );
  const render = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(render).join('\n')}\n`;
}
