import { say, type Localized, type PermissionLevel, type RiskLevel, type ToolName } from '@nextai/shared';

/**
 * The lowest permission level (seed 000 §7.1) at which each tool may run at all. L1 reads,
 * L2 adds mouse, keyboard, apps, browser and clipboard, L3 adds the terminal, file writes and
 * system hotkeys, L4 adds what L3 keeps back: an unrestricted terminal and forced process kills.
 */
const TOOL_LEVELS: Record<ToolName, PermissionLevel> = {
  screenshot: 'L1',
  screen_ocr: 'L1',
  element_locate: 'L1',
  system_info: 'L1',
  file_read: 'L1',
  file_search: 'L1',
  file_watch: 'L1',
  browser_extract: 'L1',
  browser_snapshot: 'L1',
  app_list: 'L1',
  ask_user: 'L1',
  todo_write: 'L1',
  mouse_move: 'L2',
  left_click: 'L2',
  right_click: 'L2',
  double_click: 'L2',
  mouse_drag: 'L2',
  scroll: 'L2',
  type_text: 'L2',
  key_press: 'L2',
  app_launch: 'L2',
  app_switch: 'L2',
  app_close: 'L2',
  window_manage: 'L2',
  browser_navigate: 'L2',
  browser_interact: 'L2',
  browser_tabs: 'L2',
  clipboard_read: 'L2',
  clipboard_write: 'L2',
  notification_send: 'L2',
  web_fetch: 'L2',
  bash_execute: 'L3',
  bash_session: 'L3',
  file_write: 'L3',
  file_edit: 'L3',
  create_directory: 'L3',
  delete_file: 'L3',
  hotkey: 'L3',
};

/** Tools that run a command line another way than the terminal tools. */
const COMMAND_CHANNELS: ReadonlySet<ToolName> = new Set(['app_launch', 'type_text', 'key_press', 'hotkey']);

/** The level a call needs, given what its input does. */
export function requiredLevel(tool: ToolName, input: Record<string, unknown>, risk: RiskLevel): PermissionLevel {
  // L4 "unrestricted terminal": commands the analyser rates critical need full control.
  if ((tool === 'bash_execute' || tool === 'bash_session') && risk === 'critical') return 'L4';
  // L4 "forced process kills".
  if (tool === 'app_close' && input.force === true) return 'L4';
  // Launching a program with a critical command line, typing one into a terminal or pressing the
  // key that submits it there: the terminal by other means (issue #16).
  if (COMMAND_CHANNELS.has(tool) && risk === 'critical') return 'L4';
  return TOOL_LEVELS[tool];
}

export const LEVEL_REASONS: Record<PermissionLevel, Localized> = {
  L1: say('read-only access', '只读访问'),
  L2: say('mouse, keyboard, apps and browser control', '鼠标、键盘、应用和浏览器控制'),
  L3: say('the terminal and file changes', '终端和文件修改'),
  L4: say('full control: an unrestricted terminal, forced process kills', '完全控制：不受限的终端、强制结束进程'),
};
