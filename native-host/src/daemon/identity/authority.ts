import { AppError } from '@nextai/shared';

import type { AuditEntry } from '../audit/index.js';
import type { AgentInputActivity } from './agent-input.js';
import type { Caller } from './caller.js';

/** How long after the agent's last mouse or keyboard input a click in the side panel is not trusted. */
export const AGENT_INPUT_QUIET_MS = 1500;

export interface AuthorityGateOptions {
  audit: { append(entry: AuditEntry): unknown };
  agentInput: AgentInputActivity;
  quietMs?: number;
}

/**
 * The person's authority — answering approvals, resetting the emergency stop, changing policy,
 * config, projects, settings and scheduled tasks — is exercised only by the person: the CLI they
 * run and the side panel they click. Anything the agent started, whatever it claims to be, an MCP
 * client, and a caller the daemon cannot identify are refused, and every refusal is an audit row.
 */
export class AuthorityGate {
  constructor(private readonly options: AuthorityGateOptions) {}

  /**
   * Returns who acts (for the audit log) when `caller` is the person; throws NOT_THE_PERSON,
   * after recording the refusal, when it is not. `what` completes "Only the person can …".
   */
  require(caller: Caller, what: string, method: string): string {
    const refusal = this.refusal(caller, what);
    if (refusal === undefined) return caller.actor;
    this.options.audit.append({
      kind: 'authority',
      result: 'refused',
      actor: caller.actor,
      reason: refusal,
      details: { method },
    });
    throw new AppError('NOT_THE_PERSON', refusal, { details: { method, caller: caller.kind } });
  }

  /**
   * For what the agent's own processes may not do although it is not the person's authority:
   * start or steer runs, run scheduled tasks now, call NextAI's tools around its run, rename
   * conversations, stop the daemon. The person, the panel and MCP clients may. Returns the actor.
   */
  refuseAgent(caller: Caller, what: string, method: string): string {
    if (caller.kind !== 'agent' && caller.kind !== 'unverified') return caller.actor;
    const why =
      caller.kind === 'agent'
        ? `it came from the agent (${caller.reason})`
        : `the daemon could not tell which process sent it (${caller.reason})`;
    const refusal = `Processes the agent started may not ${what}: ${why}, so it was refused and logged. The agent works through its run's own tools, under the run's limits and grant.`;
    this.options.audit.append({
      kind: 'authority',
      result: 'refused',
      actor: caller.actor,
      reason: refusal,
      details: { method },
    });
    throw new AppError('NOT_THE_PERSON', refusal, { details: { method, caller: caller.kind } });
  }

  private refusal(caller: Caller, what: string): string | undefined {
    const only = `Only the person can ${what}: from the side panel, or with the nextai command in a terminal of their own.`;
    switch (caller.kind) {
      case 'person':
        return undefined;
      case 'panel':
        if (!this.options.agentInput.recent(this.options.quietMs ?? AGENT_INPUT_QUIET_MS)) return undefined;
        return `The agent was using the mouse or keyboard a moment ago, so this click in the side panel may have been the agent's and was not taken. If it was you, do it again in a moment.`;
      case 'agent':
        return `${only} This request came from the agent (${caller.reason}), so it was refused and logged.`;
      case 'mcp':
        return `${only} This request came from the MCP client ${caller.actor.slice('mcp:'.length)}: MCP clients may use NextAI's tools, never the person's authority.`;
      case 'unverified':
        return `${only} The daemon could not tell which process sent this request (${caller.reason}), so it cannot be told from the agent and was refused.`;
    }
  }
}
