import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { PERMISSION_LEVELS, levelAtLeast } from '../policy/actions.js';
import {
  TOOL_CATALOG,
  TOOL_NAMES,
  getTool,
  isToolName,
  toolTitleIn,
  type AnyTool,
  type ToolByName,
  type ToolName,
} from './catalog.js';
import { ALL_PLATFORMS, PLATFORMS, RISK_LEVELS, TOOL_CATEGORIES, defineTool, type RiskLevel } from './define-tool.js';
import { toInputJsonSchema, toMcpAnnotations, toModelTool, toOutputJsonSchema } from './derive.js';
import { resourcesOf, touchesNothing, type ToolResources } from './resources.js';

type Examples<N extends ToolName> = readonly [z.input<ToolByName<N>['input']>, ...z.input<ToolByName<N>['input']>[]];

/**
 * Calls of every tool as its descriptions document them (the keys of key_press, the steps of
 * browser_navigate, the patterns of file_search, the languages of screen_ocr…). Typed by the
 * catalog: a tool added without examples, or an example its schema's type does not allow, does
 * not compile.
 */
const EXAMPLES: { readonly [N in ToolName]: Examples<N> } = {
  screenshot: [
    {},
    { mode: 'window', window_title: 'Terminal' },
    { window_title: '0x3c00007' },
    { mode: 'region', region: { x: 0, y: 0, width: 640, height: 480 }, format: 'png' },
  ],
  screen_ocr: [{}, { language: 'eng' }, { language: 'chi_sim' }, { language: 'eng+chi_sim' }, { image: 'blob:a1' }],
  element_locate: [{ description: 'the Submit button' }],
  mouse_move: [
    { x: 1, y: 2 },
    { x: 0, y: 0, smooth: false, duration: 0 },
  ],
  left_click: [
    { x: 10, y: 20 },
    { x: 10, y: 20, modifiers: ['cmd', 'shift'] },
  ],
  right_click: [{ x: 10, y: 20 }],
  double_click: [{ x: 10, y: 20 }],
  mouse_drag: [{ from_x: 0, from_y: 0, to_x: 100, to_y: 100 }],
  scroll: [{ x: 0, y: 0, direction: 'down' }],
  type_text: [{ text: 'hi' }, { text: '你好 — ✓ 😀' }],
  key_press: [{ keys: ['enter'] }, { keys: ['ctrl', 's'] }, { keys: ['ctrl', 'c'] }],
  hotkey: [
    { keys: ['cmd', 'tab'], reason: 'switch to the editor' },
    { keys: ['super'], reason: 'open the launcher' },
  ],
  app_launch: [
    { name: 'firefox' },
    { name: '/usr/bin/code', args: ['.'], outside_sandbox: true, justification: 'it must use my settings' },
  ],
  app_switch: [{ name: 'Firefox' }],
  app_list: [{}, { include_windows: true }],
  app_close: [{ name: 'gedit' }, { name: 'gedit', force: true }],
  window_manage: [
    { window_title: 'Untitled', action: 'maximize' },
    { window_title: '0x3c00007', action: 'move', bounds: { x: 0, y: 0 } },
  ],
  bash_execute: [
    { command: 'ls' },
    { command: 'npm install', network: true },
    { command: 'make', session_id: 's1', working_dir: 'src', outside_sandbox: true, justification: 'needs root' },
  ],
  bash_session: [{ action: 'create' }, { action: 'list' }, { action: 'kill', session_id: 's1' }],
  file_read: [{ path: '~/notes.txt' }, { path: '/tmp/a.log', offset: 10, limit: 5 }],
  file_write: [{ path: '~/a.txt', content: 'x' }],
  file_edit: [{ path: 'notes/a.md', old_string: 'a', new_string: 'b' }],
  file_search: [
    { directory: '.', pattern: '*.ts' },
    { directory: '~/src', pattern: 'src/**/*.ts' },
    { directory: '.', pattern: '(?i)todo', type: 'content' },
  ],
  file_watch: [{ path: '.' }, { action: 'stop', watch_id: 'w1' }, { action: 'list' }],
  browser_navigate: [{ url: 'https://a.example' }, { url: 'back' }, { url: 'forward' }, { url: 'reload' }],
  browser_interact: [
    { action: 'click', ref: 'e5' },
    { action: 'fill', selector: 'Email', value: 'me@a.example' },
    { action: 'press', value: 'Enter' },
    { action: 'press', value: 'Control+a' },
    { action: 'scroll', value: 'bottom' },
    { action: 'upload', selector: 'input[type=file]', value: '~/report.pdf' },
  ],
  browser_extract: [{ type: 'markdown' }, { type: 'links', selector: 'main' }, { type: 'screenshot', full_page: true }],
  browser_snapshot: [{}, { tab_id: 3, cursor: 'c1' }],
  browser_tabs: [{ action: 'list' }, { action: 'open', url: 'https://a.example' }, { action: 'attach' }],
  clipboard_read: [{}, { format: 'text' }],
  clipboard_write: [{ content: 'hello' }, { content: 'iVBORw0KGgo=', format: 'image' }],
  notification_send: [{ title: 'Done', body: 'The build passed.' }],
  system_info: [{}, { categories: ['cpu', 'memory'] }],
  create_directory: [{ path: '~/new' }, { path: '~/a/b/c', parents: true }],
  delete_file: [{ path: '/tmp/x' }, { path: '/tmp/x', permanent: true }],
  ask_user: [{ question: 'Proceed?' }, { question: 'Which one?', options: ['A', 'B'], allow_free_text: false }],
  todo_write: [{ items: [{ id: '1', content: 'Read the logs', status: 'in_progress' }] }],
  web_fetch: [{ url: 'https://a.example/page' }, { url: 'http://a.example', format: 'text', max_bytes: 1000 }],
};

/** Inputs each tool must refuse, and why. */
const REFUSED: readonly [ToolName, Record<string, unknown>, string][] = [
  ['left_click', { x: -1, y: 0 }, 'a point off the screenshot'],
  ['mouse_move', { x: 1.5, y: 0 }, 'a coordinate between pixels'],
  ['scroll', { x: 0, y: 0, direction: 'sideways' }, 'a direction there is no wheel for'],
  ['key_press', { keys: [] }, 'no key at all'],
  ['key_press', { keys: [''] }, 'an empty key'],
  ['type_text', { text: '' }, 'nothing to type'],
  ['file_read', { path: '' }, 'an empty path'],
  ['delete_file', { path: '' }, 'an empty path'],
  ['file_watch', { action: 'start' }, 'a watch of nothing'],
  ['file_watch', { action: 'stop' }, 'a stop without the watch to stop'],
  ['web_fetch', { url: 'file:///etc/passwd' }, 'a local file as a web page'],
  ['web_fetch', { url: 'not a url' }, 'an address that is none'],
  ['bash_execute', { command: 'sleep 9999', timeout: 3_600_001 }, 'a time-out over an hour'],
  ['system_info', { categories: [] }, 'no section at all'],
  ['system_info', { categories: ['gpu'] }, 'a section it does not have'],
  ['todo_write', { items: [{ id: '1', content: 'x', status: 'done' }] }, 'a status the plan does not know'],
];

/** Every tool with its documented calls, validated (defaults applied) as the host would run them. */
function* calls(): Generator<[AnyTool, Record<string, unknown>]> {
  for (const tool of TOOL_CATALOG) {
    for (const example of EXAMPLES[tool.name]) yield [tool, tool.input.parse(example) as Record<string, unknown>];
  }
}

/** What a tool declares over all its documented calls. */
function declared(tool: AnyTool): ToolResources[] {
  return EXAMPLES[tool.name].map((example) => resourcesOf(tool, tool.input.parse(example) as Record<string, unknown>));
}

const RISK_RANK = (risk: RiskLevel) => RISK_LEVELS.indexOf(risk);

describe('tool catalog', () => {
  it('names every tool once, in snake_case, and finds each by its name', () => {
    expect(TOOL_CATALOG.length).toBeGreaterThan(0);
    expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
    expect(TOOL_NAMES).toEqual(TOOL_CATALOG.map((tool) => tool.name));
    for (const tool of TOOL_CATALOG) {
      expect(tool.name).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(getTool(tool.name)).toBe(tool);
      expect(isToolName(tool.name)).toBe(true);
    }
  });

  it('knows no tool by a name it was not given, however close, and says so with undefined', () => {
    for (const name of [
      'no_such_tool',
      'Screenshot',
      ' screenshot',
      'screenshot ',
      'bash-execute',
      'bashExecute',
      '',
    ]) {
      expect(getTool(name), name).toBeUndefined();
      expect(isToolName(name), name).toBe(false);
    }
    // Names every object has are not tools either.
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(getTool(name), name).toBeUndefined();
      expect(isToolName(name), name).toBe(false);
    }
    // A caller must handle the unknown name before using the tool: TypeScript insists.
    // @ts-expect-error -- getTool of any string may be undefined.
    expect(() => getTool('no_such_tool' as string).input).toThrow(TypeError);
  });

  it('declares, for every tool, what the policy, the model and the panel need', () => {
    for (const tool of TOOL_CATALOG) {
      const name = tool.name;
      expect(tool.title.length, name).toBeGreaterThan(0);
      expect(tool.titleZh, name).toMatch(/\p{Script=Han}/u);
      expect(tool.description.length, name).toBeGreaterThan(20);
      expect(TOOL_CATEGORIES, name).toContain(tool.category);
      expect(RISK_LEVELS, name).toContain(tool.risk);
      expect(['read', 'write', 'destructive'], name).toContain(tool.effect);
      expect(PERMISSION_LEVELS, name).toContain(tool.level);
      expect(['host', 'extension'], name).toContain(tool.runsIn);
      expect(['trusted', 'outside', 'web'], name).toContain(tool.outputFrom);
      expect(tool.platforms.length, name).toBeGreaterThan(0);
      expect(new Set(tool.platforms).size, name).toBe(tool.platforms.length);
      for (const platform of tool.platforms) expect(PLATFORMS, name).toContain(platform);
      // Reads are guarded too (denied paths, blocked sites and apps): every tool says what it touches.
      expect(typeof tool.resources, name).toBe('function');
    }
  });

  it('accepts every call its descriptions document', () => {
    for (const tool of TOOL_CATALOG) {
      for (const example of EXAMPLES[tool.name]) {
        const parsed = tool.input.safeParse(example);
        expect(parsed.error?.message, `${tool.name} ${JSON.stringify(example)}`).toBeUndefined();
      }
    }
  });

  it('applies the declared defaults when the model leaves parameters out', () => {
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

  it('applies exactly the defaults its JSON Schema tells the model', () => {
    let checked = 0;
    for (const tool of TOOL_CATALOG) {
      const properties = (toInputJsonSchema(tool).properties ?? {}) as Record<string, { default?: unknown }>;
      for (const [key, property] of Object.entries(properties)) {
        if (!('default' in property)) continue;
        for (const example of EXAMPLES[tool.name]) {
          const { [key]: _left, ...rest } = example as Record<string, unknown>;
          const parsed = tool.input.safeParse(rest);
          // Without it, some calls mean another thing (file_watch's "stop" becomes a "start" of nothing).
          if (!parsed.success) continue;
          expect((parsed.data as Record<string, unknown>)[key], `${tool.name}.${key}`).toEqual(property.default);
          checked += 1;
        }
      }
    }
    // Not vacuous: the catalog gives some twenty parameters a default.
    expect(checked).toBeGreaterThan(20);
  });

  it('rejects parameters a tool does not have, so typos are not silently ignored', () => {
    expect(getTool('system_info').input.safeParse({ category: ['cpu'] }).success).toBe(false);
    expect(getTool('left_click').input.safeParse({ x: 1, y: 1, button: 'left' }).success).toBe(false);
    for (const tool of TOOL_CATALOG) {
      const [example] = EXAMPLES[tool.name];
      expect(tool.input.safeParse({ ...example, pathh: 'x' }).success, tool.name).toBe(false);
    }
  });

  it('rejects a call without a parameter its JSON Schema marks required, and one that is no object', () => {
    for (const tool of TOOL_CATALOG) {
      const required = (toInputJsonSchema(tool).required ?? []) as string[];
      for (const example of EXAMPLES[tool.name]) {
        for (const key of required) {
          const { [key]: _left, ...rest } = example as Record<string, unknown>;
          expect(tool.input.safeParse(rest).success, `${tool.name} without ${key}`).toBe(false);
        }
      }
      for (const input of [null, undefined, [], 'ls', 42]) {
        expect(tool.input.safeParse(input).success, `${tool.name} ${JSON.stringify(input)}`).toBe(false);
      }
    }
  });

  it('requires the approval reason of hotkey and the command of bash_execute', () => {
    expect(getTool('hotkey').input.safeParse({ keys: ['cmd', 'tab'] }).success).toBe(false);
    expect(getTool('bash_execute').input.safeParse({}).success).toBe(false);
  });

  it.each(REFUSED)('%s refuses %j: %s', (name, input) => {
    expect(getTool(name).input.safeParse(input).success).toBe(false);
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

  it('puts whatever a call names before the guard that judges it', () => {
    /** Input fields, by name, that name something a guard judges, and where the declaration must put them. */
    const guarded: Record<string, (resources: ToolResources) => readonly (string | undefined)[]> = {
      path: (resources) => (resources.files ?? []).map((file) => file.path),
      directory: (resources) => (resources.files ?? []).map((file) => file.path),
      url: (resources) => resources.urls ?? [],
      window_title: (resources) => resources.apps ?? [],
      name: (resources) => [...(resources.apps ?? []), resources.runs?.kind === 'program' ? resources.runs.name : ''],
      command: (resources) => (resources.runs?.kind === 'command' ? [resources.runs.command] : []),
      text: (resources) => [resources.typed],
      keys: (resources) => resources.keys ?? [],
    };
    /** browser_navigate's steps through the tab's history open no new address. */
    const historySteps = ['back', 'forward', 'reload'];
    let checked = 0;
    for (const [tool, input] of calls()) {
      const resources = resourcesOf(tool, input);
      for (const [field, where] of Object.entries(guarded)) {
        const value = input[field];
        if (value === undefined) continue;
        const label = `${tool.name}.${field} = ${JSON.stringify(value)}`;
        if (field === 'url' && historySteps.includes(value as string)) {
          expect(resources.urls, label).toEqual([]);
          continue;
        }
        const values = Array.isArray(value) ? value : [value];
        for (const one of values) expect(where(resources), label).toContain(one);
        checked += 1;
      }
    }
    // Not vacuous: the examples name paths, addresses, apps, command lines, text and keys.
    expect(checked).toBeGreaterThan(30);
  });

  it('raises the risk only where a call is riskier than the default, never to critical by default', () => {
    for (const tool of TOOL_CATALOG) {
      // Critical is found in what a call does (the shell analyser, the guards), never declared of a tool.
      expect(tool.risk, tool.name).not.toBe('critical');
      for (const resources of declared(tool)) {
        for (const declaredRisk of resources.risks ?? []) {
          expect(RISK_RANK(declaredRisk.risk), tool.name).toBeGreaterThan(RISK_RANK(tool.risk));
          expect(declaredRisk.reason.en.length, tool.name).toBeGreaterThan(0);
          expect(declaredRisk.reason['zh-CN'], tool.name).toMatch(/\p{Script=Han}/u);
        }
      }
    }
    expect(resourcesOf(getTool('app_close'), { name: 'x', force: true }).risks?.[0]?.risk).toBe('high');
  });

  it('keeps the default risks in order: reads at most medium, destruction at least, the terminal high', () => {
    for (const tool of TOOL_CATALOG) {
      if (tool.effect === 'read') expect(RISK_RANK(tool.risk), tool.name).toBeLessThanOrEqual(RISK_RANK('medium'));
      if (tool.effect === 'destructive') {
        expect(RISK_RANK(tool.risk), tool.name).toBeGreaterThanOrEqual(RISK_RANK('medium'));
      }
      if (tool.category === 'terminal') expect(tool.risk, tool.name).toBe('high');
      // The higher a tool's level, the riskier it is by default: nothing at L3 is low.
      if (tool.level === 'L3') expect(tool.risk, tool.name).not.toBe('low');
    }
  });

  it('keeps the permission levels: L1 only looks; the terminal, file writes and high risks are L3', () => {
    for (const tool of TOOL_CATALOG) {
      const all = declared(tool);
      const writesFiles = all.some((resources) => resources.files?.some((file) => file.access === 'write'));
      const runsShell = all.some(
        (resources) => resources.runs?.kind === 'command' || resources.runs?.kind === 'session',
      );
      // L4 is asked call by call (needsFullControl), never a tool's own level.
      expect(tool.level, tool.name).not.toBe('L4');
      // The terminal and file writes are L3, and so is whatever is high-risk by default (system hotkeys).
      if (writesFiles || runsShell || tool.risk === 'high') expect(tool.level, tool.name).toBe('L3');
      // What changes anything beyond the run itself (its plan) needs L2 at least.
      if (tool.effect !== 'read' && tool.category !== 'agent') {
        expect(levelAtLeast(tool.level, 'L2'), tool.name).toBe(true);
      }
      if (tool.level !== 'L1') continue;
      // At L1 a call only looks: it changes, starts, types, opens and acts on nothing.
      expect(tool.effect === 'read' || tool.resources === touchesNothing, tool.name).toBe(true);
      for (const resources of all) {
        expect(resources.files?.every((file) => file.access === 'read') ?? true, tool.name).toBe(true);
        expect(resources.urls ?? [], tool.name).toEqual([]);
        expect(resources, tool.name).not.toHaveProperty('runs');
        expect(resources, tool.name).not.toHaveProperty('typed');
        expect(resources, tool.name).not.toHaveProperty('keys');
        expect(resources, tool.name).not.toHaveProperty('clipboard');
        expect(resources, tool.name).not.toHaveProperty('pageTarget');
        expect(resources.personsTab ?? false, tool.name).toBe(false);
      }
    }
    // Not vacuous: each rule above applies to some tool.
    expect(TOOL_CATALOG.some((tool) => tool.level === 'L1')).toBe(true);
    expect(TOOL_CATALOG.some((tool) => tool.level === 'L3')).toBe(true);
  });

  it('asks full control of a critical command line on every channel that runs one, and of a forced kill', () => {
    const fullControl = (name: string, input: Record<string, unknown>, risk: 'high' | 'critical') => {
      const tool = getTool(name);
      return (
        (tool?.needsFullControl as ((input: unknown, risk: string) => boolean) | undefined)?.(input, risk) ?? false
      );
    };
    // A channel is any tool that starts a program or a shell, or types or presses keys (into a terminal, perhaps).
    const channels = TOOL_CATALOG.filter((tool) =>
      declared(tool).some((resources) => resources.runs || resources.typed !== undefined || resources.keys),
    ).map((tool) => tool.name);
    for (const tool of TOOL_CATALOG) {
      if (tool.category === 'terminal') expect(channels).toContain(tool.name);
    }
    for (const name of TOOL_NAMES) {
      expect(fullControl(name, {}, 'critical'), name).toBe(channels.includes(name));
      expect(fullControl(name, {}, 'high'), name).toBe(false);
    }
    expect(fullControl('app_close', { name: 'x', force: true }, 'high')).toBe(true);
    expect(fullControl('app_close', { name: 'x', force: false }, 'critical')).toBe(false);
  });

  it('says whose words each output carries: the web, the outside world, or NextAI and the person', () => {
    /**
     * Tools that return what other programs and people wrote, which no resource shows: text read
     * off the screen, the names and window titles of running apps, the clipboard.
     */
    const othersWords = ['screen_ocr', 'element_locate', 'app_list', 'clipboard_read'];
    for (const tool of TOOL_CATALOG) {
      const all = declared(tool);
      const fromWeb = tool.category === 'browser' || tool.category === 'web' || tool.runsIn === 'extension';
      const readsFiles = all.some((resources) => resources.files?.some((file) => file.access === 'read'));
      const runsCommands = all.some((resources) => resources.runs?.kind === 'command');
      const expected = fromWeb
        ? 'web'
        : readsFiles || runsCommands || othersWords.includes(tool.name)
          ? 'outside'
          : 'trusted';
      expect(tool.outputFrom, tool.name).toBe(expected);
    }
    // Not vacuous: each kind is someone's.
    for (const source of ['web', 'outside', 'trusted']) {
      expect(TOOL_CATALOG.some((tool) => tool.outputFrom === source)).toBe(true);
    }
  });
});
