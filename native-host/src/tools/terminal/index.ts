import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { AGENT_PROCESS_ENV, AppError } from '@nextai/shared';

import { lexicalAbsolute } from '../../policy/guards/paths.js';
import { inSandboxTmp } from '../../sandbox/places.js';
import { quarantineGitRedirects, type GitMetadata } from '../../sandbox/git-metadata.js';
import { describeLostReach, lostReach, type SandboxReach } from '../../sandbox/reach.js';
import type { SandboxService } from '../../sandbox/service.js';
import { inheritedEnvironment } from '../../core/subprocess.js';
import type { HandlerGroup, HostServices, SandboxPlacement } from '../types.js';
import { TerminalSession, type LaneName } from './lanes.js';
import { processControlFor, type ProcessControl } from './processes.js';
import { ShellSession, type CallResult, type ShellLauncher } from './session.js';
import { shellSpec, type ShellSpec } from '../../platform/shells.js';

export const DEFAULT_SESSION = 'default';
export const MAX_SESSIONS = 16;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface TerminalOptions {
  /** Sessions alive at once, the default one included. */
  maxSessions?: number;
  /** Cap per stream and call, in bytes (output.ts STREAM_CAP_BYTES by default). */
  outputCap?: number;
  /** Where sessions make their private directories (the OS temp directory by default). */
  tmpRoot?: string;
  processes?: ProcessControl;
}

export interface TerminalHandlers extends HandlerGroup<'bash_execute' | 'bash_session'> {
  /**
   * Where a session's next command runs (undefined id: the default session), for the policy to
   * judge commands there; undefined when there is no such session (the default one starts in
   * the home folder). Read-only: it never starts a session.
   */
  sessionCwd(id: string | undefined): string | undefined;
  /**
   * The policy may have changed (the daemon calls this on `policy.changed`; every bash_execute
   * checks too): sandboxed shells that reach what it no longer allows are ended.
   */
  policyChanged(): Promise<void>;
  /**
   * Ends every session — each shell and everything in its terminal session or below it — and
   * keeps the tools usable (the emergency stop; `dispose` is for the daemon's end). Resolves with
   * how many sessions there were. The default session starts anew at its next call; a call to
   * another one is told the stop ended it.
   */
  endAll(): Promise<number>;
}

/**
 * `bash_execute` and `bash_session`: persistent shells (session.ts), created on demand and kept
 * until killed or the daemon stops. A call without `session_id` runs in the default session,
 * which is started by the first such call; other sessions come from `bash_session create`.
 */
export function createTerminalHandlers(services: HostServices, options: TerminalOptions = {}): TerminalHandlers {
  const sessions = new Map<string, TerminalSession>();
  const sandbox = services.sandbox;
  const root = options.tmpRoot;
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  const processes = options.processes ?? processControlFor(services.platform);
  let created = 0;
  let disposed = false;
  /** Sessions the emergency stop ended, until they are used or made again (to say so). */
  const endedByStop = new Set<string>();
  /** Each sandboxed shell's grant and what its sandbox was given when it (last) started. */
  const confined = new WeakMap<
    ShellSession,
    { granted: readonly string[] | undefined; reach: () => SandboxReach | undefined }
  >();
  /** The settings the shells were last checked against (see enforcePolicy). */
  let checkedAgainst = reachSettings(services.security());

  // The daemon's own environment may hold API keys: shells get the small inherited set, and
  // settings that keep programs from paging, colouring or prompting where nobody can answer.
  const inherited = inheritedEnvironment();
  const environment = (shell: string): Record<string, string> => ({
    HOME: services.homeDir,
    ...inherited,
    SHELL: shell,
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    // Marks the shell and all it starts as the agent's: the daemon refuses them the person's
    // authority, and the emergency stop ends what carries this daemon's mark wherever it went.
    [AGENT_PROCESS_ENV]: services.agentMark ?? '1',
  });

  const describe = (session: TerminalSession) => ({
    session_id: session.id,
    shell: session.shell.name,
    cwd: session.cwd(),
    created_at: session.createdAt.toISOString(),
  });
  const list = () => [...sessions.values()].map(describe);
  const names = () => (sessions.size > 0 ? [...sessions.keys()].join(', ') : 'none');

  const open = (id: string, shellName: string): TerminalSession => {
    if (disposed) throw new AppError('UNAVAILABLE', 'The terminal tools are shutting down with the daemon.');
    if (sessions.size >= maxSessions) {
      throw new AppError(
        'INVALID_INPUT',
        `There are already ${sessions.size} shell sessions (at most ${maxSessions}): ${names()}. ` +
          'Kill one you no longer need with bash_session action "kill", or run the command in an existing one.',
        { details: { sessions: [...sessions.keys()], max: maxSessions } },
      );
    }
    const inheritedPath = inherited.PATH ?? inherited.Path;
    const shell = shellSpec(shellName, services.platform, inheritedPath);
    // The sandboxed shells of a session share one private /tmp, so a file one writes there the
    // next can read (a download in the shell with the network, unpacked in the one without).
    const sandboxTmp = sandbox ? fs.mkdtempSync(path.join(root ?? os.tmpdir(), 'nextai-sandbox-tmp-')) : undefined;
    if (sandboxTmp) fs.chmodSync(sandboxTmp, 0o700);
    const session = new TerminalSession(
      id,
      shell,
      services.homeDir,
      (placement, cwd) => {
        const launcher =
          sandbox && sandboxTmp && placement?.mode === 'confined'
            ? sandboxLauncher(sandbox, placement, sandboxTmp, shell, services.homeDir)
            : undefined;
        const started = new ShellSession({
          id,
          shell,
          platform: services.platform,
          cwd,
          env: environment(shell.file),
          log: services.log.child(`terminal:${id}`),
          processes,
          tmpRoot: root,
          outputCap: options.outputCap,
          launcher,
        });
        if (launcher && placement?.mode === 'confined') {
          confined.set(started, { granted: placement.granted, reach: launcher.reach });
        }
        return started;
      },
      sandboxTmp,
      sandbox ? (dir) => inSandboxTmp(dir, services.homeDir, sandbox.folders().writable) : undefined,
    );
    sessions.set(id, session);
    return session;
  };

  /**
   * Where a command runs: as the policy placed it. With a sandbox here, a call the gateway did
   * not place (none should reach a handler another way) runs confined, without the network.
   */
  const placementOf = (placement: SandboxPlacement | undefined): SandboxPlacement | undefined =>
    sandbox ? (placement ?? { mode: 'confined', network: 'none' }) : undefined;

  const lookup = (id: string | undefined): TerminalSession => {
    const wanted = id ?? DEFAULT_SESSION;
    const session = sessions.get(wanted);
    if (session) return session;
    // The default session exists whenever it is asked for, also after it was killed.
    if (wanted === DEFAULT_SESSION) return open(DEFAULT_SESSION, 'bash');
    const why = endedByStop.has(wanted) ? ' The emergency stop ended it, with everything it had started.' : '';
    throw new AppError(
      'NOT_FOUND',
      `There is no shell session "${wanted}".${why} Existing sessions: ${names()}. ` +
        'Omit session_id to use the default session, or create one with bash_session action "create".',
      { details: { session_id: wanted, sessions: [...sessions.keys()] } },
    );
  };

  const newId = (): string => {
    let id: string;
    do {
      created += 1;
      id = `session-${created}`;
    } while (sessions.has(id));
    return id;
  };

  const kill = async (session: TerminalSession) => {
    sessions.delete(session.id);
    await session.kill();
  };

  /**
   * A person who narrows the allowed folders (or hides more) means it for what already runs: a
   * sandboxed shell keeps the binds it started with, so each one that reaches what the policy no
   * longer allows is ended, and its session's next call says why. A wider policy ends nothing.
   * The shells leave their sessions before this first awaits.
   */
  const enforcePolicy = async (): Promise<void> => {
    const settings = reachSettings(services.security());
    if (!sandbox || disposed || isDeepStrictEqual(settings, checkedAgainst)) return;
    checkedAgainst = settings;
    const stillAllowed = (shell: ShellSession): string | undefined => {
      const known = confined.get(shell);
      const started = known?.reach();
      if (!known || !started) return undefined;
      const lost = lostReach(started, sandbox.folders(known.granted));
      return lost && describeLostReach(lost, services.homeDir);
    };
    await Promise.all(
      [...sessions.values()].map(async (session) => {
        for (const { lane, reason } of await session.endShells(stillAllowed)) {
          services.log.info('ended a terminal shell: the policy no longer allows what its sandbox reaches', {
            session: session.id,
            shell: lane,
            reason,
          });
          services.emit('terminal.shell_ended', { session_id: session.id, shell: lane, reason });
        }
      }),
    );
  };

  return {
    handlers: {
      bash_execute: async (input, context) => {
        // Also here, whether or not the change was announced: no command runs in a shell whose
        // sandbox reaches what the policy in force no longer allows.
        await enforcePolicy();
        const session = lookup(input.session_id);
        const restarted = endedByStop.delete(session.id);
        const workingDir =
          input.working_dir === undefined ? undefined : checkedDirectory(input.working_dir, session, services);
        const result = await session.run(
          {
            command: input.command,
            workingDir,
            timeoutMs: input.timeout,
            signal: context.signal,
          },
          placementOf(context.sandbox),
        );
        if (restarted) {
          result.notices.unshift(
            `Session "${session.id}" runs in a new shell: the emergency stop ended the previous one and ` +
              'everything it had started (its variables, functions and background jobs are gone).',
          );
        }
        return toOutput(session.id, result);
      },

      bash_session: async (input, context) => {
        switch (input.action) {
          case 'create': {
            const id = input.session_id ?? newId();
            if (!SESSION_ID.test(id)) {
              throw new AppError(
                'INVALID_INPUT',
                `"${id}" cannot be a session id: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
              );
            }
            if (sessions.has(id)) {
              throw new AppError('INVALID_INPUT', `Session "${id}" already exists. Existing sessions: ${names()}.`, {
                details: { session_id: id },
              });
            }
            const session = open(id, input.shell);
            endedByStop.delete(id);
            try {
              // Started now, so a shell that cannot start fails here rather than at the first command.
              await session.start(placementOf(context.sandbox));
            } catch (error) {
              await kill(session);
              throw error;
            }
            return { session_id: id, sessions: list() };
          }
          case 'list':
            return { sessions: list() };
          case 'kill': {
            if (input.session_id === undefined) {
              throw new AppError('INVALID_INPUT', `Give the session_id to kill. Existing sessions: ${names()}.`);
            }
            const session = sessions.get(input.session_id);
            if (!session) {
              throw new AppError(
                'NOT_FOUND',
                `There is no shell session "${input.session_id}". Existing sessions: ${names()}.`,
                { details: { session_id: input.session_id, sessions: [...sessions.keys()] } },
              );
            }
            await kill(session);
            return { session_id: session.id, sessions: list() };
          }
        }
      },
    },

    sessionCwd: (id) => (disposed ? undefined : sessions.get(id ?? DEFAULT_SESSION)?.cwd()),

    policyChanged: enforcePolicy,

    endAll: async () => {
      const all = [...sessions.values()];
      // Out of the map before anything is awaited: no call can reach one of them afterwards.
      sessions.clear();
      for (const session of all) endedByStop.add(session.id);
      await Promise.allSettled(all.map((session) => session.kill()));
      return all.length;
    },

    dispose: async () => {
      disposed = true;
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((session) => session.kill()));
    },
  };
}

/** The settings a running sandbox's folders come from: when they are unchanged, no shell needs a look. */
function reachSettings(security: { allowed_directories: readonly string[]; denied_patterns: readonly string[] }) {
  return { allowed: security.allowed_directories, denied: security.denied_patterns };
}

/** `working_dir` as an absolute path (relative to the session's directory, `~` = home), checked to be a directory. */
function checkedDirectory(value: string, session: TerminalSession, services: HostServices): string {
  const absolute = lexicalAbsolute(value, session.cwd() ?? services.homeDir, services.homeDir, services.platform);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new AppError('NOT_FOUND', `The working directory ${absolute} does not exist.`, {
        details: { working_dir: value, path: absolute },
      });
    }
    throw new AppError(
      'PERMISSION_DENIED',
      `Cannot use ${absolute} as the working directory (${code ?? String(error)}).`,
      {
        cause: error,
        details: { working_dir: value, path: absolute },
      },
    );
  }
  if (!stat.isDirectory()) {
    throw new AppError('INVALID_INPUT', `The working directory ${absolute} is a file, not a directory.`, {
      details: { working_dir: value, path: absolute },
    });
  }
  return absolute;
}

function toOutput(sessionId: string, result: CallResult & { lane: LaneName }) {
  return {
    stdout: result.stdout,
    stderr: result.stderr,
    exit_code: result.exitCode,
    session_id: sessionId,
    timed_out: result.timedOut,
    truncated: result.truncated,
    ...(result.notices.length > 0 ? { notices: result.notices } : {}),
    ...(result.lane === 'unconfined' ? {} : { sandbox: result.lane }),
  };
}

/**
 * Starts a session's shell inside the sandbox: the folders of the policy (narrowed by the
 * call's grant), the session's private /tmp, and its own call files visible read-only (the shell
 * sources them and writes to their FIFOs; it can change neither).
 */
function sandboxLauncher(
  sandbox: SandboxService,
  placement: Extract<SandboxPlacement, { mode: 'confined' }>,
  tmpDir: string,
  shell: ShellSpec,
  homeDir: string,
): ShellLauncher & { reach(): SandboxReach | undefined } {
  // The repositories the shell's sandbox protects, once it has started.
  let metadata: GitMetadata | undefined;
  // What the policy gave the shell that runs now (each new shell of the session asks again).
  let reach: SandboxReach | undefined;
  return {
    reach: () => reach,
    wrap: (start, privateDir) => {
      const profile = sandbox.profile({
        granted: placement.granted,
        network: placement.network,
        tmpDir,
        cwd: start.cwd,
        visible: [privateDir],
      });
      // A folder the sandbox does not show (the computer's own /tmp) cannot be started in: home instead.
      if (inSandboxTmp(start.cwd, homeDir, profile.writable)) profile.cwd = homeDir;
      metadata = { readOnly: profile.readOnly, pinned: profile.pinned };
      reach = { writable: profile.writable, hidden: profile.hidden };
      return sandbox.prepare([shell.file, ...shell.args], profile, start.env, { ownTerminal: true });
    },
    shellPid: (startedPid) => sandbox.commandPid(startedPid),
    afterCall: () =>
      metadata
        ? quarantineGitRedirects(metadata).map(
            (planted) =>
              `NextAI moved ${planted} into ${path.dirname(planted)}/nextai-quarantine: made in the sandbox, it would have made git read another configuration (and run its hooks) the next time you use git there.`,
          )
        : [],
  };
}
