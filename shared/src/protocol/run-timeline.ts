import type { z } from 'zod';

import type { MessageTranslations } from '../i18n.js';
import type { DaemonEvent, EventData } from './events.js';
import {
  ENDED_RUN_STATES,
  RUN_EVENT_SCHEMAS,
  type RunView,
  type runStepViewSchema,
  type sessionMessageViewSchema,
} from './runs.js';

/**
 * The fold of one run's events that the side panel's chat and `nextai run` share: what a run has
 * shown so far, kept from two sources: the step records the daemon holds
 * (`runs.get {steps:true}`, the truth after a reload, a reconnect or a daemon restart) and the
 * `run.*` events as they arrive. Every item is keyed by its step number, and every event by its
 * `seq`, so refetching and replaying events never shows anything twice.
 */

export type RunStepView = z.infer<typeof runStepViewSchema>;
export type SessionMessageView = z.infer<typeof sessionMessageViewSchema>;
type SessionMessage = SessionMessageView;

export type StepStatus = 'running' | 'ok' | 'failed' | 'unknown';

export type TimelineItem =
  | {
      kind: 'text';
      step: number;
      time: string;
      text: string;
      streaming: boolean;
      /** The model's thinking before its text (reasoning models), shown collapsed. */
      reasoning?: string | undefined;
    }
  | {
      kind: 'tool';
      step: number;
      time: string;
      tool: string;
      input: Record<string, unknown>;
      status: StepStatus;
      summary?: string | undefined;
      /** `summary` in the panel's other languages, when the daemon wrote it for people (a refusal). */
      summaryTranslations?: MessageTranslations | undefined;
      errorCode?: string | undefined;
      durationMs?: number | undefined;
      attempt?: number | undefined;
      /** A `blob:` reference to the screenshot the step returned. */
      image?: string | undefined;
      /** An observation after acting (the loop's own screenshot), not a call the model made. */
      observe: boolean;
    }
  | {
      kind: 'note';
      step: number;
      time: string;
      note: 'summary' | 'model_failed' | 'steer_restart';
      text?: string;
      textTranslations?: MessageTranslations | undefined;
    }
  | { kind: 'user'; step: number; time: string; text: string; role: 'steer' | 'answer'; answerTo?: string };

export interface RunTimeline {
  run: RunView;
  /** Items by step number; user messages (steers, answers) take fractional keys after the step they followed. */
  items: Map<number, TimelineItem>;
  /** The highest event seq applied: anything at or below it is a replay. */
  lastSeq: number;
  /**
   * The first stored step not finished when the steps were last read: the ones before it never
   * change, so the next read asks only from here (`runs.get` `steps_from`).
   */
  stepsFrom: number;
}

/** The data of a run event, or undefined when it is not that event or does not match its schema. */
export function runEventData<T extends keyof typeof RUN_EVENT_SCHEMAS>(
  event: DaemonEvent,
  type: T,
): EventData<T> | undefined {
  if (event.type !== type) return undefined;
  const parsed = RUN_EVENT_SCHEMAS[type].safeParse(event.data);
  return parsed.success ? (parsed.data as EventData<T>) : undefined;
}

const dataOf = runEventData;

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The `translations` of a stored error, when it has Chinese. */
function translationsIn(error: Record<string, unknown>): MessageTranslations | undefined {
  const translations = record(error.translations);
  return typeof translations['zh-CN'] === 'string' ? { 'zh-CN': translations['zh-CN'] } : undefined;
}

/** Up to 200 characters of a tool's output: its fields but the image and bulky content (as the daemon's summary). */
export function summariseOutput(output: unknown): string {
  if (typeof output !== 'object' || output === null) return String(output ?? '').slice(0, 200);
  const shown = Object.entries(output as Record<string, unknown>)
    .filter(([key]) => key !== 'image' && key !== 'content')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return shown.length > 200 ? `${shown.slice(0, 199)}…` : shown;
}

/** The items of the stored steps of a run. */
export function itemsFromSteps(run: RunView, steps: readonly RunStepView[]): Map<number, TimelineItem> {
  const items = new Map<number, TimelineItem>();
  const active = !ENDED_RUN_STATES.includes(run.state);
  for (const step of steps) {
    const intent = step.intent;
    const result = record(step.result);
    const time = step.intent_at;
    const done = step.result_at !== null && step.result !== null && step.result !== undefined;
    if (step.kind === 'model_call') {
      if (result.interrupted === 'steer') {
        items.set(step.step, { kind: 'note', step: step.step, time, note: 'steer_restart' });
      } else if (result.ok === false) {
        const error = record(result.error);
        items.set(step.step, {
          kind: 'note',
          step: step.step,
          time,
          note: 'model_failed',
          text: typeof error.message === 'string' ? error.message : undefined,
          textTranslations: translationsIn(error),
        });
      } else {
        const text = typeof result.text === 'string' ? result.text : '';
        const reasoning =
          typeof result.reasoning === 'string' && result.reasoning !== '' ? result.reasoning : undefined;
        if (text.trim() !== '' || reasoning !== undefined) {
          items.set(step.step, { kind: 'text', step: step.step, time, text, streaming: false, reasoning });
        }
      }
    } else if (step.kind === 'tool_call' || step.kind === 'observe') {
      const output = record(result.output);
      const error = record(result.error);
      const status: StepStatus = !done
        ? active
          ? 'running'
          : 'unknown'
        : result.outcome === 'unknown' || result.interrupted !== undefined
          ? 'unknown'
          : result.ok === false
            ? 'failed'
            : 'ok';
      items.set(step.step, {
        kind: 'tool',
        step: step.step,
        time,
        tool: typeof intent.tool === 'string' ? intent.tool : 'screenshot',
        input: record(intent.input),
        status,
        summary:
          status === 'failed'
            ? typeof error.message === 'string'
              ? error.message
              : undefined
            : status === 'ok'
              ? summariseOutput(result.output)
              : undefined,
        summaryTranslations: status === 'failed' ? translationsIn(error) : undefined,
        errorCode: typeof error.code === 'string' ? error.code : undefined,
        durationMs: typeof result.duration_ms === 'number' ? result.duration_ms : undefined,
        image: typeof output.image === 'string' && output.image.startsWith('blob:') ? output.image : undefined,
        observe: step.kind === 'observe',
      });
    } else if (step.kind === 'summary') {
      items.set(step.step, { kind: 'note', step: step.step, time, note: 'summary' });
    }
  }
  return items;
}

/**
 * A run's timeline from its stored steps, then the recent events not yet in them (the text of a
 * model call still streaming, a tool call in progress).
 */
export function buildTimeline(
  run: RunView,
  steps: readonly RunStepView[],
  events: readonly DaemonEvent[],
  messages: readonly SessionMessage[] = [],
): RunTimeline {
  const timeline: RunTimeline = {
    run,
    items: itemsFromSteps(run, steps),
    lastSeq: 0,
    stepsFrom: firstOpenStep(steps, 0),
  };
  const stored = new Set(timeline.items.keys());
  const storedSteps = new Set(steps.filter((step) => step.result_at !== null).map((step) => step.step));
  for (const event of events) {
    if (event.data.run_id !== run.id) continue;
    // Events before the steps were read only fill in what the records do not hold yet.
    const step = typeof event.data.step === 'number' ? event.data.step : undefined;
    if (step !== undefined && storedSteps.has(step)) {
      // Keep the summary the daemon made for a finished tool call.
      const data = dataOf(event, 'run.step');
      const item = timeline.items.get(step);
      if (data?.phase === 'finished' && item?.kind === 'tool' && data.summary) {
        item.summary = data.summary;
        item.summaryTranslations = data.summary_translations;
      }
      timeline.lastSeq = Math.max(timeline.lastSeq, event.seq);
      continue;
    }
    if (step !== undefined && stored.has(step) && (event.type === 'run.text' || event.type === 'run.reasoning'))
      continue;
    applyEvent(timeline, event, { keepRun: true });
  }
  addMessages(timeline, messages);
  return timeline;
}

/**
 * Takes in a later read of the steps numbered `timeline.stepsFrom` and up: their items replace
 * what the events had made of them, the finished ones before stay as they are.
 */
export function mergeSteps(
  timeline: RunTimeline,
  run: RunView,
  steps: readonly RunStepView[],
  messages: readonly SessionMessage[],
): void {
  timeline.run = run;
  for (const [step, item] of itemsFromSteps(run, steps)) timeline.items.set(step, item);
  timeline.stepsFrom = firstOpenStep(steps, timeline.stepsFrom);
  addMessages(timeline, messages);
}

/** The first step without a result, or the one after the last; `from` when there are none. */
function firstOpenStep(steps: readonly RunStepView[], from: number): number {
  const open = steps.find((step) => step.result_at === null);
  if (open) return open.step;
  const last = steps.at(-1);
  return last === undefined ? from : last.step + 1;
}

/** Steers and answers of this run from the session's messages, placed after the step they followed. */
export function addMessages(timeline: RunTimeline, messages: readonly SessionMessage[]): void {
  for (const key of [...timeline.items.keys()])
    if (timeline.items.get(key)?.kind === 'user') timeline.items.delete(key);
  const steps = [...timeline.items.values()].sort((a, b) => a.step - b.step);
  let index = 0;
  for (const message of messages) {
    const content = record(message.content);
    if (content.run_id !== timeline.run.id || message.role !== 'user') continue;
    const role = content.steer === true ? 'steer' : typeof content.answer_to === 'string' ? 'answer' : undefined;
    if (!role || typeof content.text !== 'string') continue;
    const before = steps.filter((item) => item.time <= message.created_at).at(-1)?.step ?? 0;
    index += 1;
    const key = before + index / 1000;
    timeline.items.set(key, {
      kind: 'user',
      step: key,
      time: message.created_at,
      text: content.text,
      role,
      ...(role === 'answer' ? { answerTo: String(content.answer_to) } : {}),
    });
  }
}

/**
 * Applies one live event of this run. Returns whether anything changed. `keepRun` leaves the
 * run view alone (when building from a view read after these events).
 */
export function applyEvent(timeline: RunTimeline, event: DaemonEvent, options: { keepRun?: boolean } = {}): boolean {
  if (event.data.run_id !== timeline.run.id || event.seq <= timeline.lastSeq) return false;
  timeline.lastSeq = event.seq;
  const items = timeline.items;
  const text = dataOf(event, 'run.text');
  if (text) {
    const item = items.get(text.step);
    if (item?.kind === 'text') {
      items.set(text.step, { ...item, text: item.text + text.delta, streaming: true });
    } else if (item === undefined) {
      items.set(text.step, { kind: 'text', step: text.step, time: event.time, text: text.delta, streaming: true });
    }
    return true;
  }
  const thought = dataOf(event, 'run.reasoning');
  if (thought) {
    const item = items.get(thought.step);
    if (item?.kind === 'text') {
      items.set(thought.step, { ...item, reasoning: (item.reasoning ?? '') + thought.delta, streaming: true });
    } else if (item === undefined) {
      items.set(thought.step, {
        kind: 'text',
        step: thought.step,
        time: event.time,
        text: '',
        streaming: true,
        reasoning: thought.delta,
      });
    }
    return true;
  }
  const step = dataOf(event, 'run.step');
  if (step) {
    if (step.kind === 'model_call') {
      const item = items.get(step.step);
      if (step.phase === 'finished') {
        if (item?.kind === 'text') items.set(step.step, { ...item, streaming: false });
        if (step.ok === false) {
          const note = step.summary === 'restarted with the new instruction' ? 'steer_restart' : 'model_failed';
          items.set(step.step, {
            kind: 'note',
            step: step.step,
            time: event.time,
            note,
            text: step.summary,
            textTranslations: step.summary_translations,
          });
        }
      }
      return true;
    }
    if (step.kind === 'summary') {
      if (step.phase === 'finished')
        items.set(step.step, { kind: 'note', step: step.step, time: event.time, note: 'summary' });
      return true;
    }
    const before = items.get(step.step);
    const previous = before?.kind === 'tool' ? before : undefined;
    items.set(step.step, {
      kind: 'tool',
      step: step.step,
      time: previous?.time ?? event.time,
      tool: step.tool ?? previous?.tool ?? 'screenshot',
      input: step.input ?? previous?.input ?? {},
      status: step.phase === 'started' ? 'running' : step.ok === false ? 'failed' : 'ok',
      summary: step.summary ?? previous?.summary,
      summaryTranslations: step.summary_translations ?? previous?.summaryTranslations,
      errorCode: step.error_code ?? previous?.errorCode,
      durationMs: step.duration_ms ?? previous?.durationMs,
      attempt: step.attempt ?? previous?.attempt,
      image: previous?.image,
      observe: step.kind === 'observe',
    });
    return true;
  }
  if (options.keepRun) return false;
  const run = timeline.run;
  const usage = dataOf(event, 'run.usage');
  if (usage) {
    timeline.run = {
      ...run,
      turns: usage.turns,
      usage: {
        ...run.usage,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_tokens: usage.cache_read_tokens,
        cache_write_tokens: usage.cache_write_tokens,
        reasoning_tokens: usage.reasoning_tokens,
        cost_usd: usage.cost_usd,
      },
    };
    return true;
  }
  const state = dataOf(event, 'run.state');
  if (state) {
    timeline.run = { ...run, state: state.state, updated_at: event.time };
    if (ENDED_RUN_STATES.includes(state.state)) {
      // A step still shown as running when the run ended was cut off.
      for (const [key, item] of items) {
        if (item.kind === 'tool' && item.status === 'running') items.set(key, { ...item, status: 'unknown' });
        if (item.kind === 'text' && item.streaming) items.set(key, { ...item, streaming: false });
      }
    }
    return true;
  }
  const question = dataOf(event, 'run.question');
  if (question) {
    timeline.run = {
      ...run,
      question: {
        id: question.question_id,
        kind: question.kind,
        question: question.question,
        options: question.options,
        asked_at: event.time,
      },
    };
    return true;
  }
  const answered = dataOf(event, 'run.answered');
  if (answered) {
    if (run.question?.id === answered.question_id) timeline.run = { ...run, question: null };
    return true;
  }
  return false;
}

/** The items in the order they happened. */
export function orderedItems(timeline: RunTimeline): TimelineItem[] {
  return [...timeline.items.values()].sort((a, b) => a.step - b.step);
}

/** Tool calls the model made in this run (observations are the loop's own). */
export function toolCallCount(timeline: RunTimeline): number {
  let count = 0;
  for (const item of timeline.items.values()) if (item.kind === 'tool' && !item.observe) count += 1;
  return count;
}

export function isActive(run: RunView): boolean {
  return !ENDED_RUN_STATES.includes(run.state);
}
