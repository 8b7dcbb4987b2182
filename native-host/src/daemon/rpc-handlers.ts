import { AppError, PROTOCOL_VERSION, VERSION, say, type DaemonInfo } from '@nextai/shared';

import type { RunManager } from '../agent/run-manager.js';
import type { PolicyStore } from '../policy/policy-store.js';
import type { ScheduleService } from '../scheduler/schedule-service.js';
import type { BlobStore } from '../tools/blob-store.js';
import type { OwnSurfaces } from '../tools/input/own-surfaces.js';
import type { ApprovalQueue } from '../gateway/approvals.js';
import type { AuditLog } from '../gateway/audit/index.js';
import { MAX_PENDING_PER_BROWSER, type ClientConnection } from './client-connection.js';
import type { EmergencyStop } from '../gateway/emergency-stop.js';
import type { EventLog } from '../storage/event-log.js';
import type { AuthorityGate } from './identity/authority.js';
import type { Caller } from './identity/caller.js';
import { registerScheduleHandlers } from './schedule-handlers.js';
import { registerSettingsHandlers } from './settings-handlers.js';
import type { DaemonStorage } from './storage-alerts.js';
import type { CallContext, ToolGateway } from '../gateway/tool-gateway.js';

/** What the RPC handlers of one connection work with. */
export interface DaemonServices {
  info: DaemonInfo;
  startedAt: number;
  events: EventLog;
  gateway: ToolGateway;
  policy: PolicyStore;
  approvals: ApprovalQueue;
  audit: AuditLog;
  emergency: EmergencyStop;
  runs: RunManager;
  schedules: ScheduleService;
  /** Payloads tools returned by reference. */
  blobs: BlobStore;
  connections: () => Iterable<ClientConnection>;
  /** Who is on the other end of a connection (the person, the panel, the agent, an MCP client). */
  identify: (connection: ClientConnection) => Promise<Caller>;
  /** Refuses the person's authority to anyone else. */
  authority: AuthorityGate;
  /** NextAI's pages on screen, as the browsers report them: the agent's input may not land there. */
  ownSurfaces: OwnSurfaces;
  /**
   * Stops the daemon, on purpose, once the caller has its answer: running tool calls may finish
   * for `graceMs` (the configured grace when undefined; 0: now). Says the grace period it takes and
   * how many calls it waits for.
   */
  shutdown: (reason: string, graceMs: number | undefined) => { graceMs: number; runningCalls: number };
  /** Whether a stop has begun (the daemon lets running calls finish, then ends). */
  stopping: () => boolean;
  /** Records a policy change made through the daemon (events and audit). */
  recordPolicyChange: (summary: string, by: string) => void;
  /** Whether the database can be written; writes refused whole with a clear error when not. */
  storage: DaemonStorage;
}

/** Wires every daemon method to its implementation, for one client connection. */
export function registerRpcHandlers(connection: ClientConnection, services: DaemonServices): void {
  const { peer } = connection;
  /**
   * The context of a client's tool call. Runs and their grants belong to the daemon's run engine:
   * a client that names a run (to borrow its "approved for this run") or brings its own grant is
   * refused, and the refusal is audited.
   */
  const callContext = async (
    params: {
      project?: string | undefined;
      run_id?: string | undefined;
      grant?: CallContext['grant'];
      prompt_rules?: CallContext['promptRules'];
    },
    method: string,
  ): Promise<CallContext> => {
    const caller = await services.identify(connection);
    services.authority.refuseAgent(caller, "call NextAI's tools directly", method);
    const claimed = [params.run_id !== undefined ? 'run_id' : '', params.grant !== undefined ? 'grant' : '']
      .filter(Boolean)
      .join(' and ');
    if (claimed) {
      const message = `${claimed} ${claimed.includes(' and ') ? 'are' : 'is'} set by NextAI's run engine for the runs it starts, never by a client: a tool call from ${caller.actor} cannot name a run or bring a grant. Leave ${claimed} out (a tool call from a client is judged on its own), or start a run with "nextai run".`;
      services.audit.append({
        kind: 'authority',
        result: 'refused',
        actor: caller.actor,
        reason: message,
        details: { method, ...(params.run_id !== undefined ? { run_id: params.run_id } : {}) },
      });
      throw new AppError('INVALID_PARAMS', message);
    }
    return {
      source: connection.info?.kind ?? 'unknown',
      actor: caller.actor,
      project: params.project,
      promptRules: params.prompt_rules,
      cancel: connection.closedSignal,
    };
  };
  /** Who acts, unless the caller is the agent's own process (refused and audited). */
  const notTheAgent = async (what: string, method: string): Promise<string> =>
    services.authority.refuseAgent(await services.identify(connection), what, method);
  /** Who acts, when the caller is the person; refuses (and audits) anyone else. */
  const asPerson = async (what: string, method: string): Promise<string> =>
    services.authority.require(await services.identify(connection), what, method);

  peer.onNotification('bridge.register', ({ origin }) => {
    connection.origin = origin;
    // A browser's bridge carries all its panels, tabs and browser tools on this one connection.
    connection.allowPending(MAX_PENDING_PER_BROWSER);
  });
  // Only a browser's bridge speaks for its pages. A report only ever keeps the agent's input
  // away from more of the screen, so it needs no more trust than that.
  peer.onNotification('ui.surfaces', ({ surfaces }) => {
    if (connection.isBrowserBridge()) services.ownSurfaces.report(connection.id, surfaces);
  });
  peer.handle('daemon.hello', ({ client, protocol_version }) => {
    if (protocol_version !== PROTOCOL_VERSION) {
      throw new AppError(
        'PROTOCOL_MISMATCH',
        `This client speaks protocol ${protocol_version}, the daemon ${PROTOCOL_VERSION} (version ${VERSION}). Update the older of the two.`,
      );
    }
    const first = connection.info === undefined;
    connection.info = client;
    // Bookkeeping: hello (and with it `nextai status`) works while the database cannot be written.
    if (first) {
      services.events.record('client.connected', {
        client_id: connection.id,
        kind: client.kind,
        name: client.name,
        ...(connection.origin ? { origin: connection.origin } : {}),
      });
    }
    return { daemon: services.info, client_id: connection.id };
  });
  peer.handle('daemon.status', () => ({
    running: true as const,
    daemon: services.info,
    uptime_ms: Date.now() - services.startedAt,
    clients: [...services.connections()]
      .filter((other) => other.info !== undefined)
      .map((other) => ({
        client_id: other.id,
        kind: other.info?.kind ?? 'unknown',
        name: other.info?.name ?? 'unknown',
        version: other.info?.version,
        origin: other.origin,
        connected_at: other.connectedAt,
        is_caller: other === connection,
      })),
    last_event_seq: services.events.lastSeq(),
    storage: services.storage.report(),
  }));
  peer.handle('daemon.ping', ({ payload }) =>
    payload === undefined ? { time: Date.now() } : { payload, time: Date.now() },
  );
  peer.handle('daemon.shutdown', async ({ reason, grace_ms }) => {
    await notTheAgent('stop the daemon', 'daemon.shutdown');
    const { graceMs, runningCalls } = services.shutdown(reason ?? `requested by ${connection.label}`, grace_ms);
    return { stopping: true as const, grace_ms: graceMs, running_calls: runningCalls };
  });

  peer.handle('tools.list', () => ({ tools: services.gateway.list() }));
  peer.handle('tools.call', async (params) => services.gateway.call(params, await callContext(params, 'tools.call')));
  peer.handle('blobs.read', ({ reference, offset, length }) => {
    const { data, mimeType } = services.blobs.get(reference);
    const slice = data.subarray(offset, offset + length);
    const end = offset + slice.length;
    return {
      data: slice.toString('base64'),
      mime_type: mimeType,
      offset,
      total_bytes: data.length,
      next_offset: end < data.length ? end : null,
    };
  });

  peer.handle('policy.explain', async (params) =>
    services.gateway.explain({ name: params.tool, input: params.input }, await callContext(params, 'policy.explain')),
  );
  peer.handle('policy.show', ({ project }) => {
    const state = services.policy.current;
    return {
      project: services.policy.project(project),
      projects: services.policy.projects(),
      security: state.config.security,
      config: {
        file: services.policy.configFile,
        source: state.source,
        ...(state.problem ? { problem: state.problem } : {}),
      },
    };
  });
  peer.handle('policy.set_template', async ({ template, project }) => {
    const actor = await asPerson('change the approval policy', 'policy.set_template');
    // A policy change must reach the audit log: refused before config.json is touched when it cannot.
    services.storage.requireWritable(say('the policy change', '策略更改'));
    const updated = services.policy.setTemplate(template, project);
    services.recordPolicyChange(`project ${updated.id} set to the ${updated.template ?? template} template`, actor);
    return { project: updated };
  });

  peer.handle('approvals.list', ({ status, limit }) => ({ approvals: services.approvals.list(status, limit) }));
  peer.handle('approvals.answer', async ({ id, decision, scope, message }) => {
    const actor = await asPerson('answer approval requests', 'approvals.answer');
    // An answer now would start the action just as the stop cuts it short. Checked right before
    // the answer is written (nothing waits in between), so no answer slips in after a stop began.
    if (services.stopping()) {
      throw new AppError(
        'UNAVAILABLE',
        say(
          `The daemon is stopping; answer after it starts again (\`nextai daemon --detach\`). Request ${id} stays pending: a run takes it up again after the restart, and you can answer it then.`,
          `守护进程正在停止；请在它重新启动后再回答（\`nextai daemon --detach\`）。请求 ${id} 仍保持待处理：重启后运行会再次使用它，届时你可以回答。`,
        ),
      );
    }
    return { approval: services.approvals.answer(id, { decision, scope, message }, actor) };
  });

  peer.handle('audit.list', ({ limit, before_seq, after_seq }) => ({
    records: services.audit.list({
      limit,
      ...(before_seq !== undefined ? { beforeSeq: before_seq } : {}),
      ...(after_seq !== undefined ? { afterSeq: after_seq } : {}),
    }),
  }));
  peer.handle('audit.verify', () => {
    const chain = services.audit.verify();
    if (!chain.ok) return chain;
    // The chain is whole; the emergency stop beside it must agree with what the chain records.
    const stop = services.emergency.disagreement();
    if (!stop) return chain;
    return {
      ok: false as const,
      rows: chain.rows,
      problem: { seq: chain.head?.seq ?? 0, kind: 'state_mismatch', message: stop },
    };
  });

  // Anyone may stop everything — the agent too; only the person lifts the stop.
  peer.handle('safety.stop', async ({ reason }) =>
    services.emergency.engage(reason ?? 'stop requested', (await services.identify(connection)).actor),
  );
  peer.handle('safety.reset', async () =>
    services.emergency.reset(await asPerson('reset the emergency stop', 'safety.reset')),
  );
  peer.handle('safety.status', () => services.emergency.state());

  const { runs } = services;
  peer.handle('runs.start', async ({ goal, project, session_id, limits }) => ({
    run: runs.start({ goal, project, sessionId: session_id, limits }, await notTheAgent('start runs', 'runs.start')),
  }));
  peer.handle('runs.list', ({ state, session_id, limit }) => ({
    runs: runs.list({ ...(state ? { state } : {}), ...(session_id ? { sessionId: session_id } : {}), limit }),
  }));
  peer.handle('runs.get', ({ id, steps, steps_from }) => ({
    run: runs.view(id),
    ...(steps ? { steps: runs.steps(id, steps_from) } : {}),
  }));
  peer.handle('runs.pause', async ({ id }) => {
    await notTheAgent('pause runs', 'runs.pause');
    return { run: runs.pause(id) };
  });
  peer.handle('runs.resume', async ({ id }) => {
    await asPerson('resume a run that was paused', 'runs.resume');
    return { run: runs.resume(id) };
  });
  peer.handle('runs.stop', async ({ id, reason }) => {
    const actor = await notTheAgent('stop runs', 'runs.stop');
    return { run: await runs.stop(id, reason ?? `stopped by ${actor}`) };
  });
  peer.handle('runs.steer', async ({ id, text }) => ({
    run: runs.steer(id, text, await notTheAgent('steer runs', 'runs.steer')),
  }));
  peer.handle('runs.answer', async ({ id, answer }) => ({
    run: runs.answer(id, answer, await asPerson("answer the agent's questions", 'runs.answer')),
  }));

  const sessionView = (session: {
    id: string;
    title: string;
    project: string;
    createdAt: string;
    updatedAt: string;
  }) => ({
    id: session.id,
    title: session.title,
    project: session.project,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
  });
  peer.handle('sessions.create', ({ title, project }) => {
    const session = runs.sessions.create({ title, project: services.policy.project(project).id });
    services.events.append('session.changed', { session_id: session.id, change: 'created' });
    return { session: sessionView(session) };
  });
  // The person's conversations are theirs to read: not the agent's own processes'.
  peer.handle('sessions.list', async ({ search, project, limit, offset }) => {
    await notTheAgent('read conversations', 'sessions.list');
    const sessions = runs.sessions.list({
      ...(search !== undefined ? { search } : {}),
      ...(project !== undefined ? { project } : {}),
      limit,
      offset,
    });
    return { sessions: sessions.map(sessionView) };
  });
  peer.handle('sessions.get', async ({ id }) => {
    await notTheAgent('read conversations', 'sessions.get');
    return { session: sessionView(runs.sessions.get(id)), runs: runs.list({ sessionId: id, limit: 1000 }) };
  });
  peer.handle('sessions.rename', async ({ id, title }) => {
    await notTheAgent('rename conversations', 'sessions.rename');
    const session = runs.sessions.rename(id, title);
    services.events.append('session.changed', { session_id: id, change: 'renamed' });
    return { session: sessionView(session) };
  });
  peer.handle('sessions.delete', async ({ id }) => {
    // A conversation deleted is gone for good: the person's call, not the agent's.
    await asPerson('delete conversations', 'sessions.delete');
    runs.sessions.get(id);
    for (const run of runs.list({ sessionId: id, state: 'active', limit: 1000 })) {
      await runs.stop(run.id, 'its session was deleted');
    }
    runs.sessions.delete(id);
    services.events.append('session.changed', { session_id: id, change: 'deleted' });
    return { deleted: true as const };
  });
  peer.handle('sessions.messages', async ({ id, after_seq, limit }) => {
    await notTheAgent('read conversations', 'sessions.messages');
    const messages = runs.sessions.messages(id, { afterSeq: after_seq, limit });
    return {
      messages: messages.map((message) => ({
        seq: message.seq,
        role: message.role,
        content: message.content,
        created_at: message.createdAt,
      })),
    };
  });

  registerSettingsHandlers(connection, services, asPerson, notTheAgent);
  registerScheduleHandlers(connection, services.schedules, services.storage, asPerson, notTheAgent);

  peer.handle('events.subscribe', ({ after_seq, log_id }) => {
    connection.unsubscribeEvents?.();
    // Replay and switching to live events happen in one synchronous step, so no event can
    // fall between them.
    const { events, gap } = services.events.missedSince(after_seq, log_id);
    for (const event of events) peer.notify('event', event);
    connection.unsubscribeEvents = services.events.subscribe((event) => peer.notify('event', event));
    return { log_id: services.events.logId, last_seq: services.events.lastSeq(), replayed: events.length, gap };
  });
}
