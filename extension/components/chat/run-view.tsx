import { memo, useState, type FormEvent } from 'react';

import {
  inLocale,
  toAppError,
  type RunView,
  type ToolInfo,
  isActive,
  orderedItems,
  toolCallCount,
  type RunTimeline,
  type TimelineItem,
} from '@nextai/shared';

import type { MessageKey, Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import type { TabId } from '../tabs.js';
import { MarkdownView } from './markdown-view.js';
import { formatDuration, ToolCard } from './tool-card.js';

/** Items a run shows at once: a 500-step run keeps a window of them in the page, not all. */
export const WINDOW = 60;

export const STATE_KEYS: Record<RunView['state'], MessageKey> = {
  queued: 'chatStateQueued',
  running: 'chatStateRunning',
  waiting_user: 'chatStateWaitingUser',
  waiting_approval: 'chatStateWaitingApproval',
  paused: 'chatStatePaused',
  finished: 'chatStateFinished',
  failed: 'chatStateFailed',
  stopped: 'chatStateStopped',
};

/** The label of a run's state; a run that finished without an answer says how, not "Finished". */
export function stateKey(run: RunView): MessageKey {
  if (run.state === 'finished') {
    if (run.result_kind === 'declined') return 'chatStateDeclined';
    if (run.result_kind === 'filtered') return 'chatStateFiltered';
    if (run.result_kind === 'no_answer') return 'chatStateNoAnswer';
  }
  return STATE_KEYS[run.state];
}

export function formatCost(usd: number, known: boolean): string {
  const amount = usd === 0 ? '$0.00' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
  return known ? amount : `≥ ${amount}`;
}

interface RunBlockProps {
  timeline: RunTimeline;
  /** Bumped on every change of the timeline (it is mutated in place). */
  version: number;
  tools: Map<string, ToolInfo>;
  client: PanelClient;
  t: Translate;
  show: (tab: TabId) => void;
}

/** One run in the conversation: the goal, what the agent said and did, its question, how it ended. */
export const RunBlock = memo(function RunBlock({ timeline, tools, client, t, show }: RunBlockProps) {
  const run = timeline.run;
  // An `ask_user` call shows as its question card and the answer, not as a tool card too.
  const items = orderedItems(timeline).filter((item) => !(item.kind === 'tool' && item.tool === 'ask_user'));
  // The window follows the newest items unless the person moved it back.
  const [start, setStart] = useState<number | undefined>(undefined);
  const first = start ?? Math.max(0, items.length - WINDOW);
  const shown = items.slice(first, first + WINDOW);
  const later = items.length - (first + shown.length);

  return (
    <section
      className="run"
      data-testid="run"
      data-run-id={run.id}
      data-state={run.state}
      aria-label={t('chatRunLabel')}
    >
      <div className="bubble bubble-user" data-testid="user-message">
        {run.goal}
      </div>
      {first > 0 && (
        <button
          type="button"
          className="link-button"
          data-testid="show-earlier"
          onClick={() => setStart(Math.max(0, first - WINDOW))}
        >
          {t('chatShowEarlier', { count: first })}
        </button>
      )}
      <ol className="run-items" aria-label={t('chatStepsLabel')}>
        {shown.map((item) => (
          <li key={item.step} className="run-item">
            <Item item={item} tools={tools} client={client} t={t} />
          </li>
        ))}
      </ol>
      {later > 0 && (
        <button type="button" className="link-button" onClick={() => setStart(undefined)}>
          {t('chatShowLatest', { count: later })}
        </button>
      )}
      {run.state === 'queued' && items.length === 0 && <Thinking t={t} />}
      {run.state === 'running' &&
        !items.some(
          (item) => (item.kind === 'tool' && item.status === 'running') || (item.kind === 'text' && item.streaming),
        ) && <Thinking t={t} />}
      {run.question && run.state === 'waiting_user' && <QuestionCard run={run} client={client} t={t} />}
      {run.state === 'waiting_approval' && (
        <div className="run-notice" data-testid="run-waiting-approval">
          <span>{t('chatWaitingApproval')}</span>
          <button type="button" className="button-small" onClick={() => show('approvals')}>
            {t('chatOpenApprovals')}
          </button>
        </div>
      )}
      {!isActive(run) && <RunEnd timeline={timeline} t={t} />}
    </section>
  );
});

function Thinking({ t }: { t: Translate }) {
  return (
    <div className="thinking" role="status">
      <span className="dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      {t('chatThinking')}
    </div>
  );
}

/**
 * The model's thinking (reasoning models), collapsed: "Thinking…" while it thinks, its words one
 * click away. Not the answer, so plain text, not Markdown.
 */
function Reasoning({ text, live, t }: { text: string; live: boolean; t: Translate }) {
  return (
    <details className="reasoning" data-testid="agent-reasoning" data-live={live || undefined}>
      <summary>
        {live && (
          <span className="dots" aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
        )}
        {t(live ? 'chatReasoningLive' : 'chatReasoningDone')}
      </summary>
      <p className="reasoning-text">{text}</p>
    </details>
  );
}

function Item({
  item,
  tools,
  client,
  t,
}: {
  item: TimelineItem;
  tools: Map<string, ToolInfo>;
  client: PanelClient;
  t: Translate;
}) {
  switch (item.kind) {
    case 'text':
      return (
        <>
          {item.reasoning !== undefined && (
            <Reasoning text={item.reasoning} live={item.streaming && item.text === ''} t={t} />
          )}
          {item.text.trim() !== '' && (
            <div
              className="bubble bubble-agent"
              data-testid="agent-message"
              data-streaming={item.streaming || undefined}
            >
              <MarkdownView text={item.text} />
            </div>
          )}
        </>
      );
    case 'tool':
      return <ToolCard item={item} info={tools.get(item.tool)} client={client} t={t} />;
    case 'user':
      return (
        <div className="bubble bubble-user bubble-small" data-testid={`user-${item.role}`}>
          <span className="bubble-label">{item.role === 'steer' ? t('chatSteerLabel') : t('chatAnswerLabel')}</span>
          {item.text}
        </div>
      );
    case 'note':
      return (
        <p className={`run-note ${item.note === 'model_failed' ? 'run-note-bad' : ''}`}>
          {item.note === 'summary'
            ? t('chatNoteSummary')
            : item.note === 'steer_restart'
              ? t('chatNoteSteerRestart')
              : t('chatNoteModelFailed', { message: inLocale(item.text ?? '', item.textTranslations, t.locale) })}
        </p>
      );
  }
}

function RunEnd({ timeline, t }: { timeline: RunTimeline; t: Translate }) {
  const run = timeline.run;
  const took = run.finished_at ? Date.parse(run.finished_at) - Date.parse(run.created_at) : Number.NaN;
  const parts = [
    t(stateKey(run)),
    t('chatTurns', { count: run.turns }),
    t('chatToolCount', { count: toolCallCount(timeline) }),
    formatCost(run.usage.cost_usd, run.usage.cost_known),
  ];
  if (Number.isFinite(took) && took >= 0) parts.push(formatDuration(took));
  const noAnswer = withoutAnswer(run, t);
  const tokens = tokenLine(run.usage, t);
  return (
    <div
      className={`run-end run-end-${noAnswer ? 'no-answer' : run.state}`}
      data-testid="run-end"
      data-result-kind={run.result_kind}
    >
      <p className="run-end-line">{parts.join(' · ')}</p>
      {tokens && (
        <p className="run-end-tokens" data-testid="run-end-tokens">
          {tokens}
        </p>
      )}
      {noAnswer && (
        <p className="run-no-answer" data-testid="run-no-answer" role="status">
          {noAnswer}
        </p>
      )}
      {run.error && (
        <p className="run-error" data-testid="run-error">
          {t(run.error.code === 'LIMIT_REACHED' ? 'chatErrorLimit' : 'chatErrorFailed', {
            message: inLocale(run.error.message, run.error.translations, t.locale),
          })}
        </p>
      )}
    </div>
  );
}

/**
 * The tokens a run used, with the parts a person pays less for (read from the prompt cache) or
 * does not see (the model's thinking); undefined before any were counted.
 */
function tokenLine(usage: RunView['usage'], t: Translate): string | undefined {
  if (usage.input_tokens + usage.output_tokens === 0) return undefined;
  const count = new Intl.NumberFormat(t.locale, { notation: 'compact', maximumFractionDigits: 1 });
  const cached = usage.cache_read_tokens ?? 0;
  const thinking = usage.reasoning_tokens ?? 0;
  const input = cached
    ? t('chatTokensInCached', { count: count.format(usage.input_tokens), cached: count.format(cached) })
    : t('chatTokensIn', { count: count.format(usage.input_tokens) });
  const output = thinking
    ? t('chatTokensOutThinking', { count: count.format(usage.output_tokens), thinking: count.format(thinking) })
    : t('chatTokensOut', { count: count.format(usage.output_tokens) });
  return `${input} · ${output}`;
}

/**
 * Why a finished run has no answer (the model declined, a content filter, nothing said), with the
 * provider's reason in its own words; undefined when it answered.
 */
function withoutAnswer(run: RunView, t: Translate): string | undefined {
  if (run.state !== 'finished') return undefined;
  const reason = run.result?.trim() ?? '';
  switch (run.result_kind) {
    case 'declined':
      return reason ? t('chatDeclined', { reason }) : t('chatDeclinedNoReason');
    case 'filtered':
      return reason ? t('chatFiltered', { reason }) : t('chatFilteredNoReason');
    case 'no_answer':
      return t('chatNoAnswer');
    default:
      return undefined;
  }
}

/** An `ask_user` question (or the loop asking for help), answered here: an option or free text. */
function QuestionCard({ run, client, t }: { run: RunView; client: PanelClient; t: Translate }) {
  const question = run.question!;
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const answer = async (value: string) => {
    if (value.trim() === '') return;
    setBusy(true);
    setError(undefined);
    try {
      await client.call('runs.answer', { id: run.id, answer: value });
      setText('');
    } catch (caught) {
      const appError = toAppError(caught);
      setError(
        appError.code === 'ALREADY_ANSWERED' || appError.code === 'INVALID_ARGUMENT'
          ? t('chatAlreadyAnswered')
          : t('chatActionFailed', { message: appError.message }),
      );
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void answer(text);
  };
  const id = `question-${question.id}`;
  return (
    <form className="question-card" data-testid="question-card" aria-labelledby={id} onSubmit={submit}>
      <p className="question-kicker">{question.kind === 'stuck' ? t('chatStuckAsks') : t('chatAgentAsks')}</p>
      <p className="question-text" id={id}>
        {question.question}
      </p>
      {question.options.length > 0 && (
        <div className="question-options">
          {question.options.map((option) => (
            <button
              key={option}
              type="button"
              className="chip-button"
              disabled={busy}
              onClick={() => void answer(option)}
            >
              {option}
            </button>
          ))}
        </div>
      )}
      <div className="question-free">
        <input
          type="text"
          value={text}
          disabled={busy}
          aria-label={t('chatAnswerInput')}
          placeholder={t('chatAnswerPlaceholder')}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit" className="button-primary" disabled={busy || text.trim() === ''}>
          {t('chatAnswerSend')}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
