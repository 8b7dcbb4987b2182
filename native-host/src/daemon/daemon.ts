import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { AppError, PROTOCOL_VERSION, VERSION, type DaemonInfo, type Platform } from '@nextai/shared';

import { modelTimeouts, readModelConfig } from '../agent/model-config.js';
import { readBrowserConfig } from '../browser/browser-config.js';
import { findChromium } from '../browser/headless/chromium-path.js';
import { HeadlessBrowser } from '../browser/headless/headless-browser.js';
import { navigationRules } from '../browser/navigation-rules.js';
import { readUploadFile } from '../browser/upload-file.js';
import { agentMarkFor, endMarkedProcesses } from '../platform/agent-processes.js';
import { LaunchedApps } from '../platform/launched-apps.js';
import { OwnSurfaces } from '../tools/input/own-surfaces.js';
import { locate } from '../tools/files/locate.js';
import { DomainGuard } from '../policy/guards/domains.js';
import { WebProvenance } from '../policy/web-provenance.js';
import { isLocalEndpoint, priceOf } from '../agent/pricing.js';
import { createProvider, selectProvider } from '../agent/providers/index.js';
import { RunManager } from '../agent/run-manager.js';
import { durably } from '../agent/run-store.js';
import { onRunEnded } from '../agent/run-transition.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { LoopOptions, ModelChoice } from '../agent/loop/run-loop.js';
import { clearStoppedMarker, writeStoppedMarker } from '../client/daemon-launcher.js';
import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import { deliverNotification } from '../platform/notify.js';
import { releaseHeldInputs } from '../platform/release-inputs.js';
import { assessEnvFactory } from '../policy/assess-env.js';
import { assessInput } from '../policy/assess.js';
import { terminalInputOn } from '../policy/channels/terminal-input.js';
import { PolicyStore } from '../policy/policy-store.js';
import { protectedPaths } from '../policy/protected-paths.js';
import { initShellAnalyzer } from '../policy/shell/index.js';
import { createDesktop } from '../platform/desktop-select.js';
import type { Desktop } from '../platform/desktop.js';
import { DaemonTaskExecutor } from '../scheduler/agent-executor.js';
import { systemClock, type Clock } from '../scheduler/clock.js';
import { Heartbeat } from '../scheduler/heartbeat/heartbeat.js';
import type { PresenceMonitor } from '../scheduler/presence/presence.js';
import { createPresence } from '../scheduler/presence/select-presence.js';
import { projectForbids } from '../scheduler/project-forbids.js';
import { ScheduleService } from '../scheduler/schedule-service.js';
import { ScheduleStore } from '../scheduler/schedule-store.js';
import { readSchedulerConfig } from '../scheduler/scheduler-config.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { createHostHandlers, type HostToolSet } from '../tools/host-handlers.js';
import { ScreenSpace } from '../tools/screen-space.js';
import type { HostHandlers, HostServices } from '../tools/types.js';
import { runCommand } from '../core/subprocess.js';
import { ApprovalQueue } from '../gateway/approvals.js';
import { CallGrants, grantedFileGuard } from '../gateway/call-grant.js';
import { AuditLog } from '../gateway/audit/index.js';
import { ClientConnection } from './client-connection.js';
import { DaemonSocket } from './daemon-socket.js';
import { RoundRobin } from './round-robin.js';
import { PolicyChangeRecorder } from '../gateway/config-fingerprint.js';
import { AgentInputActivity } from '../gateway/agent-input.js';
import { judgeProcess, procFacts, psFacts, type ProcessFacts, type ProcessVerdict } from './identity/agent-process.js';
import { AuthorityGate } from './identity/authority.js';
import { identifyCaller } from './identity/caller.js';
import { peerOf } from './identity/peer-process.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EmergencyStop } from '../gateway/emergency-stop.js';
import { EventLog } from '../storage/event-log.js';
import { ImageStore } from '../storage/image-store.js';
import { InstanceLock, ensurePrivateDirectory } from './instance-lock.js';
import { registerRpcHandlers, type DaemonServices } from './rpc-handlers.js';
import { recordPolicyChange } from './policy-change.js';
import { watchStorage } from './storage-alerts.js';
import { heldAfterReplacement, restartOnReplacedDatabase, takeReplacedMarker } from './database-replaced.js';
import { daemonStopWork, drainBeforeStop } from './graceful-stop.js';
import { stopGraceMs } from './stop-config.js';
import { ToolGateway, type CallContext, type ToolCallRequest } from '../gateway/tool-gateway.js';
import { createSandbox } from '../sandbox/select.js';
import { SandboxService } from '../sandbox/service.js';

/** Clients connected at once, at most; the next one is refused with BUSY until one closes. */
export const MAX_CONNECTIONS = 512;

export interface DaemonOptions {
  paths: DataPaths;
  platform: Platform;
  log: Logger;
  /** Replaces some of the host tools' handlers (tests). */
  handlers?: Partial<HostHandlers>;
  /** The OS adapter; the one for `platform` when omitted (tests pass a fake). */
  desktop?: Desktop;
  homeDir?: string;
  /** The model runs use; from config.json and the environment when omitted. */
  model?: () => ModelChoice;
  loopOptions?: Partial<LoopOptions>;
  /** The scheduler's clock (tests and the bench step it by hand). */
  clock?: Clock;
  /** Power and presence; the one for `platform` when omitted. */
  presence?: PresenceMonitor;
  /** The sandbox; the one for `platform` when omitted. */
  sandbox?: SandboxService;
}

/**
 * The long-running process that owns all state: the SQLite database, the event log, the policy,
 * approvals, the audit log and the tools. Clients reach it over a local socket only its user can
 * open. This is the composition root: every service is built here and nowhere else.
 */
export class Daemon {
  readonly info: DaemonInfo;
  /** Resolves when the daemon has fully stopped. */
  readonly stopped: Promise<void>;
  readonly gateway: ToolGateway;
  readonly approvals: ApprovalQueue;
  readonly emergency: EmergencyStop;
  readonly runManager: RunManager;
  readonly scheduler: Scheduler;
  readonly schedules: ScheduleService;
  readonly heartbeat: Heartbeat;
  private readonly presence: PresenceMonitor;
  private readonly connections = new Set<ClientConnection>();
  /** Where the connections' requests take turns: one client's flood does not hold up another's ping. */
  private readonly turns = new RoundRobin();
  private readonly startedAt = Date.now();
  private readonly services: DaemonServices;
  private readonly ownSurfaces: OwnSurfaces;
  private readonly hostTools: HostToolSet;
  /** The operating-system sandbox commands and apps run in. */
  readonly sandbox: SandboxService;
  /** The daemon's own headless browser for browser tools when no extension is connected. */
  private readonly headless: HeadlessBrowser | undefined;
  private stopping = false;
  /** The database file was replaced under it: it stops to be started again on the new one (database-replaced.ts). */
  private restartWanted = false;
  /** Aborted when a stop asked again means now: the graceful stop in progress waits no longer. */
  private readonly hurry = new AbortController();
  private resolveStopped!: () => void;

  private constructor(
    private readonly options: DaemonOptions,
    private readonly lock: InstanceLock,
    private readonly db: Db,
    readonly events: EventLog,
    private readonly audit: AuditLog,
    private readonly policy: PolicyStore,
    private readonly server: DaemonSocket,
  ) {
    const { paths, platform, log } = options;
    const homeDir = options.homeDir ?? os.homedir();
    this.info = {
      version: VERSION,
      protocol_version: PROTOCOL_VERSION,
      pid: process.pid,
      platform,
      arch: os.arch(),
      data_dir: paths.dataDir,
      started_at: new Date(this.startedAt).toISOString(),
    };
    this.stopped = new Promise((resolve) => {
      this.resolveStopped = resolve;
    });
    this.approvals = new ApprovalQueue(db, events);
    const guarded = protectedPaths(paths, platform, homeDir, process.env, log);
    // Everything the agent starts runs in the operating system's sandbox, so that most commands
    // need no approval; the policy judges against the same folders the sandbox is built from.
    const sandbox =
      options.sandbox ??
      new SandboxService({
        sandbox: createSandbox(platform, { stateDir: path.join(paths.runDir, 'sandbox') }),
        platform,
        homeDir,
        security: () => policy.current.config.security,
        own: guarded,
      });
    this.sandbox = sandbox;
    const sandboxStatus = sandbox.status();
    if (!sandboxStatus.available) {
      log.warn('no sandbox: every command and app asks the person first', { reason: sandboxStatus.reason.en });
    }
    // Commands are judged in their shell session's current directory; hostTools is set below,
    // before the gateway can assess anything.
    const assessEnv = assessEnvFactory(
      platform,
      homeDir,
      guarded,
      (sessionId) => this.hostTools.terminalCwd(sessionId),
      sandbox,
    );
    // Windows of apps in the sandbox report pids of its own PID namespace: the sandbox knows theirs.
    const desktop =
      options.desktop ??
      createDesktop(platform, process.env, homeDir, { windowPid: (machine, pid) => sandbox.windowPid(machine, pid) });
    const notify = (title: string, body: string) => deliverNotification(desktop.notifications, title, body);
    // A database that cannot be written is a condition: status, an event and a notification say so.
    const storage = watchStorage({
      db,
      events,
      paths,
      notifications: desktop.notifications,
      log: log.child('storage'),
    });
    // data.db replaced or removed while it runs: it keeps what the old file held and restarts on the new one.
    restartOnReplacedDatabase({
      db,
      paths,
      storage,
      log: log.child('storage'),
      restart: (reason) => {
        if (this.stopping) return;
        this.restartWanted = true;
        this.stop(reason, { graceMs: this.stopGraceMs() }).catch((error: unknown) =>
          log.error('error while stopping', { error: (error as Error).message }),
        );
      },
    });
    // The grant of the call in progress (set where runs and schedules enter the gateway, below):
    // the file tools check a path again as they act, narrowed by it.
    const callGrants = new CallGrants();
    const callTool = (request: ToolCallRequest, context: CallContext) =>
      callGrants.run(context.grant, () => this.gateway.call(request, context));
    // Every app the agent starts, so the emergency stop can end them. One that starts
    // while the stop is on (a launch under way when it came) is ended at once.
    const launchedApps = new LaunchedApps({
      platform,
      stopped: () => this.emergency?.state().active ?? false,
      log: log.child('apps'),
    });
    // What every shell and app the agent starts carries in its environment (NEXTAI_AGENT_PROCESS):
    // the same for this data directory across restarts, so the stop also finds what a previous
    // daemon started, and never what another NextAI (another NEXTAI_HOME) did.
    const agentMark = agentMarkFor(paths.dataDir);
    // The one image store, in data.db: tools' large payloads and the images runs hold.
    const blobs = new ImageStore(db);
    blobs.prune();
    // Where earlier versions kept payloads as files, for an hour: nothing reads or prunes them now
    // (their references answer NOT_FOUND), so they go rather than stay on disk for good.
    fs.rmSync(path.join(paths.screenshotsDir, 'blobs'), { recursive: true, force: true });
    // When the agent last used the mouse or keyboard: clicks in the side panel right after are not
    // taken as the person's, and its next click or key waits for the browser's report of NextAI's
    // pages on screen (what its previous input opened or focused).
    const agentInput = new AgentInputActivity();
    this.ownSurfaces = new OwnSurfaces({
      sinceLastInput: () => agentInput.sinceLastEnded(),
      ask: () => this.askBrowsersForSurfaces(),
      browsersConnected: () => [...this.connections].some((connection) => connection.isBrowserBridge()),
      devicePixels: platform !== 'macos',
    });
    const hostServices: HostServices = {
      platform,
      paths,
      log: log.child('tools'),
      desktop,
      screenSpace: new ScreenSpace(() => desktop.screen.screenSize()),
      blobs,
      security: () => policy.current.config.security,
      homeDir,
      // The same file guard the policy decides with, asked again when a file tool acts.
      fileGuard: grantedFileGuard(callGrants, () => assessEnv(policy.current.config.security).checkFile, homeDir),
      launchedApps,
      agentMark,
      ownSurfaces: this.ownSurfaces,
      emit: (type, data) => events.append(type, data),
      sandbox,
    };
    // Shell sessions keep their scripts and FIFOs under the data directory, not the OS temp folder:
    // what a daemon that was killed left there is cleared here (this daemon holds the lock, so no
    // other daemon uses it) instead of piling up.
    const terminalRoot = path.join(paths.runDir, 'terminals');
    fs.rmSync(terminalRoot, { recursive: true, force: true });
    fs.mkdirSync(terminalRoot, { recursive: true, mode: 0o700 });
    // Apps started in the sandbox end with the daemon (bubblewrap's --die-with-parent): their
    // private folders go too.
    fs.rmSync(path.join(paths.runDir, 'sandbox-apps'), { recursive: true, force: true });
    this.hostTools = createHostHandlers(hostServices, { terminalRoot });
    // A narrower policy reaches what already runs: shells whose sandbox was set up with folders it
    // no longer allows end now, not at their next command; background jobs with them.
    events.subscribe((event) => {
      if (event.type !== 'policy.changed') return;
      queueMicrotask(() => {
        this.hostTools.policyChanged().catch((error: unknown) =>
          log.warn('could not end the terminal shells the new policy no longer allows', {
            error: (error as Error).message,
          }),
        );
      });
    });
    const browserConfig = readBrowserConfig(paths.configFile, log);
    const chromiumPath = findChromium(platform, browserConfig.executable_path, process.env);
    let domainGuard: { security: unknown; guard: DomainGuard } | undefined;
    const domains = () => {
      const security = policy.current.config.security;
      if (domainGuard?.security !== security) domainGuard = { security, guard: new DomainGuard(security) };
      return domainGuard.guard;
    };
    this.headless = chromiumPath
      ? new HeadlessBrowser({
          executablePath: chromiumPath,
          userDataDir: browserConfig.user_data_dir ?? path.join(paths.dataDir, 'browser', 'headless-profile'),
          checkHost: (url) => {
            const verdict = domains().check(url);
            return {
              allowed: verdict.allowed,
              reason: verdict.reason?.en,
              explicitlyAllowed: verdict.explicitlyAllowed,
            };
          },
          log: log.child('headless'),
        })
      : undefined;
    const runSteps = (runId: string) =>
      this.runManager.runs
        .steps(runId)
        .filter((step) => step.kind === 'tool_call' && typeof step.intent.tool === 'string')
        .map((step) => ({
          tool: step.intent.tool as string,
          output: (step.result as { output?: unknown } | null)?.output,
        }));
    const webProvenance = new WebProvenance(runSteps);
    // What a run read and the grant its headless tabs were held to live as long as the run; an
    // ended run reads no more pages and runs no more commands (a daemon is up for weeks).
    onRunEnded(events, (runId) => {
      webProvenance.forget(runId);
      this.headless?.forgetRun(runId);
    });
    this.gateway = new ToolGateway({
      agentInput,
      handlers: {
        ...this.hostTools.handlers,
        // The agent's own tools belong to runs; runManager is set below, before any call.
        ask_user: (input, context) => this.runManager.askUser(input, context),
        todo_write: async (input, context) => this.runManager.todoWrite(input, context),
        ...options.handlers,
      },
      platform,
      paths,
      log: log.child('tools'),
      events,
      policy,
      approvals: this.approvals,
      audit,
      emergency: () => this.emergency.state(),
      assess: (tool, input, grant) => assessInput(tool, input, assessEnv(policy.current.config.security), grant),
      notify,
      browserClients: () => [...this.connections].filter((connection) => connection.canRunBrowserTools()).reverse(),
      headless: () => this.headless,
      navigationRules: (grant) => navigationRules(policy.current.config.security, grant?.restrictions?.allowed_domains),
      webProvenance,
      readUpload: (file) =>
        readUploadFile(
          file,
          (input) => locate(hostServices, input, 'read', 'read').real,
          policy.current.config.security.max_file_size,
        ),
      terminalInput: terminalInputOn(desktop, platform),
      stopping: () => this.stopping,
    });
    this.runManager = new RunManager({
      db,
      events,
      callTool,
      availableTools: () => this.gateway.availableTools(),
      model: options.model ?? (() => chooseModel(paths.configFile)),
      projectId: (name) => policy.project(name).id,
      approvals: this.approvals,
      images: blobs,
      systemPrompt: (run) =>
        buildSystemPrompt({ platform, project: run.project, started: new Date(run.createdAt), homeDir }),
      // Set just below; read only when a run starts or resumes.
      emergency: () => this.emergency.state(),
      log: log.child('runs'),
      ...(options.loopOptions ? { loopOptions: options.loopOptions } : {}),
    });
    // A person may be anywhere but in the browser: every new approval request also reaches them as
    // an OS notification (the badge and the panel show it too).
    events.subscribe((event) => {
      if (event.type !== 'approval.requested') return;
      const { tool, risk, reason } = event.data as { tool: string; risk: string; reason: string };
      notify(
        `NextAI Agent wants to use ${tool}`,
        `${risk} risk — ${reason}\nAnswer in the side panel or with \`nextai approvals\`.`,
      ).catch((error: unknown) =>
        log.warn('could not send the approval notification', { error: (error as Error).message }),
      );
    });
    this.emergency = new EmergencyStop(
      db,
      {
        abortRunningCalls: async (reason) => {
          this.runManager.pauseAll(`emergency stop: ${reason}`);
          // Headless browsers close with the stop (docs/ARCHITECTURE.md, "Emergency stop").
          const [aborted] = await Promise.all([this.gateway.abortAll(reason), this.headless?.close()]);
          return aborted;
        },
        cancelPendingApprovals: (reason) => {
          for (const approval of this.approvals.list('pending', 1000)) this.approvals.cancel(approval.id, reason);
        },
        releaseInputs: () => releaseHeldInputs(desktop),
        endLaunchedApps: () => launchedApps.endAll(),
        endShellSessions: () => this.hostTools.endShellSessions(),
        endMarkedProcesses: () => endMarkedProcesses({ platform, mark: agentMark, log: log.child('stop') }),
        notify: async (title, body) => {
          const sent = await notify(title, body);
          return sent.delivered ? 'sent' : `not sent: ${sent.reason ?? 'unknown reason'}`;
        },
        record: ({ engaged, reason, by, aborted, appsEnded }) => {
          if (engaged) {
            events.append('emergency.engaged', {
              reason,
              by,
              aborted_calls: aborted,
              ...(appsEnded === undefined ? {} : { apps_ended: appsEnded }),
            });
          } else events.append('emergency.reset', { by });
        },
      },
      audit,
    );
    this.presence = options.presence ?? createPresence(platform, log.child('presence'));
    const clock = options.clock ?? systemClock;
    const schedulerConfig = () => {
      const { config, problems } = readSchedulerConfig(paths.configFile);
      if (problems.length > 0)
        log.warn('the scheduler section of config.json is not valid; using defaults', { problems });
      return config;
    };
    const scheduleStore = new ScheduleStore(db);
    this.scheduler = new Scheduler({
      store: scheduleStore,
      clock,
      executor: new DaemonTaskExecutor({
        callTool,
        events,
        runs: this.runManager,
        log: log.child('scheduler'),
      }),
      events,
      notify,
      presence: this.presence,
      emergency: () => this.emergency.state(),
      enabled: () => schedulerConfig().enabled,
      log: log.child('scheduler'),
      lifeFile: path.join(paths.runDir, 'scheduler-life.json'),
    });
    this.heartbeat = new Heartbeat({
      file: path.join(paths.dataDir, 'HEARTBEAT.md'),
      config: () => schedulerConfig().heartbeat,
      clock,
      runs: this.runManager,
      events,
      memory: {
        get: () => db.prepare("SELECT value FROM meta WHERE key = 'heartbeat'").pluck().get() as string | undefined,
        // Durable: losing "a heartbeat run is going" to a power cut would start a second run for
        // the same items while the first one resumes.
        set: (value) =>
          durably(db, () =>
            db
              .prepare(
                "INSERT INTO meta (key, value) VALUES ('heartbeat', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
              )
              .run(value),
          ),
      },
      presence: this.presence,
      emergency: () => this.emergency.state(),
      notify,
      log: log.child('heartbeat'),
    });
    this.schedules = new ScheduleService({
      store: scheduleStore,
      scheduler: this.scheduler,
      clock,
      checks: {
        projectId: (name) => policy.project(name).id,
        forbids: (tool, project) => projectForbids(policy, tool, project),
        explain: (step, project, grant) =>
          this.gateway.explain({ name: step.tool, input: step.input }, { source: 'schedule', project, grant }).decision,
      },
      presence: this.presence,
      heartbeat: () => this.heartbeat.view(),
      events,
    });
    // The emergency stop holds due runs back; its reset lets them go at once.
    events.subscribe((event) => {
      if (event.type === 'emergency.reset') queueMicrotask(() => this.scheduler.poke());
    });
    // Around sleep: everything written so far goes from the WAL into the database file, so a machine
    // that never wakes loses nothing; runs checkpoint after every step anyway, and resume after.
    this.presence.onSleep((sleeping) => {
      if (sleeping) {
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } catch (error) {
          log.warn('could not checkpoint the database before sleep', { error: (error as Error).message });
        }
      }
    });
    // Bookkeeping from a callback: never thrown out of it (EventLog.record).
    this.presence.onChange((state) =>
      events.record('power.changed', {
        on_battery: state.onBattery,
        screen_locked: state.screenLocked,
        sleeping: state.sleeping,
      }),
    );
    this.services = {
      info: this.info,
      startedAt: this.startedAt,
      events,
      gateway: this.gateway,
      policy,
      approvals: this.approvals,
      audit,
      emergency: this.emergency,
      runs: this.runManager,
      schedules: this.schedules,
      blobs,
      connections: () => this.connections,
      identify: async (connection) =>
        identifyCaller(connection.info, await connection.process, { peersKnowable: platform !== 'windows' }),
      authority: new AuthorityGate({ audit, agentInput }),
      ownSurfaces: this.ownSurfaces,
      shutdown: (reason, graceMs) => {
        const grace = graceMs ?? this.stopGraceMs();
        const runningCalls = daemonStopWork({ gateway: this.gateway, runs: this.runManager }).runningCalls();
        // Answer first; stop once the answer is on its way.
        setImmediate(() => {
          this.stop(reason, { stayStopped: true, graceMs: grace }).catch((error: unknown) =>
            log.error('error while stopping', { error: (error as Error).message }),
          );
        });
        return { graceMs: grace, runningCalls };
      },
      stopping: () => this.stopping,
      recordPolicyChange: (summary, by) =>
        recordPolicyChange({ events, audit, configFile: paths.configFile }, summary, by),
      storage,
    };
    server.serve((socket) => this.accept(socket));
  }

  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths, log } = options;
    ensurePrivateDirectory(paths.dataDir);
    const lock = InstanceLock.acquire(paths);
    let db: Db | undefined;
    let policy: PolicyStore | undefined;
    let server: DaemonSocket | undefined;
    try {
      // Starting is the explicit act that ends a stop on purpose.
      clearStoppedMarker(paths);
      db = await openDatabase(paths.database, log.child('db'));
      const events = new EventLog(db);
      const audit = new AuditLog(db, paths.auditAnchor);
      const checked = audit.verify();
      if (!checked.ok) {
        // Reported loudly, never repaired: the person decides what to do with a tampered log.
        log.error('the audit log failed verification', { problem: checked.problem.message });
      }
      const policyChanges = new PolicyChangeRecorder(audit, paths.configFile);
      policy = new PolicyStore(paths.configFile, db, log.child('policy'), ({ accepted, problems, summary }) => {
        // In force whether or not it can be written: listeners (the terminals) must hear it now.
        if (accepted) events.announce('policy.changed', { source: 'config.json', summary });
        else events.announce('policy.rejected', { file: paths.configFile, problems });
        // The daemon's own writes are recorded by who asked for them (recordPolicyChange, in the
        // same turn of the event loop): only what is still unrecorded after it came from outside.
        setImmediate(() => {
          try {
            policyChanges.recordIfOutside({ accepted, problems }, 'while the daemon ran');
          } catch (error) {
            log.warn('could not record a change of config.json in the audit log', { error: (error as Error).message });
          }
        });
      });
      policyChanges.recordIfOutside(
        {
          accepted: policy.current.problem === undefined,
          problems: policy.current.problem ? [policy.current.problem] : [],
        },
        'while the daemon was not running',
      );
      policy.watch();
      await initShellAnalyzer();
      server = await DaemonSocket.open({ path: paths.socket, platform: options.platform, log: log.child('socket') });
      const daemon = new Daemon(options, lock, db, events, audit, policy, server);
      daemon.cancelOrphanedApprovals();
      events.record('daemon.started', { pid: process.pid, version: VERSION });
      // Before runs resume: a run whose task kept crashing the daemon is stopped, not resumed.
      daemon.scheduler.start();
      // A database replaced under the last daemon (a backup restored): its runs wait for the person.
      const replaced = takeReplacedMarker(paths, log);
      if (replaced) daemon.runManager.holdUnfinished(heldAfterReplacement(replaced));
      daemon.runManager.resumeUnfinished();
      daemon.heartbeat.start();
      log.info('daemon started', { pid: process.pid, socket: paths.socket, data_dir: paths.dataDir });
      return daemon;
    } catch (error) {
      void server?.close();
      policy?.close();
      db?.close();
      lock.release();
      throw error;
    }
  }

  /**
   * Stops accepting clients, aborts running tools, closes every connection and the database.
   * `stayStopped`: stopped on purpose by a person — nothing restarts it until they start it.
   * `graceMs` (0 when omitted): how long tool calls already running may finish first, their
   * results committed, so runs resume after the restart with them (graceful-stop.ts). Asked again
   * with no grace while it waits, it waits no longer.
   */
  async stop(reason: string, options: { stayStopped?: boolean; graceMs?: number } = {}): Promise<void> {
    const graceMs = options.graceMs ?? 0;
    if (this.stopping) {
      if (graceMs === 0) this.hurry.abort();
      return this.stopped;
    }
    this.stopping = true;
    this.options.log.info('daemon stopping', { reason, grace_ms: graceMs });
    if (options.stayStopped) writeStoppedMarker(this.options.paths, reason);
    // A stop completes even when the database cannot be written.
    this.events.record('daemon.stopping', { reason });
    this.heartbeat.stop();
    this.scheduler.stop();
    if (graceMs > 0) {
      const parts = { gateway: this.gateway, runs: this.runManager, events: this.events, log: this.options.log };
      await drainBeforeStop(parts, graceMs, this.hurry.signal);
    }
    await this.runManager.shutdown();
    await this.gateway.abortAll(`The daemon is stopping (${reason}).`, 1000);
    await this.hostTools.dispose();
    await this.headless?.close();
    const serverClosed = this.server.close();
    for (const connection of this.connections) connection.close();
    await serverClosed;
    this.presence.close();
    this.policy.close();
    this.db.close();
    this.lock.release();
    this.resolveStopped();
  }

  /** Whether it stopped to be started again: its database file was replaced or removed while it ran. */
  get restartRequested(): boolean {
    return this.restartWanted;
  }

  /** Whether a stop has begun (a signal then means: stop now). */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** The grace period a stop gives running tool calls, from config.json (`daemon.stop_grace_seconds`). */
  stopGraceMs(): number {
    return stopGraceMs(this.options.paths.configFile, this.options.log);
  }

  /** Direct calls (not agent runs) whose caller went away with the old daemon cannot be answered. */
  private cancelOrphanedApprovals(): void {
    for (const approval of this.approvals.list('pending', 10_000)) {
      if (approval.run_id === null) this.approvals.cancel(approval.id, 'the daemon restarted before it was answered');
    }
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    // Past the limit a client is told so and let go at once: a flood of connections neither
    // takes the daemon's file handles nor goes unsaid.
    if (this.connections.size >= MAX_CONNECTIONS) {
      this.server.refuse(socket, MAX_CONNECTIONS);
      return;
    }
    const connection = new ClientConnection(
      socket,
      this.options.log.child('rpc'),
      (closed) => this.onDisconnect(closed),
      {
        process: judgeConnection(socket, this.options.platform),
        turns: this.turns,
      },
    );
    this.connections.add(connection);
    registerRpcHandlers(connection, this.services);
  }

  /** Each connected browser's answer to where NextAI's pages are now (1 s at most). */
  private async askBrowsersForSurfaces(): Promise<void> {
    const browsers = [...this.connections].filter((connection) => connection.isBrowserBridge());
    await Promise.all(
      browsers.map(async (connection) => {
        try {
          const { surfaces } = await connection.peer.request('extension.surfaces', {}, { timeoutMs: 1000 });
          if (this.connections.has(connection)) this.ownSurfaces.report(connection.id, surfaces);
        } catch (error) {
          // An older extension, or one that is busy: what it last reported stands.
          this.options.log.debug('a browser did not say where its NextAI pages are', {
            client: connection.id,
            error: (error as Error).message,
          });
        }
      }),
    );
  }

  private onDisconnect(connection: ClientConnection): void {
    if (!this.connections.delete(connection)) return;
    connection.unsubscribeEvents?.();
    this.ownSurfaces.forget(connection.id);
    // Called from the socket's events: a database that cannot be written must not end the daemon.
    if (connection.info && !this.stopping) {
      this.events.record('client.disconnected', {
        client_id: connection.id,
        kind: connection.info.kind,
        name: connection.info.name,
      });
    }
  }
}

/** The model from config.json's `model` section and the environment (ANTHROPIC_* / OPENAI_*). */
function chooseModel(configFile: string): ModelChoice {
  const { config, problems } = readModelConfig(configFile);
  if (problems.length > 0) {
    throw new AppError('CONFIG_INVALID', `The model settings are not valid: ${problems.join('; ')}`);
  }
  const selection = selectProvider(config, process.env);
  return {
    provider: createProvider(selection, { retry: modelTimeouts(config), promptCache: config.prompt_cache !== 'off' }),
    model: selection.model,
    price: priceOf(selection.model, { local: isLocalEndpoint(selection.baseUrl) }),
  };
}

/** What the process on the other end of `socket` is, judged now, while it is surely the one that connected. */
async function judgeConnection(socket: net.Socket, platform: Platform): Promise<ProcessVerdict> {
  const peer = peerOf(socket, platform);
  if (!peer.ok) return judgeProcess(peer, process.pid, { parentOf: () => undefined, pidNamespaceOf: () => undefined });
  // On Linux every fact is read synchronously here, before the client can go away.
  return judgeProcess(peer, process.pid, await processFacts(platform));
}

/** How the daemon learns a caller's parents: /proc on Linux, one `ps` listing on macOS. */
async function processFacts(platform: Platform): Promise<ProcessFacts> {
  if (platform !== 'macos') return procFacts();
  const listing = await runCommand('ps', ['-A', '-o', 'pid=,ppid='], { timeoutMs: 5000 }).catch(() => undefined);
  // No listing: every parent is unknown, and the caller is refused rather than trusted.
  return psFacts(listing?.stdout ?? '');
}
