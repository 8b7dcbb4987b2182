import { say, type Localized, type PermissionLevel, type RiskLevel, type ToolSpec } from '@nextai/shared';

/**
 * The permission level a call needs (held against the person's `security.permission_level`, L1
 * read-only to L4 full control): the tool's own level, or full control (L4) when its
 * declaration says this input, at this risk, needs it — a critical command line on any channel
 * that runs one, a forced process kill.
 */
export function requiredLevel(tool: ToolSpec, input: Record<string, unknown>, risk: RiskLevel): PermissionLevel {
  return tool.needsFullControl?.(input, risk) ? 'L4' : tool.level;
}

export const LEVEL_REASONS: Record<PermissionLevel, Localized> = {
  L1: say('read-only access', '只读访问'),
  L2: say('mouse, keyboard, apps and browser control', '鼠标、键盘、应用和浏览器控制'),
  L3: say('the terminal and file changes', '终端和文件修改'),
  L4: say('full control: an unrestricted terminal, forced process kills', '完全控制：不受限的终端、强制结束进程'),
};
