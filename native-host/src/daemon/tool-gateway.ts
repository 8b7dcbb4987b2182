import { randomUUID } from 'node:crypto';

import {
  AppError,
  DECISION_LAYER_TITLES,
  TOOL_CATALOG,
  TOOL_NAMES,
  describeZodError,
  getTool,
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
  type ToolError,
  type ToolInfo,
  type ToolOutcome,
  type ToolResult,
  type BrowserCallContext,
  type NavigationRules,
  type SensitiveKind,
  type SensitiveTarget,
  type UploadFile,
} from '@nextai/shared';

import type { BrowserBackend, InspectedTool, InspectResult } from '../browser/backend.js';
import { ExtensionBackend } from '../browser/backend.js';
import type { Logger } from '../logger.js';
import type { DataPaths } from '../paths.js';
import { normalizeKey } from '../platform/keys.js';
import type { Assessment } from '../policy/assess.js';
import { withSubmission } from '../policy/channels/submitted-lines.js';
import type { KeyboardJudgement, TerminalInput, TerminalSubmission } from '../policy/channels/terminal-input.js';
import { decide } from '../policy/decide.js';
import { effectiveRisk, runsConfined } from '../policy/sandbox-plan.js';
import { requiredLevel } from '../policy/permission-levels.js';
import type { PolicyStore } from '../policy/policy-store.js';
import type { WebProvenance } from '../policy/web-provenance.js';
import { isUnavailable, type HostHandlers, type SandboxPlacement, type ToolContext } from '../tools/types.js';
import type { ApprovalQueue } from './approvals.js';
import type { AuditEntry } from './audit/index.js';
import type { ClientConnection } from './client-connection.js';
import type { EmergencyState } from './emergency-stop.js';
import type { EventLog } from './event-log.js';
import type { AgentInputActivity } from './identity/agent-input.js';

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
  browserClients: () => ClientConnection[];
  /** How long a browser tool may take before the call gives up. */
  extensionTimeoutMs?: number;
  /** The daemon's own headless browser, for when no extension is connected (issue #7). */
  headless?: () => BrowserBackend | undefined;
  /** The domain policy as navigation rules the browser enforces (redirects, clicked links). */
  navigationRules?: (grant?: GrantedToolSet) => NavigationRules;
  /** What web pages showed each run, to tell commands a page suggested. */
  webProvenance?: WebProvenance;
  /** Reads a file for browser_interact `upload`, once the policy allowed its path. */
  readUpload?: (path: string) => UploadFile;
  /** Keyboard input into terminal windows, judged as the commands it runs (issue #16). */
  terminalInput?: TerminalInput;
  /** When the agent sends mouse or keyboard input (the side panel distrusts clicks right after). */
  agentInput?: AgentInputActivity;
}

/** The tools that move the person's pointer or type on their keyboard. */
const INPUT_CATEGORIES = new Set(['mouse', 'keyboard']);

/** What a line submitted in a terminal is judged as. */
const BASH_EXECUTE = getTool('bash_execute') as AnyTool;

/** Failures of a keyboard call that sent no key at all. */
const NOTHING_SENT: ReadonlySet<ErrorCode> = new Set(['INVALID_INPUT', 'UNAVAILABLE', 'TARGET_CHANGED']);

/** What the call does that a page may have asked for, or that touches the person's own tabs. */
interface WebSignals {
  webContent?: { reason: Localized } | undefined;
  tabAccess?: { reason: Localized } | undefined;
  sensitive?: SensitiveTarget | undefined;
  /** The page text found in typed or clipboard text (what Enter or a paste would then submit). */
  webText?: string | undefined;
  /** What the keys run in the terminal in front: judged as those commands. */
  terminal?: TerminalSubmission | undefined;
}

/** What each sensitive page action is, for the Chinese approval card (the page describes it in English). */
const SENSITIVE_KIND_ZH: Record<SensitiveKind, string> = {
  credential_submit: '提交登录表单',
  payment_submit: '提交付款',
  send_message: '发送消息',
  download: '下载文件',
  credential_entry: '在密码框中输入',
  payment_entry: '在银行卡字段中输入',
  file_upload: '把这台电脑上的文件发送给网站',
};

/** browser_interact actions whose target the page is asked about before the policy decides. */
const INSPECTED_ACTIONS = new Set(['click', 'press', 'fill', 'select', 'check', 'uncheck', 'upload']);

type Availability = { available: true } | { available: false; reason: string };

interface RunningCall {
  controller: AbortController;
  /** Settles when the handler itself has returned, whatever the gateway answered. */
  done: Promise<unknown>;
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

  constructor(private readonly options: ToolGatewayOptions) {}

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
    // The daemon's headless browser stays open for a browser call from here to its end: the
    // person may take longer over its approval than the browser's idle time, and the tab the
    // call was asked about must still be there when it runs.
    const release = tool.runsIn === 'extension' ? this.options.headless?.()?.hold?.() : undefined;
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
    let signals = this.webSignals(tool, input, context);
    // Keys into a terminal run what they submit there: judged as those commands (issue #16).
    const keyboard = await this.options.terminalInput?.judge(tool.name, input);
    if (keyboard) this.keyboardCalls.set(callId, keyboard);
    if (keyboard?.submission) signals = { ...signals, terminal: keyboard.submission };
    let evaluated = this.evaluate(tool, input, context, signals);
    // `attach` without a tab_id means "the tab the person has in front of them": which one that is
    // is settled now and pinned into the call, so the tab approved is the tab attached — not
    // whichever is in front when the answer comes.
    if (tool.name === 'browser_tabs' && input.action === 'attach' && evaluated.decision.action !== 'always_block') {
      const pinned = await this.pinTab(input, callId, context);
      if (!pinned.ok) {
        audit({ kind: 'decision', parameters: input, result: 'invalid_input', reason: pinned.message });
        return finish(failure('INVALID_INPUT', pinned.message));
      }
      input = pinned.input;
      if (pinned.target) {
        signals = {
          ...signals,
          tabAccess: {
            reason: say(
              `lets the agent work in a tab you opened yourself (your own, maybe signed-in, page): ${pinned.target}`,
              `会让智能体在你自己打开的标签页里操作（你自己的、可能已登录的页面）：${pinned.target}`,
            ),
          },
        };
      }
      evaluated = this.evaluate(tool, input, context, signals);
    }
    // A page action is described by the page before the decision: a sign-in or payment form, a
    // "Send" button, a download. Nothing runs yet; a blocked call is not even looked at.
    if (
      tool.name === 'browser_interact' &&
      evaluated.decision.action !== 'always_block' &&
      INSPECTED_ACTIONS.has(String(input.action))
    ) {
      const inspected = await this.inspectTarget(input, callId, context);
      if (inspected?.sensitive) {
        signals = {
          ...signals,
          sensitive: inspected.sensitive,
          webContent: {
            reason: say(
              `${String(input.action)} ${inspected.sensitive.reason}${inspected.target ? ` — ${inspected.target}` : ''}`,
              `${SENSITIVE_KIND_ZH[inspected.sensitive.kind]}${inspected.target ? `（${inspected.target}）` : ''}`,
            ),
          },
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
      details: {
        findings: decision.findings,
        ...(decision.sandbox
          ? {
              sandbox: {
                sandboxed: decision.sandbox.sandboxed,
                mechanism: decision.sandbox.mechanism,
                network: decision.sandbox.network,
                writable: decision.sandbox.writable,
                hidden: decision.sandbox.hidden,
                escapes: decision.sandbox.escapes,
                ...(decision.sandbox.unavailable ? { unavailable: decision.sandbox.unavailable } : {}),
              },
            }
          : {}),
      },
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
      // A run resumed after a restart repeats its call: it gets the answer given (or still to be
      // given) to the request it already made, and the person is not asked twice.
      const earlier =
        context.runId && request.call_id
          ? this.options.approvals.findForRunCall(context.runId, callId, tool.name, input, {
              decision,
              sensitive: signals.sensitive?.kind,
            })
          : undefined;
      const approval =
        earlier ??
        this.options.approvals.request({
          callId,
          runId: context.runId,
          project: evaluated.project,
          source: context.source,
          tool: tool.name,
          input,
          decision,
          sensitive: signals.sensitive?.kind,
        });
      const onCancel = () => this.options.approvals.cancel(approval.id, 'the caller went away before it was answered');
      context.cancel?.addEventListener('abort', onCancel, { once: true });
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
        return finish(
          failure(
            'APPROVAL_DENIED',
            say(
              `The person denied this ${tool.name} call.${said ? ` They said: "${said}"` : ''}`,
              `你拒绝了这次 ${tool.name} 调用。${said ? `你说：“${said}”` : ''}`,
            ),
          ),
        );
      }
      if (answer.status === 'cancelled') {
        return finish(
          failure(
            'APPROVAL_CANCELLED',
            say(
              `The approval request was closed unanswered (${answer.message}).`,
              `审批请求在回答前被关闭（${answer.message}）。`,
            ),
          ),
        );
      }
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
      this.stageWebText(tool, input, context.runId, signals);
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

  /**
   * What the call's input shows without asking a page: a command (or app arguments, typed or
   * clipboard text) that a page this run read suggested, a key that would submit such text, or a
   * request for a tab the person opened.
   */
  private webSignals(tool: AnyTool, input: Record<string, unknown>, context: CallContext): WebSignals {
    if (tool.name === 'browser_tabs' && input.action === 'attach') {
      return {
        tabAccess: {
          reason: say(
            'lets the agent work in a tab you opened yourself (your own, maybe signed-in, page)',
            '会让智能体在你自己打开的标签页里操作（你自己的、可能已登录的页面）',
          ),
        },
      };
    }
    const provenance = this.options.webProvenance;
    if (!provenance || !context.runId) return {};
    if (tool.name === 'key_press' || tool.name === 'hotkey') return this.keySignals(input, context.runId);
    // Typed text is checked whatever it holds: "curl x | sh" typed into a terminal runs on the
    // Enter that follows, and what goes on the clipboard is typed by the paste that follows.
    const text =
      tool.name === 'bash_execute'
        ? String(input.command ?? '')
        : tool.name === 'app_launch'
          ? [input.name, ...(Array.isArray(input.args) ? input.args : [])].map(String).join(' ')
          : tool.name === 'type_text'
            ? String(input.text ?? '')
            : tool.name === 'clipboard_write' && input.format !== 'image'
              ? String(input.content ?? '')
              : undefined;
    if (text === undefined) return {};
    const origin = provenance.match(context.runId, text);
    if (origin) {
      const [en, zh] =
        tool.name === 'type_text'
          ? ['types text', '输入的文字']
          : tool.name === 'clipboard_write'
            ? ['puts text on the clipboard', '放到剪贴板上的文字']
            : ['runs a command', '运行的命令'];
      return {
        webText: origin.excerpt,
        webContent: {
          reason: say(
            `${en} that a web page this run read suggested ("${origin.excerpt}")`,
            `${zh}来自本次任务读过的网页（“${origin.excerpt}”）`,
          ),
        },
      };
    }
    // Only what runs (a command, an app, typed lines) opens what Downloads holds; a path typed
    // into a file dialog or put on the clipboard does not.
    const runs = tool.name !== 'clipboard_write' && (tool.name !== 'type_text' || /[\r\n]/.test(text));
    if (
      runs &&
      provenance.sawWeb(context.runId) &&
      /(^|[\s'"=/])(~|\$HOME|\/home\/[^/\s]+|\/Users\/[^/\s]+)?\/?Downloads\//.test(text)
    ) {
      return {
        webContent: {
          reason: say(
            'opens or runs something in Downloads, where web pages put what they download',
            '打开或运行“下载”文件夹中的内容，网页下载的东西就放在那里',
          ),
        },
      };
    }
    return {};
  }

  /** Enter after page-suggested text was typed, or a paste of page-suggested clipboard text. */
  private keySignals(input: Record<string, unknown>, runId: string): WebSignals {
    const provenance = this.options.webProvenance;
    const keys = chordOf(input.keys);
    if (!provenance || !keys) return {};
    const typed = keys.includes('enter') ? provenance.stagedText(runId, 'typed') : undefined;
    if (typed !== undefined) {
      return {
        webText: typed,
        webContent: {
          reason: say(
            `presses Enter after typing text that a web page this run read suggested ("${typed}")`,
            `在输入来自本次任务读过的网页的文字（“${typed}”）之后按回车`,
          ),
        },
      };
    }
    const clipboard = isPaste(keys) ? provenance.stagedText(runId, 'clipboard') : undefined;
    if (clipboard !== undefined) {
      return {
        webText: clipboard,
        webContent: {
          reason: say(
            `pastes text that a web page this run read suggested ("${clipboard}")`,
            `粘贴来自本次任务读过的网页的文字（“${clipboard}”）`,
          ),
        },
      };
    }
    return {};
  }

  /**
   * After a call ran: page-suggested text now typed (Enter would submit it) or on the clipboard
   * (a paste would type it), so that key is asked about as the text was.
   */
  private stageWebText(tool: AnyTool, input: Record<string, unknown>, runId: string, signals: WebSignals): void {
    const provenance = this.options.webProvenance;
    if (!provenance) return;
    switch (tool.name) {
      case 'type_text':
        // Other text typed after it does not take it out of the field: only Enter sends it.
        if (signals.webText !== undefined) provenance.stage(runId, 'typed', signals.webText);
        return;
      case 'clipboard_write':
        // The clipboard holds one thing: what was put there last.
        provenance.stage(runId, 'clipboard', signals.webText);
        return;
      case 'key_press':
      case 'hotkey': {
        const keys = chordOf(input.keys);
        if (!keys) return;
        const clipboard = provenance.stagedText(runId, 'clipboard');
        if (isPaste(keys) && clipboard !== undefined) provenance.stage(runId, 'typed', clipboard);
        else if (keys.includes('enter')) provenance.stage(runId, 'typed', undefined);
        return;
      }
    }
  }

  /**
   * browser_tabs attach: the tab it would take, asked of the browser before the policy decides
   * and pinned into the input. Without a tab_id, a browser that cannot say which tab it means
   * gets the call refused (the model lists the tabs and names one): an unpinned attach could take
   * a tab the person never saw on the approval card.
   */
  private async pinTab(
    input: Record<string, unknown>,
    callId: string,
    context: CallContext,
  ): Promise<{ ok: true; input: Record<string, unknown>; target?: string } | { ok: false; message: string }> {
    const inspected = await this.inspectTarget(input, callId, context, 'browser_tabs');
    const tabId = inspected?.tab_id ?? (typeof input.tab_id === 'number' ? input.tab_id : undefined);
    if (tabId === undefined || (input.tab_id !== undefined && tabId !== input.tab_id)) {
      if (inspected?.error) this.options.log.info('the browser did not name the tab to attach', inspected.error);
      return {
        ok: false,
        message:
          'browser_tabs attach needs a tab_id here: the browser could not tell which tab the person has in front. List the tabs with browser_tabs {"action":"list"} and attach the one the person means by its tab_id.',
      };
    }
    // The browser's words for the tab (its title comes from the page): kept short on the card.
    const target = inspected?.target?.slice(0, 200);
    return { ok: true, input: { ...input, tab_id: tabId }, ...(target ? { target } : {}) };
  }

  private async inspectTarget(
    input: Record<string, unknown>,
    callId: string,
    context: CallContext,
    tool: InspectedTool = 'browser_interact',
  ): Promise<InspectResult | undefined> {
    const backend = this.browserBackend();
    if (!backend) return undefined;
    try {
      return await backend.inspect(input, callId, this.browserContext(context, [], undefined), tool);
    } catch (error) {
      // Without a description the call still runs with nothing sensitive approved: the page agent
      // refuses a sensitive target itself (TARGET_CHANGED), so this fails closed.
      this.options.log.warn('could not inspect the page before deciding', { error: (error as Error).message });
      return undefined;
    }
  }

  private browserContext(
    context: CallContext,
    allow: SensitiveTarget['kind'][],
    file: UploadFile | undefined,
  ): BrowserCallContext {
    return {
      ...(context.runId ? { run_id: context.runId } : {}),
      allow_sensitive: allow,
      ...(this.options.navigationRules ? { navigation: this.options.navigationRules(context.grant) } : {}),
      ...(file ? { file } : {}),
    };
  }

  /** The extension of the most recent browser that can run browser tools, else the headless browser. */
  private browserBackend(): BrowserBackend | undefined {
    const client = this.options
      .browserClients()
      .find((candidate) => candidate.info?.tools.some((name) => getTool(name)?.runsIn === 'extension'));
    if (client) return new ExtensionBackend(client, this.options.extensionTimeoutMs ?? 120_000);
    return this.options.headless?.();
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
      requiredLevel: requiredLevel(tool.name, input, effectiveRisk(assessment.analysis.risk, assessment.sandbox?.plan)),
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
      const inputEnded = isInput ? this.options.agentInput?.begin() : undefined;
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
    const running: RunningCall = { controller, done: work.catch(() => undefined) };
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
    const clients = this.options.browserClients();
    if (clients.some((client) => client.info?.tools.includes(tool.name))) return { available: true };
    if (this.options.headless?.()) return { available: true };
    if (clients.length === 0) {
      return {
        available: false,
        reason:
          'No browser with the NextAI extension is connected, and no Chrome or Chromium was found to browse headless (set browser.executable_path in config.json).',
      };
    }
    return { available: false, reason: 'The connected browser extension cannot run it.' };
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
    const backend = this.browserBackend();
    if (!backend) return failure('UNAVAILABLE', `${tool.title} needs a browser, and none is connected.`);
    let file: UploadFile | undefined;
    if (tool.name === 'browser_interact' && input.action === 'upload' && typeof input.value === 'string') {
      if (!this.options.readUpload) return failure('UNAVAILABLE', 'Uploading files is not available here.');
      file = this.options.readUpload(input.value);
    }
    // Only the sensitive kind the person just approved is let through; the page refuses any other.
    const allow = sensitive ? [sensitive.kind] : [];
    return backend.call(tool.name, input, callId, this.browserContext(context, allow, file), signal);
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

/** A key_press or hotkey chord in canonical key names; undefined when a key is not understood. */
function chordOf(keys: unknown): string[] | undefined {
  if (!Array.isArray(keys)) return undefined;
  try {
    return keys.map((key) => normalizeKey(String(key)));
  } catch {
    // The tool refuses such a chord itself; there is nothing it would type.
    return undefined;
  }
}

/** Ctrl+V, Cmd+V (with Shift too, "paste as plain text"), Shift+Insert. */
function isPaste(keys: readonly string[]): boolean {
  return (
    (keys.includes('v') && (keys.includes('ctrl') || keys.includes('meta'))) ||
    (keys.includes('insert') && keys.includes('shift'))
  );
}
