import { randomUUID } from 'node:crypto';

import {
  AppError,
  DECISION_LAYER_TITLES,
  TOOL_CATALOG,
  TOOL_NAMES,
  describeZodError,
  getTool,
  resourcesOf,
  say,
  toAppError,
  translationsOf,
  toInputJsonSchema,
  toMcpAnnotations,
  type AnyTool,
  type Decision,
  type ErrorCode,
  type GrantedToolSet,
  type Localized,
  type Platform,
  type PromptRules,
  type ToolCategory,
  type ToolError,
  type ToolInfo,
  type ToolOutcome,
  type ToolResult,
  type NavigationRules,
  type SensitiveTarget,
  type UploadFile,
} from '@nextai/shared';

import type { BrowserBackend, ExtensionClient } from '../browser/backend.js';
import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import type { Assessment } from '../policy/assess.js';
import { withSubmission } from '../policy/channels/submitted-lines.js';
import type { KeyboardJudgement, TerminalInput } from '../policy/channels/terminal-input.js';
import { decide } from '../policy/decide.js';
import { effectiveRisk, runsConfined } from '../policy/sandbox-plan.js';
import { requiredLevel } from '../policy/permission-levels.js';
import type { PolicyStore } from '../policy/policy-store.js';
import type { WebProvenance } from '../policy/web-provenance.js';
import { isUnavailable, type HostHandlers, type SandboxPlacement, type ToolContext } from '../tools/types.js';
import type { ApprovalQueue } from './approvals.js';
import type { AuditEntry } from './audit/index.js';
import { BrowserRouting, type Availability } from './browser-routing.js';
import type { EmergencyState } from './emergency-stop.js';
import type { EventLog } from '../storage/event-log.js';
import type { AgentInputActivity } from './agent-input.js';
import { personsTab, sensitiveTarget, stageWebText, webSignals, type WebSignals } from './web-signals.js';

export interface ToolCallRequest {
  name: string;
  input: Record<string, unknown>;
  call_id?: string | undefined;
}

/** Who is calling and under which rules. */
export interface CallContext {
  /** The kind of caller: "cli", "extension", "run", "schedule", "mcp"… */
  source: string;
  project?: string | undefined;
  runId?: string | undefined;
  grant?: GrantedToolSet | undefined;
  promptRules?: PromptRules | undefined;
  /** Aborted when the caller goes away: a pending approval is closed, a running tool stopped. */
  cancel?: AbortSignal | undefined;
  /** Who acts, for the audit log (the person at the CLI, the agent's run, an MCP client…). */
  actor?: string | undefined;
}

export interface ToolGatewayOptions {
  handlers: HostHandlers;
  platform: Platform;
  paths: DataPaths;
  log: Logger;
  events: EventLog;
  policy: PolicyStore;
  approvals: ApprovalQueue;
  audit: { append(entry: AuditEntry): unknown };
  emergency: () => EmergencyState;
  assess: (tool: AnyTool, input: Record<string, unknown>, grant?: GrantedToolSet) => Assessment;
  notify: (title: string, body: string) => Promise<{ delivered: boolean; reason?: string }>;
  /** Connected clients that can run browser tools, most recent first. */
  browserClients: () => ExtensionClient[];
  /** How long a browser tool may take before the call gives up. */
  extensionTimeoutMs?: number;
  /** The daemon's own headless browser, for when no extension is connected. */
  headless?: () => BrowserBackend | undefined;
  /** The domain policy as navigation rules the browser enforces (redirects, clicked links). */
  navigationRules?: (grant?: GrantedToolSet) => NavigationRules;
  /** What web pages showed each run, to tell commands a page suggested. */
  webProvenance?: WebProvenance;
  /** Reads a file for browser_interact `upload`, once the policy allowed its path. */
  readUpload?: (path: string) => UploadFile;
  /** Keyboard input into terminal windows, judged as the commands it runs. */
  terminalInput?: TerminalInput;
  /** When the agent sends mouse or keyboard input (the side panel distrusts clicks right after). */
  agentInput?: AgentInputActivity;
  /**
   * Whether the daemon is stopping: a call whose approval comes in now does not start (the stop
   * would cut it short), and its approval is left as it is for after the restart.
   */
  stopping?: () => boolean;
}

/** The categories of the tools that move the person's pointer or type on their keyboard. */
const INPUT_CATEGORIES: ReadonlySet<ToolCategory> = new Set(['mouse', 'keyboard']);

/** What a line submitted in a terminal is judged as. */
const BASH_EXECUTE = getTool('bash_execute') as AnyTool;

/** Failures of a keyboard call that sent no key at all. */
const NOTHING_SENT: ReadonlySet<ErrorCode> = new Set(['INVALID_INPUT', 'UNAVAILABLE', 'TARGET_CHANGED']);

interface RunningCall {
  controller: AbortController;
  /** Settles when the handler itself has returned, whatever the gateway answered. */
  done: Promise<unknown>;
  /** The agent run the call belongs to; undefined for a direct call (the CLI, the panel). */
  runId: string | undefined;
}

/**
 * The one way a tool runs. Every call — from the side panel, the CLI, agent runs, schedules and
 * MCP clients — comes through `call()`: validate the input → decide (policy) → ask and wait if
 * needed → execute → audit. No handler is reachable around it.
 */
export class ToolGateway {
  private readonly running = new Set<RunningCall>();
  /** Keyboard calls decided and not yet finished, by call id: checked again right before the keys go out. */
  private readonly keyboardCalls = new Map<string, KeyboardJudgement>();
  private readonly browser: BrowserRouting;

  constructor(private readonly options: ToolGatewayOptions) {
    this.browser = new BrowserRouting(options);
  }

  list(): ToolInfo[] {
    return TOOL_CATALOG.map((tool) => {
      const availability = this.availability(tool);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        category: tool.category,
        risk: tool.risk,
        effect: tool.effect,
        runs_in: tool.runsIn,
        platforms: [...tool.platforms],
        available: availability.available,
        ...(availability.available ? {} : { unavailable_reason: availability.reason }),
        input_schema: toInputJsonSchema(tool),
        annotations: toMcpAnnotations(tool),
      };
    });
  }

  /** The tools that can run now, for offering to a model (no schema work, unlike `list`). */
  availableTools(): AnyTool[] {
    return TOOL_CATALOG.filter((tool) => this.availability(tool).available);
  }

  /** The decision a call would get, without running anything (`nextai policy explain`). */
  explain(request: ToolCallRequest, context: CallContext): { decision: Decision; project: string } {
    const tool = this.lookup(request.name);
    const input = tool.input.safeParse(request.input);
    if (!input.success) {
      throw new AppError('INVALID_INPUT', `Invalid input for ${tool.name}: ${describeZodError(input.error)}`);
    }
    const { decision, project } = this.evaluate(tool, input.data as Record<string, unknown>, context);
    return { decision, project };
  }

  /**
   * Runs one tool call. An unknown tool name or project is the caller's mistake and throws;
   * everything that happens to a known tool — bad input, blocked, denied, unavailable,
   * failure — is a result the caller (or a model) can read.
   */
  async call(request: ToolCallRequest, context: CallContext): Promise<ToolResult> {
    const tool = this.lookup(request.name);
    // A browser call keeps the daemon's headless browser open until it ends (BrowserRouting.hold).
    const release = this.browser.hold(tool);
    try {
      return await this.decideAndRun(tool, request, context);
    } finally {
      release?.();
    }
  }

  private async decideAndRun(tool: AnyTool, request: ToolCallRequest, context: CallContext): Promise<ToolResult> {
    const callId = request.call_id ?? randomUUID();
    const started = performance.now();
    const audit = (entry: Omit<AuditEntry, 'call_id' | 'tool' | 'source'>) =>
      this.options.audit.append({
        call_id: callId,
        tool: tool.name,
        source: context.source,
        actor: context.actor ?? (context.runId ? `agent (run ${context.runId})` : context.source),
        ...(context.runId ? { run_id: context.runId } : {}),
        ...entry,
      });
    // Set once the call is decided; `finish` reports it for every outcome after that point.
    let decision: Decision | undefined = undefined;
    const finish = (outcome: ToolOutcome): ToolResult => {
      const duration_ms = Math.round((performance.now() - started) * 100) / 100;
      const summary = decision && {
        decision: { action: decision.action, risk: decision.risk, layer: decision.layer, reason: decision.reason },
      };
      const result: ToolResult = outcome.ok
        ? { ...outcome, duration_ms, ...summary }
        : { ...outcome, duration_ms, ...summary };
      this.keyboardCalls.delete(callId);
      this.options.events.append('tool.finished', {
        call_id: callId,
        tool: tool.name,
        ok: result.ok,
        duration_ms,
        ...(result.ok ? {} : { error_code: result.error.code }),
        ...(decision ? { action: decision.action } : {}),
      });
      return result;
    };

    this.options.events.append('tool.started', { call_id: callId, tool: tool.name, source: context.source });
    const parsed = tool.input.safeParse(request.input);
    if (!parsed.success) {
      const message = `Invalid input for ${tool.name}: ${describeZodError(parsed.error)}`;
      audit({ kind: 'decision', parameters: request.input, result: 'invalid_input', reason: message });
      return finish(failure('INVALID_INPUT', message));
    }
    let input = parsed.data as Record<string, unknown>;
    // What the call touches, as its tool declares: what every step below looks at.
    const resources = resourcesOf(tool, input);
    let signals = webSignals(resources, context.runId, this.options.webProvenance);
    // Keys into a terminal run what they submit there: judged as those commands.
    const keyboard = await this.options.terminalInput?.judge(resources);
    if (keyboard) this.keyboardCalls.set(callId, keyboard);
    if (keyboard?.submission) signals = { ...signals, terminal: keyboard.submission };
    let evaluated = this.evaluate(tool, input, context, signals);
    // `attach` without a tab_id means "the tab the person has in front of them": which one that is
    // is settled now and pinned into the call, so the tab approved is the tab attached — not
    // whichever is in front when the answer comes.
    if (resources.personsTab && evaluated.decision.action !== 'always_block') {
      const pinned = await this.browser.pinTab(input, callId, context);
      if (!pinned.ok) {
        audit({ kind: 'decision', parameters: input, result: 'invalid_input', reason: pinned.message });
        return finish(failure('INVALID_INPUT', pinned.message));
      }
      input = pinned.input;
      if (pinned.target) signals = { ...signals, ...personsTab(pinned.target) };
      evaluated = this.evaluate(tool, input, context, signals);
    }
    // A page action is described by the page before the decision: a sign-in or payment form, a
    // "Send" button, a download. Nothing runs yet; a blocked call is not even looked at.
    if (resources.pageTarget && evaluated.decision.action !== 'always_block') {
      const inspected = await this.browser.inspectElement(input, callId, context);
      if (inspected?.sensitive) {
        signals = {
          ...signals,
          ...sensitiveTarget(resources.pageTarget.action, inspected.sensitive, inspected.target),
        };
        evaluated = this.evaluate(tool, input, context, signals);
      }
    }
    decision = evaluated.decision;
    audit({
      kind: 'decision',
      project: evaluated.project,
      parameters: input,
      risk: decision.risk,
      action: decision.action,
      layer: decision.layer,
      reason: decision.reason,
      details: decisionDetails(decision),
    });

    if (decision.action === 'always_block') {
      const code = decision.layer === 'emergency_stop' ? 'EMERGENCY_STOPPED' : 'POLICY_BLOCKED';
      const zh = decision.translations['zh-CN']?.reason ?? decision.reason;
      return finish(
        failure(
          code,
          say(
            `Blocked (${decision.layer}): ${decision.reason}`,
            `已阻止（${DECISION_LAYER_TITLES[decision.layer]['zh-CN']}）：${zh}`,
          ),
        ),
      );
    }
    if (decision.action === 'require_approval') {
      const refused = await this.ask({
        tool,
        input,
        callId,
        request,
        context,
        evaluated,
        sensitive: signals.sensitive,
        audit,
      });
      if (refused) return finish(refused);
    }
    if (decision.action === 'notify_only') {
      const sent = await this.options.notify(`NextAI Agent: ${tool.title}`, decision.reason);
      this.options.events.append('policy.notified', {
        call_id: callId,
        tool: tool.name,
        delivered: sent.delivered,
        ...(sent.reason ? { reason: sent.reason } : {}),
      });
    }
    // The emergency stop may have been pressed while the call waited for a person.
    const emergency = this.options.emergency();
    if (emergency.active) {
      const why = emergency.reason;
      return finish(
        failure(
          'EMERGENCY_STOPPED',
          say(`The emergency stop is on (${why ?? 'no reason given'}).`, `紧急停止已开启（${why ?? '未说明原因'}）。`),
        ),
      );
    }

    const executed = performance.now();
    const outcome = await this.execute(tool, input, callId, context, signals.sensitive, evaluated.placement);
    keyboard?.settle(outcome.ok ? 'sent' : NOTHING_SENT.has(outcome.error.code) ? 'not_sent' : 'partly');
    if (outcome.ok && context.runId) {
      this.options.webProvenance?.record(context.runId, tool.name, outcome.output);
      stageWebText(resources, context.runId, signals, this.options.webProvenance);
    }
    audit({
      kind: 'execution',
      result: outcome.ok ? 'success' : 'failed',
      duration_ms: Math.round((performance.now() - executed) * 100) / 100,
      ...(outcome.ok ? {} : { error: `${outcome.error.code}: ${outcome.error.message}` }),
    });
    return finish(outcome);
  }

  /**
   * Asks a person about a call the policy wants approved, and waits for the answer: the refusal
   * as the call's outcome, or undefined when it was approved.
   */
  private async ask(call: {
    tool: AnyTool;
    input: Record<string, unknown>;
    callId: string;
    request: ToolCallRequest;
    context: CallContext;
    evaluated: { decision: Decision; project: string };
    sensitive: SensitiveTarget | undefined;
    audit: (entry: Omit<AuditEntry, 'call_id' | 'tool' | 'source'>) => unknown;
  }): Promise<ToolOutcome | undefined> {
    const { tool, input, callId, request, context, audit } = call;
    const { decision, project } = call.evaluated;
    // A run resumed after a restart repeats its call: it gets the answer given (or still to be
    // given) to the request it already made, and the person is not asked twice.
    const earlier =
      context.runId && request.call_id
        ? this.options.approvals.findForRunCall(context.runId, callId, tool.name, input, {
            decision,
            sensitive: call.sensitive?.kind,
          })
        : undefined;
    const approval =
      earlier ??
      this.options.approvals.request({
        callId,
        runId: context.runId,
        project,
        source: context.source,
        tool: tool.name,
        input,
        decision,
        sensitive: call.sensitive?.kind,
      });
    // Called from the signal's dispatch, where a throw would end the daemon: a request that cannot
    // be closed now (the database cannot be written) stays pending until it is answered (a direct
    // call's is closed when the daemon next starts).
    const onCancel = () => {
      try {
        this.options.approvals.cancel(approval.id, 'the caller went away before it was answered');
      } catch (error) {
        this.options.log.warn('could not close the approval request its caller left', {
          approval_id: approval.id,
          error: (error as Error).message,
        });
      }
    };
    context.cancel?.addEventListener('abort', onCancel, { once: true });
    const waited = approval.status === 'pending';
    const answer = await this.options.approvals.wait(approval.id);
    context.cancel?.removeEventListener('abort', onCancel);
    const answered = this.options.approvals.get(approval.id);
    audit({
      kind: 'approval',
      action: decision.action,
      result: answer.status,
      actor: answered.answered_by ?? 'unknown',
      reason: answer.status === 'approved' ? `approved (${answer.scope})` : (answered.message ?? answer.status),
      details: { approval_id: approval.id },
    });
    if (answer.status === 'denied') {
      const said = answer.message;
      return failure(
        'APPROVAL_DENIED',
        say(
          `The person denied this ${tool.name} call.${said ? ` They said: "${said}"` : ''}`,
          `你拒绝了这次 ${tool.name} 调用。${said ? `你说：“${said}”` : ''}`,
        ),
      );
    }
    if (answer.status === 'cancelled') {
      return failure(
        'APPROVAL_CANCELLED',
        say(
          `The approval request was closed unanswered (${answer.message}).`,
          `审批请求在回答前被关闭（${answer.message}）。`,
        ),
      );
    }
    // The daemon began to stop while the call waited for the answer: what starts now would be cut
    // short partway. It does not start, and its approval is kept as it is. (A call whose approval
    // was given before — one tried again as a stop lets it finish — runs: the stop waits for it.)
    if (waited && this.options.stopping?.()) {
      this.options.log.info('an approved call does not start: the daemon is stopping', {
        call_id: callId,
        tool: tool.name,
        approval_id: approval.id,
      });
      return failure(
        'UNAVAILABLE',
        say(
          'Not run: the daemon is stopping, and a call started now would be cut short. The approval is kept as it is.',
          '未运行：守护进程正在停止，现在开始的调用会被中途中断。审批按原样保留。',
        ),
      );
    }
    return undefined;
  }

  /**
   * Aborts every running call (emergency stop, shutdown) and resolves with how many there were
   * once each has ended — or after `graceMs` for handlers that ignore the signal.
   */
  async abortAll(reason: string, graceMs = 2000): Promise<number> {
    const calls = [...this.running];
    for (const call of calls) call.controller.abort(new AppError('EMERGENCY_STOPPED', reason));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.allSettled(calls.map((call) => call.done)), grace]);
    clearTimeout(timer);
    return calls.length;
  }

  /** The calls whose handlers run now, with the run each belongs to: what a graceful stop waits for. */
  executing(): { runId: string | undefined; done: Promise<unknown> }[] {
    return [...this.running].map(({ runId, done }) => ({ runId, done }));
  }

  private lookup(name: string): AnyTool {
    const tool = getTool(name);
    if (!tool) {
      throw new AppError(
        'UNKNOWN_TOOL',
        `There is no tool named "${name}". Available tools: ${TOOL_NAMES.join(', ')}.`,
        {
          details: { tools: TOOL_NAMES },
        },
      );
    }
    return tool;
  }

  private evaluate(
    tool: AnyTool,
    input: Record<string, unknown>,
    context: CallContext,
    signals: WebSignals = {},
  ): { decision: Decision; project: string; placement?: SandboxPlacement | undefined } {
    const project = this.options.policy.project(context.project);
    const security = this.options.policy.current.config.security;
    const assessed = this.options.assess(tool, input, context.grant);
    // A line submitted in a terminal is judged as bash_execute of it, run from the home folder.
    const assessment = signals.terminal
      ? withSubmission(assessed, signals.terminal, (command) =>
          this.options.assess(BASH_EXECUTE, { command, working_dir: '~' }, context.grant),
        )
      : assessed;
    const emergency = this.options.emergency();
    const run = context.runId ? this.options.approvals.runState(context.runId, tool.name) : undefined;
    const decision = decide({
      tool,
      analysis: assessment.analysis,
      guards: assessment.guards,
      requiredLevel: requiredLevel(tool, input, effectiveRisk(assessment.analysis.risk, assessment.sandbox?.plan)),
      permissionLevel: security.permission_level,
      project: { name: project.name, template: project.template ?? undefined, policy: project.approval },
      promptRules: context.promptRules,
      grant: context.grant,
      emergencyStop: emergency.active
        ? { since: emergency.since ?? 'unknown time', reason: emergency.reason ?? 'no reason given' }
        : undefined,
      run,
      webContent: signals.webContent,
      tabAccess: signals.tabAccess,
      sandbox: assessment.sandbox,
    });
    const plan = assessment.sandbox?.plan;
    const placement: SandboxPlacement | undefined = plan
      ? runsConfined(plan)
        ? { mode: 'confined', network: plan.network, granted: context.grant?.restrictions?.allowed_directories }
        : { mode: 'outside' }
      : undefined;
    return { decision, project: project.id, placement };
  }

  private async execute(
    tool: AnyTool,
    input: Record<string, unknown>,
    callId: string,
    context: CallContext,
    sensitive?: SensitiveTarget,
    placement?: SandboxPlacement,
  ): Promise<ToolOutcome> {
    const controller = new AbortController();
    const onCancel = () => controller.abort(new AppError('DISCONNECTED', 'The caller went away.'));
    context.cancel?.addEventListener('abort', onCancel, { once: true });
    const work = (async (): Promise<ToolOutcome> => {
      const isInput = INPUT_CATEGORIES.has(tool.category);
      // While the person is asked anything, the agent's hands wait: a click or key sent now
      // could land on the Approve button.
      if (isInput) await this.options.approvals.whenNonePending(controller.signal);
      // Switching, moving and starting windows moves the focus and what is under the pointer as
      // much as a click does: the panel does not trust a click right after, and the next key or
      // click waits for the browser's report of what it brought forward.
      const inputEnded = isInput || tool.category === 'apps' ? this.options.agentInput?.begin() : undefined;
      let output: ToolOutcome;
      try {
        output =
          tool.runsIn === 'host'
            ? await this.runOnHost(tool, input, controller.signal, callId, context, placement)
            : await this.runInBrowser(tool, input, callId, context, sensitive, controller.signal);
      } finally {
        inputEnded?.();
      }
      if (!output.ok) return output;
      const checked = tool.output.safeParse(output.output);
      if (!checked.success) {
        this.options.log.error('tool returned output that does not match its schema', {
          tool: tool.name,
          issues: describeZodError(checked.error),
        });
        return failure(
          'INTERNAL',
          `${tool.name} produced a malformed result (a bug): ${describeZodError(checked.error)}`,
        );
      }
      return { ok: true, output: checked.data };
    })();
    const running: RunningCall = { controller, done: work.catch(() => undefined), runId: context.runId };
    this.running.add(running);
    // Whatever the handler does, the call ends when it is aborted.
    const aborted = new Promise<ToolOutcome>((resolve) => {
      controller.signal.addEventListener('abort', () => {
        const reason = toAppError(controller.signal.reason, 'EMERGENCY_STOPPED');
        resolve(failure(reason.code, `Stopped: ${reason.message}`));
      });
    });
    try {
      return await Promise.race([work, aborted]);
    } catch (error) {
      const appError = toAppError(error, 'TOOL_FAILED');
      const outcome = failure(appError.code, appError.message, appError.details);
      if (!outcome.ok && appError.translations) outcome.error.translations = appError.translations;
      return outcome;
    } finally {
      context.cancel?.removeEventListener('abort', onCancel);
      void running.done.then(() => this.running.delete(running));
    }
  }

  private availability(tool: AnyTool): Availability {
    if (!tool.platforms.includes(this.options.platform)) {
      return { available: false, reason: `${tool.title} is not supported on ${this.options.platform}.` };
    }
    if (tool.runsIn === 'host') {
      const entry = this.options.handlers[tool.name];
      return isUnavailable(entry) ? { available: false, reason: entry.unavailable } : { available: true };
    }
    return this.browser.availability(tool);
  }

  private async runOnHost(
    tool: Extract<AnyTool, { runsIn: 'host' }>,
    input: unknown,
    signal: AbortSignal,
    callId: string,
    call: CallContext,
    placement: SandboxPlacement | undefined,
  ): Promise<ToolOutcome> {
    const availability = this.availability(tool);
    if (!availability.available) return failure('UNAVAILABLE', availability.reason);
    // The last moment before the keys go out: the window, its line and the clipboard must still be
    // what was judged (the call may have waited for a person, or for other input to finish).
    const changed = await this.keyboardCalls.get(callId)?.confirm();
    if (changed) return failure('TARGET_CHANGED', changed);
    const handler = this.options.handlers[tool.name] as (input: unknown, context: ToolContext) => Promise<unknown>;
    const context: ToolContext = {
      ...(placement ? { sandbox: placement } : {}),
      signal,
      paths: this.options.paths,
      log: this.options.log.child(tool.name),
      callId,
      ...(call.runId === undefined ? {} : { runId: call.runId }),
      ...(call.grant?.restrictions?.allowed_domains ? { grantedDomains: call.grant.restrictions.allowed_domains } : {}),
    };
    return { ok: true, output: await handler(input, context) };
  }

  private async runInBrowser(
    tool: Extract<AnyTool, { runsIn: 'extension' }>,
    input: Record<string, unknown>,
    callId: string,
    context: CallContext,
    sensitive: SensitiveTarget | undefined,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    if (!tool.platforms.includes(this.options.platform)) {
      return failure('UNAVAILABLE', `${tool.title} is not supported on ${this.options.platform}.`);
    }
    const availability = this.availability(tool);
    if (!availability.available) return failure('UNAVAILABLE', availability.reason);
    return this.browser.run(tool, input, callId, context, sensitive, signal);
  }
}

/** A failed call; a message written for people too (a policy refusal) carries its translations. */
function failure(code: ErrorCode, message: string | Localized, details?: unknown): ToolOutcome {
  const error: ToolError =
    typeof message === 'string'
      ? { code, message }
      : { code, message: message.en, translations: translationsOf(message) };
  if (details !== undefined) error.details = details;
  return { ok: false, error };
}

/** What the audit row of a decision keeps besides its verdict: the findings, and the sandbox it runs in. */
function decisionDetails(decision: Decision): Record<string, unknown> {
  const sandbox = decision.sandbox;
  return {
    findings: decision.findings,
    ...(sandbox
      ? {
          sandbox: {
            sandboxed: sandbox.sandboxed,
            mechanism: sandbox.mechanism,
            network: sandbox.network,
            writable: sandbox.writable,
            hidden: sandbox.hidden,
            escapes: sandbox.escapes,
            ...(sandbox.unavailable ? { unavailable: sandbox.unavailable } : {}),
          },
        }
      : {}),
  };
}
