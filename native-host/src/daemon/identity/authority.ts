import { AppError } from '@nextai/shared';

import type { AuditEntry } from '../../gateway/audit/index.js';
import type { AgentInputActivity } from '../../gateway/agent-input.js';
import type { Caller } from './caller.js';

/** How long after the agent's last mouse or keyboard input a click in the side panel is not trusted. */
export const AGENT_INPUT_QUIET_MS = 1500;

const PANEL_AFTER_AGENT_INPUT =
  "The agent was using the mouse or keyboard a moment ago, so this click in the side panel may have been the agent's and was not taken. If it was you, do it again in a moment.";

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
    return this.refuse(caller, refusal, method);
  }

  /**
   * For what the agent's own processes may not do although it is not the person's authority:
   * start or steer runs, run scheduled tasks now, call NextAI's tools around its run, rename
   * conversations, stop the daemon. The person, the panel and MCP clients may. Returns the actor.
   */
  refuseAgent(caller: Caller, what: string, method: string): string {
    if (caller.kind === 'panel' && this.agentInputRecent()) return this.refuse(caller, PANEL_AFTER_AGENT_INPUT, method);
    if (caller.kind !== 'agent' && caller.kind !== 'unverified') return caller.actor;
    const why =
      caller.kind === 'agent'
        ? `it came from the agent (${caller.reason})`
        : `the daemon could not tell which process sent it (${caller.reason})`;
    return this.refuse(
      caller,
      `Processes the agent started may not ${what}: ${why}, so it was refused and logged. The agent works through its run's own tools, under the run's limits and grant.`,
      method,
    );
  }

  /** Records the refusal in the audit log and throws it. */
  private refuse(caller: Caller, refusal: string, method: string): never {
    this.options.audit.append({
      kind: 'authority',
      result: 'refused',
      actor: caller.actor,
      reason: refusal,
      details: { method },
    });
    throw new AppError('NOT_THE_PERSON', refusal, { details: { method, caller: caller.kind } });
  }

  /** A click in the panel now may be the agent's: it sent mouse or keyboard input a moment ago. */
  private agentInputRecent(): boolean {
    return this.options.agentInput.recent(this.options.quietMs ?? AGENT_INPUT_QUIET_MS);
  }

  private refusal(caller: Caller, what: string): string | undefined {
    const only = `Only the person can ${what}: from the side panel, or with the nextai command in a terminal of their own.`;
    switch (caller.kind) {
      case 'person':
        return undefined;
      case 'panel':
        return this.agentInputRecent() ? PANEL_AFTER_AGENT_INPUT : undefined;
      case 'agent':
        return `${only} This request came from the agent (${caller.reason}), so it was refused and logged.`;
      case 'mcp':
        return `${only} This request came from the MCP client ${caller.actor.slice('mcp:'.length)}: MCP clients may use NextAI's tools, never the person's authority.`;
      case 'unverified':
        return `${only} The daemon could not tell which process sent this request (${caller.reason}), so it cannot be told from the agent and was refused.`;
    }
  }
}
