import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';

import { inLocale, toAppError, type RunView, isActive, toolCallCount, type RunTimeline } from '@nextai/shared';

import type { Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import type { RunDraft } from '../../lib/panel-messages.js';
import type { PanelProps } from '../panel-props.js';
import './chat.css';
import { Composer, goalWithContext, type DraftContext } from './composer.js';
import { formatCost, RunBlock, STATE_KEYS, stateKey } from './run-view.js';
import { SessionsList } from './sessions-list.js';
import { useConversation, useTools } from './use-conversation.js';

const LAST_SESSION_KEY = 'nextai.chat.session';

function rememberedSession(): string | undefined {
  try {
    return localStorage.getItem(LAST_SESSION_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

function remember(id: string | undefined): void {
  try {
    if (id) localStorage.setItem(LAST_SESSION_KEY, id);
    else localStorage.removeItem(LAST_SESSION_KEY);
  } catch {
    // Storage may be unavailable (a private window): the panel opens on a new chat.
  }
}

/** What went wrong, said so the person knows what to do next. */
interface Problem {
  message: string;
  /** A button that leads to the fix. */
  action?: 'settings' | 'reset';
}

function explainStartError(error: unknown, t: Translate): Problem {
  const appError = toAppError(error);
  if (appError.code === 'EMERGENCY_STOPPED') return { message: t('chatEmergencyLatched') };
  if (appError.code === 'DISCONNECTED' || appError.code === 'DAEMON_UNAVAILABLE' || appError.code === 'TIMEOUT') {
    return { message: t('chatNotConnected') };
  }
  const message = inLocale(appError.message, appError.translations, t.locale);
  if (/model|api key|provider/i.test(appError.message)) {
    return { message: t('chatModelMissing', { message }), action: 'settings' };
  }
  return { message: t('chatActionFailed', { message }) };
}

/** The chat: sessions, messages, tool cards, run controls. */
export function ChatTab({ client, state, t, locale, show }: PanelProps) {
  const connected = state.status === 'connected';
  const [sessionId, setSessionId] = useState<string | undefined>(rememberedSession);
  const [listOpen, setListOpen] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const tools = useTools(client, connected);
  const { conversation, addRun, showOlder } = useConversation(client, state, sessionId);

  const open = useCallback((id: string | undefined) => {
    setSessionId(id);
    remember(id);
    setListOpen(false);
    setProblem(undefined);
  }, []);

  // A run prepared from the right-click menu: a new chat with it in the composer.
  const draft = useSyncExternalStore(
    (listener) => client.subscribe(listener),
    () => client.draft,
  );
  const [placed, setPlaced] = useState<RunDraft>();
  if (draft && draft.id !== placed?.id) {
    setPlaced(draft);
    setSessionId(undefined);
    setListOpen(false);
  }
  useEffect(() => {
    if (!placed) return;
    remember(undefined);
    show('chat');
    client.takeDraft(placed.id);
  }, [placed, client, show]);

  // A session deleted elsewhere (or a stale remembered one): start a new chat, say so.
  useEffect(() => {
    if (conversation.problem?.kind === 'deleted') {
      remember(undefined);
    }
  }, [conversation.problem]);

  const timelines = conversation.timelines;
  const active = [...timelines].reverse().find((timeline) => isActive(timeline.run));

  const send = async (text: string, context: DraftContext | undefined): Promise<boolean> => {
    setProblem(undefined);
    try {
      if (active) {
        await client.call('runs.steer', { id: active.run.id, text });
        return true;
      }
      const continuing = sessionId && conversation.problem === undefined ? sessionId : undefined;
      // A run prepared from a right-click on a page (its context still attached) gets that tab.
      const draftId = context?.tab_id !== undefined ? placed?.id : undefined;
      const { run } = await client.call(
        'runs.start',
        { goal: goalWithContext(text, context, t), ...(continuing ? { session_id: continuing } : {}) },
        { draftId },
      );
      setPlaced(undefined);
      if (continuing) addRun(run);
      else if (run.session_id) open(run.session_id);
      return true;
    } catch (error) {
      const appError = toAppError(error);
      if (active && (appError.code === 'NOT_FOUND' || appError.code === 'INVALID_ARGUMENT')) {
        setProblem({ message: t('chatRunEndedMeanwhile') });
      } else setProblem(explainStartError(error, t));
      return false;
    }
  };

  // Follow the conversation as it grows, unless the person scrolled up to read.
  const atBottom = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      atBottom.current = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const end = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (atBottom.current) end.current?.scrollIntoView({ block: 'end' });
  }, [conversation.version, listOpen]);

  const title = sessionId && !conversation.problem ? (conversation.title ?? t('loading')) : t('chatNewTitle');

  return (
    <section className="chat" data-testid="chat-tab" aria-label={t('tabChat')}>
      <div className="chat-bar">
        <button
          type="button"
          className="chat-bar-button"
          aria-expanded={listOpen}
          aria-controls="chat-sessions"
          data-testid="sessions-toggle"
          onClick={() => setListOpen((value) => !value)}
        >
          <span aria-hidden="true">☰</span> {t('chatSessions')}
        </button>
        <h2 className="chat-title" data-testid="chat-title" title={title}>
          {title}
        </h2>
        <button type="button" className="chat-bar-button" data-testid="new-chat" onClick={() => open(undefined)}>
          <span aria-hidden="true">＋</span> {t('chatNew')}
        </button>
      </div>

      {listOpen && connected && (
        <div id="chat-sessions" className="chat-sessions">
          <SessionsList
            client={client}
            t={t}
            locale={locale}
            selected={sessionId}
            onOpen={open}
            onDeleted={(id) => id === sessionId && open(undefined)}
          />
        </div>
      )}

      {!listOpen && (
        <div className="conversation" role="log" aria-label={t('chatConversation')} data-testid="conversation">
          {conversation.problem?.kind === 'deleted' && sessionId && (
            <div className="chat-banner" role="status" data-testid="session-deleted">
              <p>{t('chatSessionDeleted')}</p>
            </div>
          )}
          {conversation.problem?.kind === 'failed' && (
            <div className="chat-banner chat-banner-bad" role="alert">
              <p>{t('chatLoadFailed', { message: conversation.problem.message })}</p>
            </div>
          )}
          {!sessionId && timelines.length === 0 && <EmptyChat t={t} />}
          {conversation.loading && sessionId && timelines.length === 0 && (
            <div className="card-muted">
              <span className="spinner" />
              <p>{t('loading')}</p>
            </div>
          )}
          {conversation.olderRuns > 0 && (
            <button type="button" className="link-button" onClick={showOlder}>
              {t('chatOlderRuns', { count: conversation.olderRuns })}
            </button>
          )}
          {timelines.map((timeline) => (
            <RunBlock
              key={timeline.run.id}
              timeline={timeline}
              version={conversation.version}
              tools={tools}
              client={client}
              t={t}
              show={show}
            />
          ))}
          <div ref={end} />
        </div>
      )}

      <div className="chat-footer">
        {active && <RunControls timeline={active} client={client} t={t} onProblem={setProblem} />}
        {problem && (
          <div className="chat-banner chat-banner-bad" role="alert" data-testid="chat-problem">
            <p>{problem.message}</p>
            {problem.action === 'settings' && (
              <button type="button" className="button-small" onClick={() => show('settings')}>
                {t('chatOpenSettings')}
              </button>
            )}
          </div>
        )}
        <Composer t={t} mode={active ? 'steer' : 'start'} disabled={!connected} draft={placed} onSend={send} />
      </div>
    </section>
  );
}

function EmptyChat({ t }: { t: Translate }) {
  return (
    <div className="chat-empty" data-testid="chat-empty">
      <p className="chat-empty-title">{t('chatEmptyTitle')}</p>
      <p className="chat-empty-body">{t('chatEmptyBody')}</p>
    </div>
  );
}

/** The running run's state, counters and controls: pause, resume, stop (steering is the composer). */
function RunControls({
  timeline,
  client,
  t,
  onProblem,
}: {
  timeline: RunTimeline;
  client: PanelClient;
  t: Translate;
  onProblem: (problem: Problem | undefined) => void;
}) {
  const run = timeline.run;
  const [busy, setBusy] = useState(false);
  const act = async (action: (id: string) => Promise<{ run: RunView }>) => {
    setBusy(true);
    onProblem(undefined);
    try {
      await action(run.id);
    } catch (error) {
      const appError = toAppError(error);
      onProblem({
        message:
          appError.code === 'EMERGENCY_STOPPED'
            ? t('chatEmergencyLatched')
            : t('chatActionFailed', { message: appError.message }),
      });
    } finally {
      setBusy(false);
    }
  };
  const canPause = run.state === 'running' || run.state === 'queued';
  // A run the model could not answer waits for the person with what went wrong: they retry.
  const pausedBy = run.state === 'paused' ? run.error : null;
  return (
    <>
      <div className="run-controls" data-testid="run-controls" data-state={run.state}>
        <div className="run-status">
          <span
            className={`state-pill state-${stateKey(run) === STATE_KEYS[run.state] ? run.state : 'no-answer'}`}
            data-testid="run-state"
          >
            {t(stateKey(run))}
          </span>
          <span className="run-counter" data-testid="run-counter">
            {t('chatCounter', {
              turns: run.turns,
              max: run.limits.max_steps,
              tools: toolCallCount(timeline),
              cost: formatCost(run.usage.cost_usd, run.usage.cost_known),
            })}
          </span>
        </div>
        <div className="run-buttons">
          {canPause && (
            <button
              type="button"
              className="button-small"
              disabled={busy}
              onClick={() => void act((id) => client.call('runs.pause', { id }))}
            >
              {t('chatPause')}
            </button>
          )}
          {run.state === 'paused' && (
            <button
              type="button"
              className="button-small"
              disabled={busy}
              onClick={() => void act((id) => client.call('runs.resume', { id }))}
            >
              {pausedBy && pausedBy.code !== 'STORAGE_ERROR' ? t('chatRetry') : t('chatResume')}
            </button>
          )}
          <button
            type="button"
            className="button-small button-danger"
            data-testid="run-stop"
            disabled={busy}
            onClick={() => void act((id) => client.call('runs.stop', { id, reason: 'stopped in the side panel' }))}
          >
            {t('chatStop')}
          </button>
        </div>
      </div>
      {pausedBy && (
        <p className="run-error" data-testid="run-paused-reason">
          {inLocale(pausedBy.message, pausedBy.translations, t.locale)}
        </p>
      )}
    </>
  );
}
