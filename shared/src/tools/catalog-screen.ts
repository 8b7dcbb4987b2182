import { z } from 'zod';

import { boundsSchema, pointSchema, regionSchema } from './common-schemas.js';
import { ALL_PLATFORMS, defineTool } from './define-tool.js';

export const screenshot = defineTool({
  name: 'screenshot',
  title: 'Take a screenshot',
  description:
    'Capture the whole screen, one window (by title) or a region. The image is scaled so its long edge is at most 1568 px; `scale` says how screen pixels map to image pixels, and coordinates you send to mouse tools are in image pixels.',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      mode: z.enum(['fullscreen', 'window', 'region']).default('fullscreen'),
      window_title: z.string().min(1).optional().describe('Window title or part of it (mode "window")'),
      region: regionSchema.optional().describe('Area to capture (mode "region")'),
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
  }),
});

export const screenOcr = defineTool({
  name: 'screen_ocr',
  title: 'Read text on screen',
  description:
    'Recognise text on the screen (or in a given image or region) fully offline. Returns the text and blocks with bounds and confidence.',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      image: z.string().optional().describe('Base64 image; the screen is captured when omitted'),
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
});

export const elementLocate = defineTool({
  name: 'element_locate',
  title: 'Find an element on screen',
  description:
    'Find a UI element described in words (for example "the Submit button") and return its centre and bounds, ready for a click.',
  category: 'screen',
  risk: 'low',
  effect: 'read',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      description: z.string().min(1),
      image: z.string().optional().describe('Base64 image; the screen is captured when omitted'),
    })
    .strict(),
  output: z.object({
    found: z.boolean(),
    elements: z.array(
      z.object({
        description: z.string(),
        center: pointSchema,
        bounds: boundsSchema,
        confidence: z.number().min(0).max(1),
      }),
    ),
  }),
});
