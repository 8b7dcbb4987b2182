import type {
  EventData,
  EventType,
  HandlerTable,
  HostToolName,
  Localized,
  Platform,
  SandboxNetwork,
  SecurityConfig,
  ToolHandler,
} from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import type { Desktop } from '../platform/desktop.js';
import type { LaunchedApps } from '../platform/launched-apps.js';
import type { SandboxService } from '../sandbox/service.js';
import type { BlobStore } from './blob-store.js';
import type { OwnSurfaces } from './input/own-surfaces.js';
import type { ScreenSpace } from './screen-space.js';

export { isUnavailable, type UnavailableTool } from '@nextai/shared';

/** What one tool call may use besides its input. */
export interface ToolContext {
  /** Aborted when the call is cancelled (emergency stop, time-out, the caller went away). */
  signal: AbortSignal;
  paths: DataPaths;
  log: Logger;
  /** The gateway's id of this call (for events the call emits). */
  callId?: string;
  /** The agent run making the call, if any (ask_user and todo_write belong to runs). */
  runId?: string;
  /**
   * The domains the caller's grant (a scheduled task's granted_tools) narrows the web to, when it
   * has a list: checked again by tools that reach further than the address the policy decided on
   * (web_fetch's redirects).
   */
  grantedDomains?: string[];
  /**
   * Where a process this call starts runs, as the policy decided (commands, shell sessions,
   * apps): confined by the sandbox — with the network or not, writable folders narrowed by the
   * grant — or outside it, because a person agreed. Absent for other tools; a handler that
   * starts something treats absence as "confined, no network".
   */
  sandbox?: SandboxPlacement;
}

export type SandboxPlacement =
  { mode: 'confined'; network: SandboxNetwork; granted?: string[] | undefined } | { mode: 'outside' };

/**
 * Daemon-lifetime services the host tools are built with (`createHostHandlers`). Tools that keep
 * state between calls — shell sessions, file watches, the last screenshot's geometry — keep it
 * in objects made from these, not in module globals, so tests build as many as they like.
 */
export interface HostServices {
  platform: Platform;
  paths: DataPaths;
  log: Logger;
  /** The OS adapter. Its screen/input parts throw UNAVAILABLE when there is no display. */
  desktop: Desktop;
  /** Maps coordinates the model sends (image pixels of the latest screenshot) to the screen. */
  screenSpace: ScreenSpace;
  /** Large payloads (images) by reference, so no message carries more than it should. */
  blobs: BlobStore;
  /** The security settings in force (allowed directories, max_file_size…), read at each call. */
  security(): SecurityConfig;
  /** The home directory (`~`), as the policy guards resolve it. */
  homeDir: string;
  /**
   * The policy's file guard, asked again when a file tool acts: the policy judged the
   * path when it decided, but a folder on the way may have been moved or replaced by a link since
   * (while a person read the approval card). What a file tool opens is what this says now.
   */
  fileGuard: FileGuardService;
  /** The apps the agent started (app_launch): the emergency stop ends them all. */
  launchedApps: LaunchedApps;
  /** NextAI's own pages on screen (the side panel): the agent's clicks and keys may not land there. */
  ownSurfaces: OwnSurfaces;
  /** Appends an event to the daemon's event log (e.g. `file.changed` from file_watch). */
  emit<T extends EventType>(type: T, data: EventData<T>): void;
  /**
   * The operating-system sandbox that commands, shell sessions and apps start in. Host tools
   * built without it (tests of the terminal's own mechanics) start processes directly.
   */
  sandbox?: SandboxService | undefined;
  /**
   * The value of NEXTAI_AGENT_PROCESS that shells and apps the agent starts get (one per data
   * directory, platform/agent-processes.ts): the emergency stop ends whatever carries it. `'1'`
   * when absent (host tools built without a daemon).
   */
  agentMark?: string | undefined;
}

/** The file guard's verdict on a path at the moment a file tool acts on it. */
export interface FileGuardVerdict {
  allowed: boolean;
  /** Where the path leads now: `~`, `..` and symlinks resolved (the last name kept with followFinal false). */
  real: string;
  reason?: Localized | undefined;
}

export interface FileGuardService {
  /**
   * The same check the policy makes — NextAI's own files, the allowed directories narrowed by the
   * call's grant, the denied patterns — on the path as it resolves now.
   */
  check(path: string, access: 'read' | 'write', options?: { followFinal?: boolean }): FileGuardVerdict;
}

/** A group of handlers plus what must happen when the daemon stops (kill sessions, close watchers). */
export interface HandlerGroup<N extends HostToolName> {
  handlers: { [K in N]: HostToolHandler<K> };
  dispose?(): Promise<void> | void;
}

export type HostToolHandler<N extends HostToolName> = ToolHandler<N, ToolContext>;

/** Every host tool of the catalog with its handler (see HandlerTable). */
export type HostHandlers = HandlerTable<HostToolName, ToolContext>;
