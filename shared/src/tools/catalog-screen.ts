import { z } from 'zod';

import { boundsSchema, pointSchema, regionSchema } from './common-schemas.js';
import { ALL_PLATFORMS, defineTool } from './define-tool.js';
import { touchesNothing } from './resources.js';

export const screenshot = defineTool({
  name: 'screenshot',
  title: 'Take a screenshot',
  titleZh: '截屏',
  description:
    'Capture the whole screen, one window (by title or id) or a region. The image is scaled so its long edge is at most 1568 px and its area at most 1.15 megapixels; `scale` says how screen pixels map to image pixels. The latest screenshot is the coordinate space: coordinates you send to mouse tools, and regions, are pixels of it. A window is captured as it appears on screen (bring it to the front first if it is covered). `changed` says whether anything changed since the previous screenshot of the same area, and `changed_region` where.',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      mode: z.enum(['fullscreen', 'window', 'region']).default('fullscreen'),
      window_title: z
        .string()
        .min(1)
        .optional()
        .describe('Window title or part of it, or a window id from app_list (mode "window"; implies it)'),
      region: regionSchema
        .optional()
        .describe('Area to capture, in pixels of the latest screenshot (mode "region"; implies it)'),
      format: z.enum(['png', 'jpeg']).default('jpeg'),
      quality: z.number().int().min(0).max(100).default(80).describe('JPEG quality'),
    })
    .strict(),
  output: z.object({
    image: z.string().describe('Base64-encoded image, or a reference for large images'),
    format: z.enum(['png', 'jpeg']),
    width: z.number().int(),
    height: z.number().int(),
    scale: z.number().describe('Image pixels per screen pixel'),
    timestamp: z.number().int(),
    changed: z
      .boolean()
      .optional()
      .describe(
        'Whether the screen changed since the previous screenshot of the same area (absent when there is none)',
      ),
    changed_region: boundsSchema.optional().describe('Bounding box of what changed, in pixels of this image'),
  }),
  // Only the size and format are text; the image itself cannot be wrapped — the system prompt
  // sentence covers text seen in screenshots.
  outputFrom: 'trusted',
  resources: (input) => ({
    // A window title captures that window whatever the mode says (the handler takes the default
    // mode with a title as "window"), so the blocked-apps guard sees every title given.
    apps: input.window_title !== undefined ? [input.window_title] : [],
  }),
});

export const screenOcr = defineTool({
  name: 'screen_ocr',
  title: 'Read text on screen',
  titleZh: '识别屏幕文字',
  description:
    'Recognise text on the screen (or in a given image or region) fully offline. Returns the text and one block per line with bounds and confidence. Bounds and `region` are in pixels of the latest screenshot (ready for mouse tools), or of `image` when one is given. "auto" reads English and re-reads unsure lines as Chinese too.',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      image: z
        .string()
        .optional()
        .describe('Base64 image or a blob: reference from screenshot; the screen is captured when omitted'),
      language: z.string().default('auto').describe('"auto", "eng", "chi_sim" or "eng+chi_sim"'),
      region: regionSchema.optional(),
    })
    .strict(),
  output: z.object({
    text: z.string(),
    blocks: z.array(
      z.object({
        text: z.string(),
        bounds: boundsSchema,
        confidence: z.number().min(0).max(1),
      }),
    ),
  }),
  outputFrom: 'outside',
  resources: touchesNothing,
});

export const elementLocate = defineTool({
  name: 'element_locate',
  title: 'Find an element on screen',
  titleZh: '在屏幕上查找元素',
  description:
    'Find a UI element described in words (for example "the Submit button") by the text it shows, and return its centre and bounds in pixels of the latest screenshot, ready for a click (or of `image` when one is given).',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  level: 'L1',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      description: z.string().min(1),
      image: z
        .string()
        .optional()
        .describe('Base64 image or a blob: reference from screenshot; the screen is captured when omitted'),
    })
    .strict(),
  output: z.object({
    found: z.boolean(),
    message: z.string().optional().describe('When nothing was found: what was seen instead'),
    elements: z.array(
      z.object({
        description: z.string(),
        center: pointSchema,
        bounds: boundsSchema,
        confidence: z.number().min(0).max(1),
      }),
    ),
  }),
  outputFrom: 'outside',
  resources: touchesNothing,
});
