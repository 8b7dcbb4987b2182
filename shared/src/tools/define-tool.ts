import type { z } from 'zod';

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
 * Category names in the languages the product speaks. The Chinese names are the ones seed 000
 * uses (e.g. in `category_overrides: { "终端操控": … }`), so policies written either way match.
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

/** Everything the product knows about a tool, declared once. Handlers live elsewhere. */
export interface ToolSpec<
  Name extends string = string,
  Input extends z.ZodType = z.ZodType,
  Output extends z.ZodType = z.ZodType,
  Where extends RunsIn = RunsIn,
> {
  readonly name: Name;
  readonly title: string;
  /** Written for the model: what the tool does, when to use it, what comes back. */
  readonly description: string;
  readonly category: ToolCategory;
  /** Default risk; the policy engine may raise it from what a given input does. */
  readonly risk: RiskLevel;
  readonly effect: Effect;
  readonly platforms: readonly Platform[];
  readonly runsIn: Where;
  readonly input: Input;
  readonly output: Output;
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
