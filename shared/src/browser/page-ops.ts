/**
 * The contract between whoever drives a tab (the extension's background, or the daemon's headless
 * Chromium) and the in-page script (`page/`), which is the one implementation of snapshots,
 * element resolution, actions, settling and extraction. Types only: the page script carries no
 * schema library, and the driver validates what reaches the daemon with the tool's output schema.
 */

/** What a page action would do that a person must always approve when a page may have asked for it. */
export const SENSITIVE_KINDS = [
  'credential_submit',
  'payment_submit',
  'send_message',
  'download',
  'credential_entry',
  'payment_entry',
  'file_upload',
] as const;
export type SensitiveKind = (typeof SENSITIVE_KINDS)[number];

export interface SensitiveTarget {
  kind: SensitiveKind;
  /** In words a person understands: "submits a sign-in form with a password field". */
  reason: string;
}

export const INTERACT_ACTIONS = [
  'click',
  'fill',
  'select',
  'hover',
  'scroll',
  'press',
  'check',
  'uncheck',
  'upload',
] as const;
export type InteractAction = (typeof INTERACT_ACTIONS)[number];

export const EXTRACT_TYPES = ['text', 'html', 'markdown', 'links', 'tables'] as const;
export type PageExtractType = (typeof EXTRACT_TYPES)[number];

export interface TargetSpec {
  ref?: string | undefined;
  selector?: string | undefined;
}

/** A file for `upload`, read by the daemon after the policy allowed the path. */
export interface UploadFile {
  name: string;
  mime_type: string;
  data_base64: string;
}

export type PageRequest =
  | { op: 'snapshot'; max_chars?: number; cursor?: string | undefined }
  | ({
      op: 'act';
      action: InteractAction;
      value?: string | undefined;
      file?: UploadFile | undefined;
      /** Sensitive kinds the policy approved for this call; any other sensitive target is refused. */
      allow_sensitive: SensitiveKind[];
      /** The document the model's refs came from; a different one means the page changed. */
      expect_doc?: string | undefined;
    } & TargetSpec)
  | ({
      op: 'inspect';
      action: InteractAction;
      value?: string | undefined;
      expect_doc?: string | undefined;
    } & TargetSpec)
  | { op: 'settle'; timeout_ms: number; quiet_ms?: number }
  | {
      op: 'extract';
      type: PageExtractType;
      selector?: string | undefined;
      cursor?: string | undefined;
      max_chars?: number;
    }
  | { op: 'metrics' }
  | { op: 'scroll_to'; y: number }
  | { op: 'hide_fixed'; hide: boolean };

export interface PageError {
  code:
    | 'STALE_REF'
    | 'AMBIGUOUS_TARGET'
    | 'NOT_FOUND'
    | 'NOT_ACTIONABLE'
    | 'INVALID_INPUT'
    | 'TARGET_CHANGED'
    | 'TOOL_FAILED';
  message: string;
}

/** Every answer names the document it came from, so a driver notices a page that changed. */
export type PageReply<T = unknown> =
  | { ok: true; value: T; doc: string; url: string; title: string }
  | { ok: false; error: PageError; doc: string; url: string; title: string };

export interface SnapshotValue {
  snapshot: string;
  next_cursor?: string;
  /** How many interactive elements carry refs in the whole snapshot (all pages of it). */
  interactive: number;
}

export interface ActValue {
  message: string;
  /** The element acted on, described as the snapshot names it. */
  target?: string;
  sensitive?: SensitiveTarget;
}

export interface InspectValue {
  target: string;
  sensitive?: SensitiveTarget;
}

export interface SettleValue {
  waited_ms: number;
  mutations: number;
  quiet: boolean;
}

export interface ExtractValue {
  content?: string;
  links?: { text: string; href: string }[];
  tables?: string[][][];
  hidden_text?: string[];
  next_cursor?: string;
}

export interface MetricsValue {
  scroll_x: number;
  scroll_y: number;
  scroll_width: number;
  scroll_height: number;
  viewport_width: number;
  viewport_height: number;
  device_pixel_ratio: number;
}

/** The name the page script installs itself under, in the (isolated) world it was injected into. */
export const PAGE_AGENT_GLOBAL = '__nextaiPageAgent';

/** Bumped when the request or reply shapes change, so a driver re-injects a newer script. */
export const PAGE_AGENT_VERSION = 1;
