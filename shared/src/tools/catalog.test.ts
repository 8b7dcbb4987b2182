import { describe, expect, it } from 'vitest';

import { TOOL_CATALOG, TOOL_NAMES, getTool } from './catalog.js';
import { toInputJsonSchema, toMcpAnnotations, toModelTool, toOutputJsonSchema } from './derive.js';

/** The tools DESIGN.md §2 "Tool catalog" names. */
const DESIGN_TOOLS = [
  // seed 000 §3.1
  'screenshot', 'screen_ocr', 'element_locate', 'mouse_move', 'left_click', 'right_click', 'double_click',
  'mouse_drag', 'scroll', 'type_text', 'key_press', 'hotkey', 'app_launch', 'app_switch', 'app_list', 'app_close',
  'window_manage', 'bash_execute', 'bash_session', 'file_read', 'file_write', 'file_edit', 'file_search',
  'file_watch', 'browser_navigate', 'browser_interact', 'browser_extract', 'clipboard_read', 'clipboard_write',
  'notification_send', 'system_info',
  // seed 002
  'create_directory', 'delete_file',
  // what the agent needs besides
  'browser_snapshot', 'browser_tabs', 'ask_user', 'todo_write', 'web_fetch',
]; // prettier-ignore

describe('tool catalog', () => {
  it('declares every tool of the design exactly once', () => {
    expect([...TOOL_NAMES].sort()).toEqual([...DESIGN_TOOLS].sort());
    expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
  });

  it('keeps the default risk levels of seed 000 §3.1', () => {
    const risks = Object.fromEntries(TOOL_CATALOG.map((tool) => [tool.name, tool.risk]));
    expect(risks).toMatchObject({
      screenshot: 'low', screen_ocr: 'low', element_locate: 'low', mouse_move: 'medium', left_click: 'medium',
      right_click: 'medium', double_click: 'medium', mouse_drag: 'medium', scroll: 'low', type_text: 'medium',
      key_press: 'medium', hotkey: 'high', app_launch: 'medium', app_switch: 'low', app_list: 'low',
      app_close: 'medium', window_manage: 'low', bash_execute: 'high', bash_session: 'high', file_read: 'medium',
      file_write: 'high', file_edit: 'high', file_search: 'low', file_watch: 'low', browser_navigate: 'medium',
      browser_interact: 'medium', browser_extract: 'low', clipboard_read: 'medium', clipboard_write: 'medium',
      notification_send: 'low', system_info: 'low',
    }); // prettier-ignore
  });

  it('applies the seed defaults when the model leaves parameters out', () => {
    expect(getTool('screenshot').input.parse({})).toEqual({ mode: 'fullscreen', format: 'jpeg', quality: 80 });
    expect(getTool('mouse_move').input.parse({ x: 1, y: 2 })).toEqual({ x: 1, y: 2, smooth: true, duration: 100 });
    expect(getTool('mouse_drag').input.parse({ from_x: 0, from_y: 0, to_x: 1, to_y: 1 })).toMatchObject({
      duration: 500,
    });
    expect(getTool('scroll').input.parse({ x: 0, y: 0, direction: 'down' })).toMatchObject({ amount: 300 });
    expect(getTool('type_text').input.parse({ text: 'hi' })).toMatchObject({ delay: 50 });
    expect(getTool('bash_execute').input.parse({ command: 'ls' })).toMatchObject({ timeout: 120_000 });
    expect(getTool('bash_session').input.parse({ action: 'list' })).toMatchObject({ shell: 'bash' });
    expect(getTool('file_search').input.parse({ directory: '.', pattern: '*' })).toMatchObject({
      type: 'name',
      max_results: 50,
    });
    expect(getTool('file_watch').input.parse({ path: '.' })).toMatchObject({ recursive: true });
    expect(getTool('browser_navigate').input.parse({ url: 'https://a.example' })).toMatchObject({
      wait_until: 'load',
      timeout: 30_000,
    });
    expect(getTool('notification_send').input.parse({ title: 't', body: 'b' })).toMatchObject({ urgency: 'normal' });
    expect(getTool('delete_file').input.parse({ path: '/tmp/x' })).toMatchObject({ permanent: false });
    expect(getTool('app_close').input.parse({ name: 'x' })).toMatchObject({ force: false });
    expect(getTool('app_list').input.parse({})).toMatchObject({ include_windows: false });
  });

  it('rejects parameters a tool does not have, so typos are not silently ignored', () => {
    expect(getTool('system_info').input.safeParse({ category: ['cpu'] }).success).toBe(false);
    expect(getTool('left_click').input.safeParse({ x: 1, y: 1, button: 'left' }).success).toBe(false);
  });

  it('requires the approval reason of hotkey and the command of bash_execute', () => {
    expect(getTool('hotkey').input.safeParse({ keys: ['cmd', 'tab'] }).success).toBe(false);
    expect(getTool('bash_execute').input.safeParse({}).success).toBe(false);
  });

  it('derives MCP annotations from each tool’s declared effect', () => {
    expect(toMcpAnnotations(getTool('system_info'))).toEqual({
      title: 'System information',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(toMcpAnnotations(getTool('delete_file'))).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(toMcpAnnotations(getTool('browser_navigate'))).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('derives a JSON Schema for every input and output', () => {
    for (const tool of TOOL_CATALOG) {
      const input = toInputJsonSchema(tool);
      expect(input.type, tool.name).toBe('object');
      expect(input.additionalProperties, tool.name).toBe(false);
      expect(toOutputJsonSchema(tool).type, tool.name).toBe('object');
      expect(tool.description.length, tool.name).toBeGreaterThan(20);
    }
  });

  it('gives models the same schemas as last time (snapshot)', () => {
    expect(TOOL_CATALOG.map((tool) => toModelTool(tool))).toMatchSnapshot();
  });
});
