import type { ClientInfo } from '@nextai/shared';

import type { ProcessVerdict } from './agent-process.js';

/**
 * Who is on the other end of a connection, as far as the person's authority goes:
 * - `person`: the nextai CLI (or a test client) run by the person — a process the agent did not start;
 * - `panel`: the browser extension's bridge (its origin checked by the bridge); the side panel's
 *   clicks come through it, and the gate also refuses them while the agent drives the mouse;
 * - `agent`: any process the agent started or that runs in its sandbox, whatever it claims to be;
 * - `mcp`: another agent using NextAI's tools — never the person;
 * - `unverified`: the kernel could not name the process, so it cannot be told from the agent.
 */
export type Caller =
  | { kind: 'person'; actor: string; pid?: number | undefined }
  | { kind: 'panel'; actor: string; pid?: number | undefined }
  | { kind: 'agent'; actor: string; reason: string; pid?: number | undefined }
  | { kind: 'mcp'; actor: string }
  | { kind: 'unverified'; actor: string; reason: string };

export interface IdentifyOptions {
  /** Where the kernel cannot name a pipe's peer (Windows), the claimed kind is all there is. */
  peersKnowable: boolean;
}

/** Who a connection is: what its process was judged to be when it connected, and what it claims. */
export function identifyCaller(
  info: ClientInfo | undefined,
  process: ProcessVerdict,
  options: IdentifyOptions,
): Caller {
  const claimed = info ? `${info.kind}:${info.name}` : 'an unidentified client';
  const pid = process.known ? process.pid : undefined;
  if (process.known) {
    const agent = process.agent;
    if (agent) return { kind: 'agent', actor: `agent (${agent}, claiming to be ${claimed})`, reason: agent, pid };
  } else if (options.peersKnowable) {
    return { kind: 'unverified', actor: `unverified (${claimed})`, reason: process.reason };
  }
  const where = pid === undefined ? '' : `, process ${pid}`;
  switch (info?.kind) {
    case 'cli':
    case 'test':
      return {
        kind: 'person',
        actor: `person (${info.kind === 'cli' ? 'CLI' : `test client ${info.name}`}${where})`,
        pid,
      };
    case 'extension':
      return { kind: 'panel', actor: `person (side panel in ${info.name}${where})`, pid };
    case 'mcp':
      return { kind: 'mcp', actor: `mcp:${info.name}` };
    default:
      return { kind: 'unverified', actor: claimed, reason: 'it has not said what it is (daemon.hello)' };
  }
}
