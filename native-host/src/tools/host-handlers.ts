import { createAppHandlers } from './apps/index.js';
import { createFileHandlers } from './files/index.js';
import { createInputHandlers } from './input/index.js';
import { createScreenHandlers } from './screen/index.js';
import { createSystemHandlers } from './system/index.js';
import { systemInfoHandler } from './system-info.js';
import { createTerminalHandlers } from './terminal/index.js';
import { webFetch } from './web/fetch.js';
import { type HandlerGroup, type HostHandlers, type HostServices } from './types.js';

/** The host's tools with what they share, and how to end what they keep running. */
export interface HostToolSet {
  handlers: HostHandlers;
  /** Ends shell sessions, file watches and whatever else a group keeps (daemon shutdown). */
  dispose(): Promise<void>;
  /** A shell session's current directory (undefined id: the default session); see TerminalHandlers. */
  terminalCwd(sessionId: string | undefined): string | undefined;
  /** The policy changed: shells whose sandbox reaches what it no longer allows end (TerminalHandlers). */
  policyChanged(): Promise<void>;
  /** Ends every shell session and all it started, the tools staying usable (the emergency stop); how many there were. */
  endShellSessions(): Promise<number>;
}

/**
 * Every host tool of the catalog and what runs it, built once per daemon from its services. The
 * `satisfies` clause makes a tool added to the catalog without an entry here — or an entry for a
 * tool that does not exist — a type error.
 */
export function createHostHandlers(services: HostServices, options: { terminalRoot?: string } = {}): HostToolSet {
  const apps = createAppHandlers(services);
  const system = createSystemHandlers(services);
  const files = createFileHandlers(services);
  const terminal = createTerminalHandlers(services, { tmpRoot: options.terminalRoot });
  const input = createInputHandlers(services);
  const screen = createScreenHandlers(services);
  const groups: HandlerGroup<never>[] = [screen, input, apps, terminal, files, system];
  const handlers = {
    ...screen.handlers,
    ...input.handlers,
    ...apps.handlers,
    ...terminal.handlers,
    ...files.handlers,
    ...system.handlers,
    system_info: systemInfoHandler,
    // The agent's own tools need the daemon's runs: the Daemon replaces these two with the
    // RunManager's handlers. Host tools built without a daemon (tests, benches) lack them.
    ask_user: { unavailable: 'Asking the person belongs to agent runs, which need the daemon.' },
    todo_write: { unavailable: 'The plan tool belongs to agent runs, which need the daemon.' },
    web_fetch: (input, context) => webFetch(input, context, services),
  } satisfies HostHandlers;
  return {
    handlers,
    dispose: async () => {
      await Promise.allSettled(groups.map((group) => group.dispose?.()));
    },
    terminalCwd: (sessionId) => terminal.sessionCwd(sessionId),
    policyChanged: () => terminal.policyChanged(),
    endShellSessions: () => terminal.endAll(),
  };
}
