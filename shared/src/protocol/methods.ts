import { z } from 'zod';

import { SENSITIVE_KINDS } from '../browser/page-ops.js';
import { BLOB_SLICE_BYTES } from '../constants.js';
import { errorCodeSchema } from '../errors.js';
import { messageTranslationsSchema } from '../i18n.js';
import {
  grantedToolSetSchema,
  projectApprovalPolicySchema,
  promptRulesSchema,
  securityConfigSchema,
  templateIdSchema,
} from '../policy/config.js';
import { decisionSchema, decisionTranslationsSchema, sandboxInfoSchema } from '../policy/decision.js';
import { RISK_LEVELS, TOOL_CATEGORIES } from '../tools/define-tool.js';
import { eventSchema } from './events.js';
import { RUN_METHODS } from './runs.js';
import { SCHEDULE_METHODS } from './schedules.js';
import { SETTINGS_METHODS } from './settings.js';
import { storageHealthSchema } from './storage.js';

export interface MethodSpec<Params extends z.ZodType = z.ZodType, Result extends z.ZodType = z.ZodType> {
  readonly params: Params;
  readonly result: Result;
}

export type MethodTable = Record<string, MethodSpec>;
export type NotificationTable = Record<string, z.ZodType>;

const platformSchema = z.enum(['linux', 'macos', 'windows']);

export const CLIENT_KINDS = ['extension', 'cli', 'mcp', 'test'] as const;
export const clientKindSchema = z.enum(CLIENT_KINDS);

export const clientInfoSchema = z.object({
  kind: clientKindSchema,
  name: z.string().min(1).max(100).describe('e.g. "chromium", "firefox", "nextai-cli"'),
  version: z.string().max(50),
  /** What the client can do for the daemon, e.g. run browser tools. */
  capabilities: z.array(z.enum(['browser_tools'])).default([]),
  /** With `browser_tools`: the tools this client has handlers for. */
  tools: z.array(z.string()).default([]),
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;

export const connectedClientSchema = z.object({
  client_id: z.string(),
  kind: z.string(),
  name: z.string(),
  version: z.string().optional(),
  origin: z.string().optional(),
  connected_at: z.string(),
  is_caller: z.boolean(),
});

export const daemonInfoSchema = z.object({
  version: z.string(),
  protocol_version: z.number().int(),
  pid: z.number().int(),
  platform: platformSchema,
  arch: z.string(),
  data_dir: z.string(),
  started_at: z.string(),
});
export type DaemonInfo = z.infer<typeof daemonInfoSchema>;

export const toolErrorSchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
  /** `message` in the panel's other languages, where the daemon wrote it for a person too. */
  translations: messageTranslationsSchema.optional(),
});

/**
 * What every tool call returns. A failing tool is a result the model can read, not an exception;
 * only a call that never reached a tool (unknown name, daemon gone) is a JSON-RPC error.
 */
/** The policy's verdict on a call, as reported with its result. */
export const decisionSummarySchema = decisionSchema.pick({ action: true, risk: true, layer: true, reason: true });

export const toolResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    output: z.unknown(),
    duration_ms: z.number(),
    decision: decisionSummarySchema.optional(),
  }),
  z.object({
    ok: z.literal(false),
    error: toolErrorSchema,
    duration_ms: z.number(),
    decision: decisionSummarySchema.optional(),
  }),
]);
export type ToolResult = z.infer<typeof toolResultSchema>;
export type ToolError = z.infer<typeof toolErrorSchema>;
/** A tool result before the gateway stamps its duration. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: ToolError };

export const toolInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.enum(TOOL_CATEGORIES),
  risk: z.enum(RISK_LEVELS),
  effect: z.enum(['read', 'write', 'destructive']),
  runs_in: z.enum(['host', 'extension']),
  platforms: z.array(platformSchema),
  available: z.boolean(),
  unavailable_reason: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  annotations: z.object({
    title: z.string(),
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  }),
});
export type ToolInfo = z.infer<typeof toolInfoSchema>;

/** Who a call is for: the policy decides with these. */
const callContextSchema = {
  /** Project whose approval policy applies; the default project when omitted. */
  project: z.string().min(1).max(100).optional(),
  /** The agent run making the call (approvals "for this run", the denial circuit breaker). */
  run_id: z.string().min(1).max(100).optional(),
  /** Coordinator grant for the task: it can only tighten. */
  grant: grantedToolSetSchema.optional(),
  /** Approval rules declared in the instructions: they can only tighten. */
  prompt_rules: promptRulesSchema.optional(),
};

const toolCallParamsSchema = z.object({
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
  /** Set by the caller to correlate events; generated by the daemon when omitted. */
  call_id: z.string().max(100).optional(),
  ...callContextSchema,
});

export const approvalSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  call_id: z.string(),
  run_id: z.string().nullable(),
  project: z.string(),
  source: z.string(),
  tool: z.string(),
  input: z.record(z.string(), z.unknown()),
  risk: z.string(),
  layer: z.string(),
  reason: z.string(),
  findings: z.array(z.string()),
  /** `reason` and `findings` in the panel's other languages (absent for requests older than them). */
  translations: decisionTranslationsSchema.default({}),
  per_call: z.boolean(),
  /** Where the command or app would run: in the sandbox, or why it asks to leave it. */
  sandbox: sandboxInfoSchema.nullable().default(null),
  status: z.enum(['pending', 'approved', 'denied', 'cancelled']),
  scope: z.enum(['once', 'run']).nullable(),
  message: z.string().nullable(),
  answered_at: z.string().nullable(),
  answered_by: z.string().nullable(),
});
export type Approval = z.infer<typeof approvalSchema>;

export const auditRecordSchema = z.object({
  seq: z.number().int(),
  time: z.string(),
  kind: z.string(),
  entry: z.record(z.string(), z.unknown()),
  prev_hash: z.string(),
  hash: z.string(),
});

export const auditVerificationSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    rows: z.number().int(),
    head: z.object({ seq: z.number(), hash: z.string() }).optional(),
  }),
  z.object({
    ok: z.literal(false),
    rows: z.number().int(),
    problem: z.object({ seq: z.number().int(), kind: z.string(), message: z.string() }),
  }),
]);

export const emergencyStateSchema = z.object({
  active: z.boolean(),
  since: z.string().optional(),
  reason: z.string().optional(),
  by: z.string().optional(),
});

const projectViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The template the policy equals, if any. */
  template: templateIdSchema.nullable(),
  approval: projectApprovalPolicySchema,
});

/** Requests a client (extension via the bridge, CLI, MCP server) sends to the daemon. */
export const DAEMON_METHODS = {
  'daemon.hello': {
    params: z.object({ client: clientInfoSchema, protocol_version: z.number().int() }),
    result: z.object({ daemon: daemonInfoSchema, client_id: z.string() }),
  },
  'daemon.status': {
    params: z.object({}),
    result: z.object({
      running: z.literal(true),
      daemon: daemonInfoSchema,
      uptime_ms: z.number(),
      clients: z.array(connectedClientSchema),
      last_event_seq: z.number().int(),
      /** Whether the database can be written, and when not, why and what to do (absent from daemons before it was reported). */
      storage: storageHealthSchema.optional(),
    }),
  },
  'daemon.ping': {
    params: z.object({ payload: z.string().optional() }),
    result: z.object({ payload: z.string().optional(), time: z.number() }),
  },
  'daemon.shutdown': {
    params: z.object({
      reason: z.string().max(200).optional(),
      /**
       * How long running tool calls may go on finishing before they are aborted: 0 stops now;
       * absent, the daemon's `daemon.stop_grace_seconds` (30 s by default).
       */
      grace_ms: z
        .number()
        .int()
        .min(0)
        .max(60 * 60 * 1000)
        .optional(),
    }),
    result: z.object({
      stopping: z.literal(true),
      /** The grace period the stop takes (absent from daemons before it had one). */
      grace_ms: z.number().int().optional(),
      /** Tool calls running when it was asked: the stop waits for them, up to the grace period. */
      running_calls: z.number().int().optional(),
    }),
  },
  'tools.list': {
    params: z.object({}),
    result: z.object({ tools: z.array(toolInfoSchema) }),
  },
  'tools.call': {
    params: toolCallParamsSchema,
    result: toolResultSchema,
  },
  /** A payload a tool returned by reference (`blob:<id>`, e.g. a large screenshot), read in slices. */
  'blobs.read': {
    params: z.object({
      reference: z.string().min(1),
      offset: z.number().int().min(0).default(0).describe('Byte offset'),
      length: z
        .number()
        .int()
        .positive()
        .max(BLOB_SLICE_BYTES)
        .default(BLOB_SLICE_BYTES)
        .describe('Bytes to read; at most 512 KiB so a slice fits any frame'),
    }),
    result: z.object({
      data: z.string().describe('Base64 of the slice'),
      mime_type: z.string(),
      offset: z.number().int(),
      total_bytes: z.number().int(),
      next_offset: z.number().int().nullable().describe('Where the next slice starts; null at the end'),
    }),
  },
  'policy.explain': {
    params: z.object({
      tool: z.string().min(1),
      input: z.record(z.string(), z.unknown()).default({}),
      ...callContextSchema,
    }),
    result: z.object({ decision: decisionSchema, project: z.string() }),
  },
  'policy.show': {
    params: z.object({ project: z.string().optional() }),
    result: z.object({
      project: projectViewSchema,
      projects: z.array(projectViewSchema),
      security: securityConfigSchema,
      config: z.object({
        file: z.string(),
        source: z.enum(['file', 'defaults', 'last_good']),
        problem: z.string().optional(),
      }),
    }),
  },
  'policy.set_template': {
    params: z.object({ template: z.string().min(1), project: z.string().optional() }),
    result: z.object({ project: projectViewSchema }),
  },
  'approvals.list': {
    params: z.object({
      status: z.enum(['pending', 'all']).default('pending'),
      limit: z.number().int().positive().max(1000).default(100),
    }),
    result: z.object({ approvals: z.array(approvalSchema) }),
  },
  'approvals.answer': {
    params: z.object({
      id: z.string().min(1),
      decision: z.enum(['approve', 'deny']),
      scope: z.enum(['once', 'run']).default('once'),
      message: z.string().max(2000).optional(),
    }),
    result: z.object({ approval: approvalSchema }),
  },
  'audit.list': {
    params: z.object({
      limit: z.number().int().positive().max(5000).default(100),
      before_seq: z.number().int().optional(),
      after_seq: z.number().int().optional(),
    }),
    result: z.object({ records: z.array(auditRecordSchema) }),
  },
  'audit.verify': {
    params: z.object({}),
    result: auditVerificationSchema,
  },
  'safety.stop': {
    params: z.object({ reason: z.string().max(500).optional() }),
    result: z.object({
      already_active: z.boolean(),
      aborted_calls: z.number().int(),
      /** Apps the agent started (app_launch) that were running and were ended, with all they started. */
      apps_ended: z.number().int(),
      /** Apps the agent started that could not be ended. */
      apps_still_running: z.number().int(),
      /** Milliseconds from the request until every running tool call had ended. */
      ended_ms: z.number(),
      inputs_released: z.string(),
      notification: z.string(),
    }),
  },
  'safety.reset': {
    params: z.object({}),
    result: z.object({ was_active: z.boolean() }),
  },
  'safety.status': {
    params: z.object({}),
    result: emergencyStateSchema,
  },
  'events.subscribe': {
    params: z.object({
      after_seq: z.number().int().min(0).default(0),
      /** The `log_id` the client saw with `after_seq`; a different one means a new event log. */
      log_id: z.string().optional(),
    }),
    result: z.object({
      log_id: z.string(),
      last_seq: z.number().int(),
      replayed: z.number().int(),
      /**
       * Some events after `after_seq` cannot be replayed (pruned, or a different event log): the
       * client should refresh its state instead of patching it.
       */
      gap: z.boolean(),
    }),
  },
  ...RUN_METHODS,
  ...SETTINGS_METHODS,
  ...SCHEDULE_METHODS,
} as const satisfies MethodTable;

/** Navigation rules compiled from the domain policy, enforced by the browser on every navigation. */
export const navigationRulesSchema = z.object({
  /** Changes whenever the rules do, so a browser re-installs them only then. */
  version: z.string(),
  /** URL regular expressions (RE2 syntax) of addresses never to open. */
  block: z.array(z.string()),
  /** When set, only addresses matching one of these may open. */
  allow_only: z.array(z.string()).optional(),
  /**
   * Loopback, link-local, private-network and metadata addresses as far as the URL shows them
   * (IP literals, localhost and other special-use names; a browser's own DNS answers are not
   * seen): refused below `block`, above `allow_only`, unless `private_allow` matches.
   */
  private_block: z.array(z.string()).optional(),
  /** The hosts among those the person named exactly in security.allowed_domains (and the grant admits). */
  private_allow: z.array(z.string()).optional(),
});
export type NavigationRules = z.infer<typeof navigationRulesSchema>;

export const browserCallContextSchema = z.object({
  /** Keeps each run in its own working tab. */
  run_id: z.string().optional(),
  /** Sensitive page actions the person approved for this call (see SENSITIVE_KINDS). */
  allow_sensitive: z.array(z.enum(SENSITIVE_KINDS)).default([]),
  navigation: navigationRulesSchema.optional(),
  /** The file of an `upload`, read by the daemon after the policy allowed its path. */
  file: z.object({ name: z.string(), mime_type: z.string(), data_base64: z.string() }).optional(),
});
export type BrowserCallContext = z.infer<typeof browserCallContextSchema>;

const surfaceRectSchema = z.object({
  x: z.number().finite(),
  y: z.number().finite(),
  width: z.number().finite().nonnegative(),
  height: z.number().finite().nonnegative(),
});

/**
 * One of NextAI's own pages on the person's screen, as the browser sees it: the side panel (or
 * Firefox's sidebar), a page of the extension in a tab, or a browser page that manages extensions.
 * `rects` are where it may be, in the browser's screen coordinates (DIPs: screen pixels divided by
 * `scale`); more than one when the browser cannot say which side of its window the panel is on.
 */
export const ownSurfaceSchema = z.object({
  kind: z.enum(['panel', 'extension_page', 'browser_page']),
  /** Whether the page has the keyboard focus (its window is the focused one and it is focused in it). */
  focused: z.boolean(),
  rects: z.array(surfaceRectSchema).max(4),
  scale: z.number().positive().max(16),
});
export type OwnSurface = z.infer<typeof ownSurfaceSchema>;

/** Requests the daemon sends to a client that declared the capability. */
export const CLIENT_METHODS = {
  'extension.tool_call': {
    params: z.object({
      name: z.string(),
      input: z.record(z.string(), z.unknown()),
      call_id: z.string(),
      /** What the daemon's policy settled for this call; absent from older daemons. */
      context: browserCallContextSchema.optional(),
    }),
    result: toolResultSchema,
  },
  /**
   * What a browser_interact call would act on, asked before the policy decides: the element as a
   * snapshot names it, and whether the action is one a person must always approve.
   */
  'extension.inspect': {
    params: z.object({
      input: z.record(z.string(), z.unknown()),
      call_id: z.string(),
      context: browserCallContextSchema.optional(),
      /**
       * The tool whose call is looked at; absent means browser_interact (all older daemons ask).
       * browser_tabs: which tab an `attach` would take — the given tab_id, else the active tab of
       * the last focused window — answered with `tab_id` and a `target` naming it.
       */
      tool: z.enum(['browser_interact', 'browser_tabs']).optional(),
    }),
    result: z.object({
      target: z.string().optional(),
      sensitive: z.object({ kind: z.enum(SENSITIVE_KINDS), reason: z.string() }).optional(),
      /** browser_tabs: the tab the call would act on; the daemon pins it into the call it approves. */
      tab_id: z.number().int().optional(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
  },
  /**
   * Where NextAI's pages are on screen now, asked right before the agent clicks or
   * types: the browser's view of its windows' focus and places at that moment.
   */
  'extension.surfaces': {
    params: z.object({}),
    result: z.object({ surfaces: z.array(ownSurfaceSchema).max(64) }),
  },
} as const satisfies MethodTable;

export const chunkParamsSchema = z.object({
  message_id: z.string(),
  index: z.number().int().min(0),
  count: z.number().int().min(1),
  data: z.string(),
});
export type ChunkParams = z.infer<typeof chunkParamsSchema>;

export const bridgeStateSchema = z.object({
  daemon: z.enum(['connected', 'reconnecting', 'unavailable']),
  message: z.string().optional(),
});

/** Notifications from the daemon (or the bridge) to clients. */
export const CLIENT_NOTIFICATIONS = {
  event: eventSchema,
  /** One piece of a host→browser message that was over the native-messaging size limit. */
  'bridge.chunk': chunkParamsSchema,
  /** The bridge's view of its daemon connection; sent only after a change, never unprompted at start. */
  'bridge.state': bridgeStateSchema,
} as const satisfies NotificationTable;

/** Notifications from clients to the daemon. */
export const DAEMON_NOTIFICATIONS = {
  /** First message of a bridge: which browser extension it speaks for. */
  'bridge.register': z.object({ origin: z.string(), host_pid: z.number().int() }),
  /**
   * Every page of NextAI's own on screen now: the agent's mouse and keyboard may not
   * act on them. The whole list each time, so a lost message is mended by the next.
   */
  'ui.surfaces': z.object({ surfaces: z.array(ownSurfaceSchema).max(64) }),
} as const satisfies NotificationTable;

export type DaemonMethod = keyof typeof DAEMON_METHODS;
export type MethodParams<T extends MethodTable, M extends keyof T> = z.input<T[M]['params']>;
export type MethodResult<T extends MethodTable, M extends keyof T> = z.output<T[M]['result']>;
