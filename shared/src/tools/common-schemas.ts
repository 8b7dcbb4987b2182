import { z } from 'zod';

export const pointSchema = z.object({ x: z.number(), y: z.number() });

export const regionSchema = z
  .object({
    x: z.number().int().min(0).describe('Left edge, in screenshot coordinates'),
    y: z.number().int().min(0).describe('Top edge, in screenshot coordinates'),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
  })
  .strict();

export const boundsSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});

/** Screen coordinate as the model sees it (the coordinate space of the last screenshot). */
export const coordinate = (axis: 'x' | 'y') =>
  z.number().int().min(0).describe(`${axis.toUpperCase()} coordinate in the space of the most recent screenshot`);

export const modifierKeySchema = z.enum(['shift', 'ctrl', 'alt', 'cmd']);

export const actionResultSchema = z.object({
  success: z.boolean(),
  message: z.string().optional(),
});

/** Leaving the sandbox: asked for by the agent, decided by the person. */
export const outsideSandboxSchema = z
  .boolean()
  .optional()
  .describe("Run it with the person's full access instead of in the sandbox; the person is asked first");

/** Why the agent asks for more than the sandbox gives, shown to the person on the approval card. */
export const justificationSchema = (what: string) => z.string().max(500).optional().describe(what);
