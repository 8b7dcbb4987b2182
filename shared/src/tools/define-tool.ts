import type { z } from 'zod';

import type { PermissionLevel } from '../policy/actions.js';
import type { ToolResources } from './resources.js';

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const PLATFORMS = ['linux', 'macos', 'windows'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** `host`: the daemon runs it on the desktop. `extension`: the browser extension runs it in a tab. */
export type RunsIn = 'host' | 'extension';

/**
 * What a call does to the world, independent of how risky the tool is by default. `read`
 * changes nothing; `write` changes state that can be changed back; `destructive` may lose data
 * or act irreversibly. MCP annotations are derived from it.
 */
export type Effect = 'read' | 'write' | 'destructive';

export const TOOL_CATEGORIES = [
  'screen',
  'mouse',
  'keyboard',
  'apps',
  'terminal',
  'files',
  'browser',
  'system',
  'agent',
  'web',
] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/**
 * Category names in the languages the product speaks. A policy may name a category in Chinese
 * too (e.g. `category_overrides: { "终端操控": … }`), so policies written either way match.
 */
export const CATEGORY_TITLES: Record<ToolCategory, { en: string; 'zh-CN': string }> = {
  screen: { en: 'Screen capture', 'zh-CN': '屏幕捕获' },
  mouse: { en: 'Mouse', 'zh-CN': '鼠标操控' },
  keyboard: { en: 'Keyboard', 'zh-CN': '键盘操控' },
  apps: { en: 'Apps and windows', 'zh-CN': '应用管理' },
  terminal: { en: 'Terminal', 'zh-CN': '终端操控' },
  files: { en: 'Files', 'zh-CN': '文件系统' },
  browser: { en: 'Browser', 'zh-CN': '浏览器' },
  system: { en: 'System', 'zh-CN': '系统操作' },
  agent: { en: 'Agent', 'zh-CN': '智能体' },
  web: { en: 'Web', 'zh-CN': '网络' },
};

/**
 * Who wrote what a tool's output says. `trusted`: NextAI, the person or the operating system —
 * the model gets it as it is. `outside`: files, the screen, programs, other apps — the model gets
 * it marked as untrusted data, never instructions. `web`: web pages — untrusted data too, and
 * remembered for the run, so that a command a page suggested is told apart (web-provenance.ts).
 */
export type OutputSource = 'trusted' | 'outside' | 'web';

/**
 * Everything the product knows about a tool, declared once. Handlers live elsewhere.
 *
 * The members that take a call's input (`resources`, `needsFullControl`) are written as methods
 * on purpose: that keeps every declared tool assignable to a plain `ToolSpec`, so code that
 * handles any tool (the policy, derive.ts) takes one without knowing its input type.
 */
export interface ToolSpec<
  Name extends string = string,
  Input extends z.ZodType = z.ZodType,
  Output extends z.ZodType = z.ZodType,
  Where extends RunsIn = RunsIn,
> {
  readonly name: Name;
  readonly title: string;
  /** The title in Chinese, for the side panel's cards in 中文. */
  readonly titleZh: string;
  /** Written for the model: what the tool does, when to use it, what comes back. */
  readonly description: string;
  readonly category: ToolCategory;
  /** Default risk; the policy engine may raise it from what a given input does. */
  readonly risk: RiskLevel;
  readonly effect: Effect;
  /**
   * The lowest permission level (`security.permission_level`) at which the tool may run at all. L1
   * reads, L2 adds mouse, keyboard, apps, browser and clipboard, L3 adds the terminal, file writes
   * and system hotkeys, L4 adds what L3 keeps back (see `needsFullControl`).
   */
  readonly level: PermissionLevel;
  readonly platforms: readonly Platform[];
  readonly runsIn: Where;
  readonly input: Input;
  readonly output: Output;
  /** Whose words the output carries, and so how the model is given it. */
  readonly outputFrom: OutputSource;
  /**
   * What a call with this input touches, for the policy's guards. Required of every tool — one
   * that touches nothing says so with `touchesNothing` — so a new tool cannot reach its handler
   * with paths, addresses, apps or command lines the policy never saw.
   */
  resources(input: z.output<Input>): ToolResources;
  /**
   * A call for which this is true needs full control (L4) whatever `level` says: given its input
   * and the risk the policy found in it (after the sandbox). Absent: `level` is all it needs.
   */
  needsFullControl?(input: z.output<Input>, risk: RiskLevel): boolean;
  /**
   * The output field, besides `image`, that holds an image: the model gets it as an image block,
   * not as text. Absent: only `image`.
   */
  imageField?(output: z.output<Output>): string | undefined;
}

/**
 * L4 "unrestricted terminal", for the terminal and every other way to run a command line (a
 * launched program, typed keys): a call rated critical needs full control, whichever way it runs.
 */
export function criticalNeedsFullControl(_input: unknown, risk: RiskLevel): boolean {
  return risk === 'critical';
}

/** Identity function that exists only so TypeScript keeps the literal name and schema types. */
export function defineTool<
  const Name extends string,
  Input extends z.ZodType,
  Output extends z.ZodType,
  const Where extends RunsIn,
>(spec: ToolSpec<Name, Input, Output, Where>): ToolSpec<Name, Input, Output, Where> {
  return spec;
}

export const ALL_PLATFORMS: readonly Platform[] = PLATFORMS;
