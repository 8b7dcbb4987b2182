import { useCallback, useEffect, useRef, useState } from 'react';

import {
  toAppError,
  type DaemonEvent,
  type RunView,
  type ToolInfo,
  addMessages,
  applyEvent,
  buildTimeline,
  mergeSteps,
  type RunTimeline,
  type SessionMessageView as SessionMessage,
} from '@nextai/shared';

import type { ConnectionState } from '../../lib/connection-state.js';
import type { PanelClient } from '../../lib/panel-client.js';

/** Runs of a session read at first; older ones come on request. */
const RUNS_SHOWN = 10;

export interface Conversation {
  title: string | undefined;
  timelines: RunTimeline[];
  /** Older runs of the session not loaded yet. */
  olderRuns: number;
  loading: boolean;
  /** Why the session could not be shown (deleted, daemon unreachable). */
  problem: { kind: 'deleted' | 'failed'; message: string } | undefined;
  version: number;
}

const EMPTY: Conversation = {
  title: undefined,
  timelines: [],
  olderRuns: 0,
  loading: false,
  problem: undefined,
  version: 0,
};

/**
 * A session's runs as timelines, kept current from `run.*` and `session.changed` events, and read
 * again from the daemon after a reconnect (a daemon restart, the background restarting).
 */
export function useConversation(client: PanelClient, state: ConnectionState, sessionId: string | undefined) {
  const [conversation, setConversation] = useState<Conversation>({ ...EMPTY, loading: sessionId !== undefined });
  const timelines = useRef(new Map<string, RunTimeline>());
  const messages = useRef<SessionMessage[]>([]);
  const allRuns = useRef<RunView[]>([]);
  const limit = useRef(RUNS_SHOWN);
  const current = useRef(sessionId);
  const refetchTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const readsInFlight = useRef(new Set<string>());
  const readAgain = useRef(new Set<string>());

  const publish = useCallback((patch: Partial<Conversation> = {}) => {
    const shown = allRuns.current.slice(-limit.current);
    setConversation((previous) => ({
      ...previous,
      ...patch,
      timelines: shown.map((run) => timelines.current.get(run.id)).filter((timeline) => timeline !== undefined),
      olderRuns: Math.max(0, allRuns.current.length - shown.length),
      version: previous.version + 1,
    }));
  }, []);

  /** Reads a run: whole, or (`onlyNew`, while it goes on) just the steps it has not finished yet. */
  const loadRun = useCallback(
    async (id: string, onlyNew = false) => {
      const known = onlyNew ? timelines.current.get(id) : undefined;
      const { run, steps = [] } = await client.call(
        'runs.get',
        known ? { id, steps: true, steps_from: known.stepsFrom } : { id, steps: true },
      );
      if (current.current !== sessionId) return;
      if (known && timelines.current.get(id) === known) mergeSteps(known, run, steps, messages.current);
      else timelines.current.set(id, buildTimeline(run, steps, client.events, messages.current));
    },
    [client, sessionId],
  );

  /**
   * Reads the session and its latest runs: runs already shown only from their first unfinished
   * step, unless `fresh` (after a reconnect or a daemon restart), when everything is read again.
   */
  const load = useCallback(
    async (fresh = false) => {
      if (!sessionId) return;
      try {
        const [{ session, runs }, { messages: list }] = await Promise.all([
          client.call('sessions.get', { id: sessionId }),
          client.call('sessions.messages', { id: sessionId, after_seq: 0, limit: 5000 }),
        ]);
        if (current.current !== sessionId) return;
        messages.current = list;
        allRuns.current = [...runs].sort((a, b) => a.created_at.localeCompare(b.created_at));
        if (fresh) timelines.current = new Map();
        await Promise.all(allRuns.current.slice(-limit.current).map((run) => loadRun(run.id, true)));
        if (current.current !== sessionId) return;
        publish({ title: session.title, loading: false, problem: undefined });
      } catch (error) {
        if (current.current !== sessionId) return;
        const appError = toAppError(error);
        publish({
          loading: false,
          problem: { kind: appError.code === 'NOT_FOUND' ? 'deleted' : 'failed', message: appError.message },
        });
      }
    },
    [client, sessionId, loadRun, publish],
  );

  // A new session: start over (the state while rendering, the rest in the effect).
  const [shownFor, setShownFor] = useState(sessionId);
  if (shownFor !== sessionId) {
    setShownFor(sessionId);
    setConversation({ ...EMPTY, loading: sessionId !== undefined });
  }
  useEffect(() => {
    current.current = sessionId;
    timelines.current = new Map();
    messages.current = [];
    allRuns.current = [];
    limit.current = RUNS_SHOWN;
    void load();
  }, [sessionId, load]);

  // Reconnected (the daemon or the background restarted): read everything again.
  const connected = state.status === 'connected';
  const wasConnected = useRef(connected);
  useEffect(() => {
    if (connected && !wasConnected.current) void load(true);
    wasConnected.current = connected;
  }, [connected, load]);

  /** Reads a run again a moment later (several events in a row make one read). */
  const scheduleRun = useCallback(
    (id: string, delay = 400) => {
      if (refetchTimers.current.has(id)) return;
      // One read of a run at a time: a read still on its way when more events come (a busy
      // daemon, a long answer) is followed by one more, from where it left off.
      if (readsInFlight.current.has(id)) {
        readAgain.current.add(id);
        return;
      }
      refetchTimers.current.set(
        id,
        setTimeout(() => {
          refetchTimers.current.delete(id);
          readsInFlight.current.add(id);
          void (async () => {
            try {
              do {
                readAgain.current.delete(id);
                await loadRun(id, true).then(
                  () => publish(),
                  () => undefined,
                );
              } while (readAgain.current.has(id));
            } finally {
              readsInFlight.current.delete(id);
            }
          })();
        }, delay),
      );
    },
    [loadRun, publish],
  );

  const sessionTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const freshRead = useRef(false);
  /** Reads the session again a moment later (several events make one read; one fresh asks make it fresh). */
  const scheduleSession = useCallback(
    (fresh = false) => {
      freshRead.current ||= fresh;
      if (sessionTimer.current !== undefined) return;
      sessionTimer.current = setTimeout(() => {
        sessionTimer.current = undefined;
        const wasFresh = freshRead.current;
        freshRead.current = false;
        void load(wasFresh);
      }, 300);
    },
    [load],
  );

  useEffect(
    () => () => {
      for (const timer of refetchTimers.current.values()) clearTimeout(timer);
      refetchTimers.current.clear();
      clearTimeout(sessionTimer.current);
      sessionTimer.current = undefined;
    },
    [sessionId],
  );

  useEffect(
    () =>
      client.onEvent((event: DaemonEvent) => {
        if (event.type === 'daemon.started') {
          scheduleSession(true);
          return;
        }
        if (event.type === 'session.changed' && event.data.session_id === current.current) {
          if (event.data.change === 'deleted') {
            publish({ problem: { kind: 'deleted', message: '' } });
          } else if (event.data.change === 'renamed') {
            scheduleSession();
          } else {
            // A message: a new run of this session (from here or the CLI), a steer, an answer.
            client.call('sessions.messages', { id: String(event.data.session_id), after_seq: 0, limit: 5000 }).then(
              ({ messages: list }) => {
                messages.current = list;
                for (const timeline of timelines.current.values()) addMessages(timeline, list);
                const known = new Set(allRuns.current.map((run) => run.id));
                const unknownRun = list.some((message) => {
                  const runId = (message.content as { run_id?: unknown } | null)?.run_id;
                  return typeof runId === 'string' && !known.has(runId);
                });
                if (unknownRun) scheduleSession();
                else publish();
              },
              () => undefined,
            );
          }
          return;
        }
        const runId = event.data.run_id;
        if (typeof runId !== 'string') return;
        const timeline = timelines.current.get(runId);
        if (!timeline) return;
        if (!applyEvent(timeline, event)) return;
        // Finished tool calls and observations carry a screenshot reference only in the stored step;
        // a state change may bring a result or an error.
        if (event.type === 'run.step' && event.data.phase === 'finished' && event.data.kind !== 'model_call') {
          scheduleRun(runId);
        } else if (event.type === 'run.state') {
          scheduleRun(runId, 150);
        }
        publish();
      }),
    [client, publish, scheduleRun, scheduleSession],
  );

  /** A run started here: shown at once, before its first event. */
  const addRun = useCallback(
    (run: RunView) => {
      if (!allRuns.current.some((known) => known.id === run.id)) allRuns.current.push(run);
      if (!timelines.current.has(run.id)) {
        timelines.current.set(run.id, buildTimeline(run, [], client.events, messages.current));
      }
      publish();
    },
    [client, publish],
  );

  const showOlder = useCallback(() => {
    limit.current += RUNS_SHOWN;
    void load();
  }, [load]);

  return { conversation, addRun, showOlder };
}

/** The tools' titles and risks, read once per connection. */
export function useTools(client: PanelClient, connected: boolean): Map<string, ToolInfo> {
  const [tools, setTools] = useState(new Map<string, ToolInfo>());
  useEffect(() => {
    if (!connected) return;
    let cancelled = false;
    client.call('tools.list', {}).then(
      ({ tools: list }) => !cancelled && setTools(new Map(list.map((tool) => [tool.name, tool]))),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [client, connected]);
  return tools;
}
