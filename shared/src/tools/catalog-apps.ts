import { z } from 'zod';

import { say } from '../i18n.js';
import { actionResultSchema, boundsSchema, justificationSchema, outsideSandboxSchema } from './common-schemas.js';
import { ALL_PLATFORMS, criticalNeedsFullControl, defineTool } from './define-tool.js';
import { touchesNothing } from './resources.js';

const windowSchema = z.object({
  id: z.string().describe('Window id, stable while the window exists'),
  title: z.string(),
  bounds: boundsSchema,
  focused: z.boolean(),
  minimized: z.boolean().optional(),
});

export const appLaunch = defineTool({
  name: 'app_launch',
  title: 'Launch an app',
  titleZh: '启动应用',
  description:
    'Start an application by name or path, with optional arguments. It runs in the sandbox: it sees your files read-only (keys and passwords hidden), may change only the allowed folders, and starts with a fresh profile of its own. Set outside_sandbox (with a justification) only when it must use your own settings or change other files; the person is asked.',
  category: 'apps',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      name: z.string().min(1).describe('Application name or path to its executable'),
      args: z.array(z.string()).optional(),
      outside_sandbox: outsideSandboxSchema,
      justification: justificationSchema('Why it must run outside the sandbox, shown to the person'),
    })
    .strict(),
  output: actionResultSchema.extend({ pid: z.number().int().optional(), name: z.string() }),
  outputFrom: 'trusted',
  resources: (input) => ({
    runs: {
      kind: 'program',
      name: input.name,
      args: input.args ?? [],
      ask: input.outside_sandbox === true ? { outside: { justification: input.justification } } : {},
    },
  }),
  // Launching a program with a critical command line is the terminal by other means.
  needsFullControl: criticalNeedsFullControl,
});

export const appSwitch = defineTool({
  name: 'app_switch',
  title: 'Switch to an app',
  titleZh: '切换应用',
  description: 'Bring an application or window to the front, by app name, window id or part of a window title.',
  category: 'apps',
  risk: 'low',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ name: z.string().min(1) }).strict(),
  output: actionResultSchema.extend({ window: windowSchema.optional() }),
  outputFrom: 'trusted',
  resources: (input) => ({ apps: [input.name] }),
});

export const appList = defineTool({
  name: 'app_list',
  title: 'List running apps',
  titleZh: '列出运行中的应用',
  description: 'List running applications with their process ids and, if asked, their windows.',
  category: 'apps',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      include_windows: z.boolean().default(false),
    })
    .strict(),
  output: z.object({
    apps: z.array(
      z.object({
        name: z.string(),
        pid: z.number().int(),
        windows: z.array(windowSchema),
      }),
    ),
  }),
  outputFrom: 'outside',
  resources: touchesNothing,
});

export const appClose = defineTool({
  name: 'app_close',
  title: 'Close an app',
  titleZh: '关闭应用',
  description: 'Ask an application to quit; with `force`, kill it.',
  category: 'apps',
  risk: 'medium',
  effect: 'destructive',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      name: z.string().min(1),
      force: z.boolean().default(false),
    })
    .strict(),
  output: actionResultSchema.extend({ closed: z.number().int().describe('Processes that ended') }),
  outputFrom: 'trusted',
  resources: (input) => ({
    apps: [input.name],
    ...(input.force
      ? { risks: [{ risk: 'high', reason: say('kills the app without letting it save', '强制结束应用，不让它保存') }] }
      : {}),
  }),
  // L4 "forced process kills".
  needsFullControl: (input) => input.force === true,
});

export const windowManage = defineTool({
  name: 'window_manage',
  title: 'Arrange a window',
  titleZh: '调整窗口',
  description: 'Maximize, minimize, restore, resize or move a window addressed by id or by part of its title.',
  category: 'apps',
  risk: 'low',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      window_title: z.string().min(1).describe('Window id, or the window title or part of it'),
      action: z.enum(['maximize', 'minimize', 'restore', 'resize', 'move']),
      bounds: z
        .object({
          x: z.number().int().optional(),
          y: z.number().int().optional(),
          width: z.number().int().positive().optional(),
          height: z.number().int().positive().optional(),
        })
        .strict()
        .optional()
        .describe('Target position and size (resize and move)'),
    })
    .strict(),
  output: actionResultSchema.extend({ window: windowSchema.optional() }),
  outputFrom: 'trusted',
  resources: (input) => ({ apps: [input.window_title] }),
});
