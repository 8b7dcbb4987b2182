import { AppError, PROTOCOL_VERSION, VERSION, type DaemonInfo } from '@nextai/shared';

import type { RunManager } from '../agent/run-manager.js';
import type { PolicyStore } from '../policy/policy-store.js';
import type { ScheduleService } from '../scheduler/schedule-service.js';
import type { BlobStore } from '../tools/blob-store.js';
import type { ApprovalQueue } from './approvals.js';
import type { AuditLog } from './audit/index.js';
import type { ClientConnection } from './client-connection.js';
import type { EmergencyStop } from './emergency-stop.js';
import type { EventLog } from './event-log.js';
import { registerScheduleHandlers } from './schedule-handlers.js';
import { registerSettingsHandlers } from './settings-handlers.js';
import type { CallContext, ToolGateway } from './tool-gateway.js';

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
  shutdown: (reason: string) => void;
  /** Records a policy change made through the daemon (events and audit). */
  recordPolicyChange: (summary: string, by: string) => void;
}

/** Wires every daemon method to its implementation, for one client connection. */
export function registerRpcHandlers(connection: ClientConnection, services: DaemonServices): void {
  const { peer } = connection;
  const callContext = (params: {
    project?: string | undefined;
    run_id?: string | undefined;
    grant?: CallContext['grant'];
    prompt_rules?: CallContext['promptRules'];
  }): CallContext => ({
    source: connection.info?.kind ?? 'unknown',
    project: params.project,
    runId: params.run_id,
    grant: params.grant,
    promptRules: params.prompt_rules,
    cancel: connection.closedSignal,
  });

  peer.onNotification('bridge.register', ({ origin }) => {
    connection.origin = origin;
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
    if (first) {
      services.events.append('client.connected', {
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
  }));
  peer.handle('daemon.ping', ({ payload }) =>
    payload === undefined ? { time: Date.now() } : { payload, time: Date.now() },
  );
  peer.handle('daemon.shutdown', ({ reason }) => {
    // Answer first; stop once the answer is on its way.
    setImmediate(() => services.shutdown(reason ?? `requested by ${connection.label}`));
    return { stopping: true as const };
  });

  peer.handle('tools.list', () => ({ tools: services.gateway.list() }));
  peer.handle('tools.call', (params) => services.gateway.call(params, callContext(params)));
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

  peer.handle('policy.explain', (params) =>
    services.gateway.explain({ name: params.tool, input: params.input }, callContext(params)),
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
  peer.handle('policy.set_template', ({ template, project }) => {
    const updated = services.policy.setTemplate(template, project);
    services.recordPolicyChange(
      `project ${updated.id} set to the ${updated.template ?? template} template`,
      connection.label,
    );
    return { project: updated };
  });

  peer.handle('approvals.list', ({ status, limit }) => ({ approvals: services.approvals.list(status, limit) }));
  peer.handle('approvals.answer', ({ id, decision, scope, message }) => ({
    approval: services.approvals.answer(id, { decision, scope, message }, connection.label),
  }));

  peer.handle('audit.list', ({ limit, before_seq, after_seq }) => ({
    records: services.audit.list({
      limit,
      ...(before_seq !== undefined ? { beforeSeq: before_seq } : {}),
      ...(after_seq !== undefined ? { afterSeq: after_seq } : {}),
    }),
  }));
  peer.handle('audit.verify', () => services.audit.verify());

  peer.handle('safety.stop', ({ reason }) => services.emergency.engage(reason ?? 'stop requested', connection.label));
  peer.handle('safety.reset', () => services.emergency.reset(connection.label));
  peer.handle('safety.status', () => services.emergency.state());

  const { runs } = services;
  peer.handle('runs.start', ({ goal, project, session_id, limits }) => ({
    run: runs.start({ goal, project, sessionId: session_id, limits }, connection.label),
  }));
  peer.handle('runs.list', ({ state, session_id, limit }) => ({
    runs: runs.list({ ...(state ? { state } : {}), ...(session_id ? { sessionId: session_id } : {}), limit }),
  }));
  peer.handle('runs.get', ({ id, steps, steps_from }) => ({
    run: runs.view(id),
    ...(steps ? { steps: runs.steps(id, steps_from) } : {}),
  }));
  peer.handle('runs.pause', ({ id }) => ({ run: runs.pause(id) }));
  peer.handle('runs.resume', ({ id }) => ({ run: runs.resume(id) }));
  peer.handle('runs.stop', async ({ id, reason }) => ({
    run: await runs.stop(id, reason ?? `stopped by ${connection.label}`),
  }));
  peer.handle('runs.steer', ({ id, text }) => ({ run: runs.steer(id, text, connection.label) }));
  peer.handle('runs.answer', ({ id, answer }) => ({ run: runs.answer(id, answer, connection.label) }));

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
  peer.handle('sessions.list', ({ search, project, limit, offset }) => ({
    sessions: runs.sessions
      .list({
        ...(search !== undefined ? { search } : {}),
        ...(project !== undefined ? { project } : {}),
        limit,
        offset,
      })
      .map(sessionView),
  }));
  peer.handle('sessions.get', ({ id }) => ({
    session: sessionView(runs.sessions.get(id)),
    runs: runs.list({ sessionId: id, limit: 1000 }),
  }));
  peer.handle('sessions.rename', ({ id, title }) => {
    const session = runs.sessions.rename(id, title);
    services.events.append('session.changed', { session_id: id, change: 'renamed' });
    return { session: sessionView(session) };
  });
  peer.handle('sessions.delete', async ({ id }) => {
    runs.sessions.get(id);
    for (const run of runs.list({ sessionId: id, state: 'active', limit: 1000 })) {
      await runs.stop(run.id, 'its session was deleted');
    }
    runs.sessions.delete(id);
    services.events.append('session.changed', { session_id: id, change: 'deleted' });
    return { deleted: true as const };
  });
  peer.handle('sessions.messages', ({ id, after_seq, limit }) => ({
    messages: runs.sessions.messages(id, { afterSeq: after_seq, limit }).map((message) => ({
      seq: message.seq,
      role: message.role,
      content: message.content,
      created_at: message.createdAt,
    })),
  }));

  registerSettingsHandlers(connection, services);
  registerScheduleHandlers(connection, services.schedules);

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
