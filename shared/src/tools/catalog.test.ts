import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { TOOL_CATALOG, TOOL_NAMES, getTool, toolTitleIn } from './catalog.js';
import { ALL_PLATFORMS, defineTool } from './define-tool.js';
import { toInputJsonSchema, toMcpAnnotations, toModelTool, toOutputJsonSchema } from './derive.js';
import { resourcesOf, touchesNothing } from './resources.js';

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

describe('what the policy knows of each tool, on its declaration', () => {
  /** A tool as a future contributor might add it; each case leaves out one thing the policy needs. */
  const draft = {
    name: 'future_tool',
    title: 'Future tool',
    titleZh: '未来的工具',
    description: 'A tool declared only to check what the type demands of a declaration.',
    category: 'files',
    risk: 'high',
    level: 'L3',
    platforms: ALL_PLATFORMS,
    runsIn: 'host',
    input: z.object({ path: z.string() }).strict(),
    output: z.object({ success: z.boolean() }),
    outputFrom: 'trusted',
  } as const;
  const { titleZh: _titleZh, level: _level, outputFrom: _outputFrom, ...untitled } = draft;

  it('does not compile a tool that does not say what it touches, whatever its effect', () => {
    // @ts-expect-error -- a writing tool without `resources` would reach its handler unguarded.
    expect(() => defineTool({ ...draft, effect: 'write' })).not.toThrow();
    // @ts-expect-error -- so would a destructive one.
    expect(() => defineTool({ ...draft, effect: 'destructive' })).not.toThrow();
    // @ts-expect-error -- and a reading one: reads are guarded too (denied paths, blocked sites, apps).
    expect(() => defineTool({ ...draft, effect: 'read' })).not.toThrow();
    // The same declaration with it compiles; one that touches nothing says so.
    const tool = defineTool({
      ...draft,
      effect: 'write',
      resources: (input) => ({ files: [{ path: input.path, access: 'write', verb: 'writes' }] }),
    });
    expect(resourcesOf(tool, { path: '~/a' })).toEqual({ files: [{ path: '~/a', access: 'write', verb: 'writes' }] });
    expect(defineTool({ ...draft, effect: 'write', resources: touchesNothing }).resources({ path: '~/a' })).toEqual({});
  });

  it('does not compile a tool without its Chinese title, its permission level or whose words its output carries', () => {
    const rest = { effect: 'write', resources: touchesNothing } as const;
    // @ts-expect-error -- no titleZh
    expect(() => defineTool({ ...untitled, ...rest, level: 'L3', outputFrom: 'trusted' })).not.toThrow();
    // @ts-expect-error -- no level
    expect(() => defineTool({ ...untitled, ...rest, titleZh: 'x', outputFrom: 'trusted' })).not.toThrow();
    // @ts-expect-error -- no outputFrom
    expect(() => defineTool({ ...untitled, ...rest, titleZh: 'x', level: 'L3' })).not.toThrow();
  });

  it('has a distinct Chinese title for every tool, shown for the locale', () => {
    const titles = TOOL_CATALOG.map((tool) => tool.titleZh);
    expect(titles.every((title) => title.length > 0)).toBe(true);
    expect(new Set(titles).size).toBe(TOOL_CATALOG.length);
    expect(toolTitleIn('zh-CN', 'screenshot', 'Take a screenshot')).toBe('截屏');
    expect(toolTitleIn('en', 'screenshot', 'Take a screenshot')).toBe('Take a screenshot');
    expect(toolTitleIn('zh-CN', 'future_tool', 'Future tool')).toBe('Future tool');
  });

  it('keeps the permission levels of seed 000 §7.1', () => {
    const levels = Object.fromEntries(TOOL_CATALOG.map((tool) => [tool.name, tool.level]));
    expect(levels).toEqual({
      screenshot: 'L1', screen_ocr: 'L1', element_locate: 'L1', system_info: 'L1', file_read: 'L1', file_search: 'L1',
      file_watch: 'L1', browser_extract: 'L1', browser_snapshot: 'L1', app_list: 'L1', ask_user: 'L1', todo_write: 'L1',
      mouse_move: 'L2', left_click: 'L2', right_click: 'L2', double_click: 'L2', mouse_drag: 'L2', scroll: 'L2',
      type_text: 'L2', key_press: 'L2', app_launch: 'L2', app_switch: 'L2', app_close: 'L2', window_manage: 'L2',
      browser_navigate: 'L2', browser_interact: 'L2', browser_tabs: 'L2', clipboard_read: 'L2', clipboard_write: 'L2',
      notification_send: 'L2', web_fetch: 'L2', bash_execute: 'L3', bash_session: 'L3', file_write: 'L3',
      file_edit: 'L3', create_directory: 'L3', delete_file: 'L3', hotkey: 'L3',
    }); // prettier-ignore
  });

  it('asks full control of a critical command line on every channel that runs one, and of a forced kill', () => {
    const fullControl = (name: string, input: Record<string, unknown>, risk: 'high' | 'critical') => {
      const tool = getTool(name);
      return (
        (tool?.needsFullControl as ((input: unknown, risk: string) => boolean) | undefined)?.(input, risk) ?? false
      );
    };
    const channels = ['bash_execute', 'bash_session', 'app_launch', 'type_text', 'key_press', 'hotkey'];
    for (const name of TOOL_NAMES) {
      expect(fullControl(name, {}, 'critical'), name).toBe(channels.includes(name));
      expect(fullControl(name, {}, 'high'), name).toBe(false);
    }
    expect(fullControl('app_close', { name: 'x', force: true }, 'high')).toBe(true);
    expect(fullControl('app_close', { name: 'x', force: false }, 'critical')).toBe(false);
  });

  it('says whose words each output carries: the web, the outside world, or NextAI and the person', () => {
    const from = (source: string) =>
      TOOL_CATALOG.filter((tool) => tool.outputFrom === source)
        .map((tool) => tool.name)
        .sort();
    expect(from('web')).toEqual(
      [
        'browser_extract',
        'browser_interact',
        'browser_navigate',
        'browser_snapshot',
        'browser_tabs',
        'web_fetch',
      ].sort(),
    );
    expect(from('outside')).toEqual(
      [
        'app_list',
        'bash_execute',
        'clipboard_read',
        'element_locate',
        'file_read',
        'file_search',
        'file_watch',
        'screen_ocr',
      ].sort(),
    );
  });
});
