import { z } from 'zod';

import { actionResultSchema, coordinate, modifierKeySchema, pointSchema } from './common-schemas.js';
import { ALL_PLATFORMS, criticalNeedsFullControl, defineTool } from './define-tool.js';
import { touchesNothing } from './resources.js';

const clickInput = z
  .object({
    x: coordinate('x'),
    y: coordinate('y'),
    modifiers: z.array(modifierKeySchema).optional().describe('Keys held during the click'),
  })
  .strict();

const clickOutput = actionResultSchema.extend({ position: pointSchema });

export const mouseMove = defineTool({
  name: 'mouse_move',
  title: 'Move the mouse',
  titleZh: '移动鼠标',
  description: 'Move the pointer to a point, smoothly or at once.',
  category: 'mouse',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      x: coordinate('x'),
      y: coordinate('y'),
      smooth: z.boolean().default(true),
      duration: z.number().int().min(0).max(10_000).default(100).describe('Milliseconds'),
    })
    .strict(),
  output: clickOutput,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const leftClick = defineTool({
  name: 'left_click',
  title: 'Click',
  titleZh: '单击',
  description: 'Left-click at a point, optionally holding modifier keys.',
  category: 'mouse',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: clickInput,
  output: clickOutput,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const rightClick = defineTool({
  name: 'right_click',
  title: 'Right-click',
  titleZh: '右键单击',
  description: 'Right-click at a point (usually opens a context menu).',
  category: 'mouse',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: clickInput,
  output: clickOutput,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const doubleClick = defineTool({
  name: 'double_click',
  title: 'Double-click',
  titleZh: '双击',
  description: 'Double-click at a point with the left button.',
  category: 'mouse',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: clickInput,
  output: clickOutput,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const mouseDrag = defineTool({
  name: 'mouse_drag',
  title: 'Drag',
  titleZh: '拖动',
  description: 'Press the left button at one point, move to another and release.',
  category: 'mouse',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      from_x: coordinate('x'),
      from_y: coordinate('y'),
      to_x: coordinate('x'),
      to_y: coordinate('y'),
      duration: z.number().int().min(0).max(10_000).default(500).describe('Milliseconds'),
    })
    .strict(),
  output: actionResultSchema.extend({ from: pointSchema, to: pointSchema }),
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const scroll = defineTool({
  name: 'scroll',
  title: 'Scroll',
  titleZh: '滚动',
  description: 'Scroll with the mouse wheel at a point.',
  category: 'mouse',
  risk: 'low',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      x: coordinate('x'),
      y: coordinate('y'),
      direction: z.enum(['up', 'down', 'left', 'right']),
      amount: z.number().int().positive().max(10_000).default(300).describe('Pixels'),
    })
    .strict(),
  output: clickOutput,
  outputFrom: 'trusted',
  resources: touchesNothing,
});

export const typeText = defineTool({
  name: 'type_text',
  title: 'Type text',
  titleZh: '输入文字',
  description: 'Type text into the focused element. Any Unicode text is typed as is, including symbols and Chinese.',
  category: 'keyboard',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      text: z.string().min(1),
      delay: z.number().int().min(0).max(1000).default(50).describe('Milliseconds between keys'),
    })
    .strict(),
  output: actionResultSchema.extend({ characters: z.number().int() }),
  outputFrom: 'trusted',
  resources: (input) => ({ typed: input.text }),
  // Typing a critical command line into a terminal is the terminal by other means.
  needsFullControl: criticalNeedsFullControl,
});

const keysSchema = z
  .array(z.string().min(1))
  .min(1)
  .describe(
    'Keys pressed together, e.g. ["ctrl", "c"]; cmd/super/meta, ctrl, alt and shift are understood on every OS',
  );

export const keyPress = defineTool({
  name: 'key_press',
  title: 'Press keys',
  titleZh: '按键',
  description: 'Press a key or a key combination, e.g. ["enter"] or ["ctrl", "s"].',
  category: 'keyboard',
  risk: 'medium',
  effect: 'write',
  level: 'L2',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z.object({ keys: keysSchema }).strict(),
  output: actionResultSchema.extend({ keys: z.array(z.string()) }),
  outputFrom: 'trusted',
  resources: (input) => ({ keys: input.keys }),
  // Pressing the key that submits a critical command line in a terminal is running it.
  needsFullControl: criticalNeedsFullControl,
});

export const hotkey = defineTool({
  name: 'hotkey',
  title: 'System hotkey',
  titleZh: '系统快捷键',
  description:
    'Send a system-level shortcut such as ["cmd", "tab"] or ["super"]. Say why in `reason`: it is shown to the person approving it.',
  category: 'keyboard',
  risk: 'high',
  effect: 'write',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      keys: keysSchema,
      reason: z.string().min(1).describe('Why this shortcut is needed (shown for approval and audit)'),
    })
    .strict(),
  output: actionResultSchema.extend({ keys: z.array(z.string()) }),
  outputFrom: 'trusted',
  resources: (input) => ({ keys: input.keys }),
  needsFullControl: criticalNeedsFullControl,
});
