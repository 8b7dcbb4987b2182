import { getTool, type ToolResult } from '@nextai/shared';

import { toToolResult, type ReadBlob } from '../context.js';
import type { ImageBlock, TextBlock } from '../providers/types.js';

/**
 * Tools that act on the screen through the mouse, the keyboard or the window manager: after them
 * the loop looks at the screen (a screenshot after each operation, so the model sees what its
 * action did) unless the model took a screenshot itself after its last such action.
 */
export function isUiAction(name: string): boolean {
  const tool = getTool(name);
  if (!tool || tool.effect === 'read') return false;
  return tool.category === 'mouse' || tool.category === 'keyboard' || tool.category === 'apps';
}

/**
 * What the model is shown of the observation: the screenshot, or — when the change detector
 * says nothing changed since the previous screenshot — one sentence instead of the same image
 * again. A screen that cannot be captured (no display) is said plainly, once per observation.
 */
export function observationBlocks(
  result: ToolResult,
  readBlob: ReadBlob,
): { content: (TextBlock | ImageBlock)[]; summary: string } {
  if (!result.ok) {
    return {
      content: [
        {
          type: 'text',
          text: `[Observation after your actions: the screen could not be captured (${result.error.message}).]`,
        },
      ],
      summary: `not captured: ${result.error.code}`,
    };
  }
  const output = result.output as { changed?: boolean; width?: number; height?: number };
  if (output.changed === false) {
    return {
      content: [
        {
          type: 'text',
          text: '[Observation after your actions: the screen has not changed since the previous screenshot.]',
        },
      ],
      summary: 'screen unchanged',
    };
  }
  const block = toToolResult(
    { toolUseId: 'observation', name: 'screenshot', ok: true, output: result.output },
    { readBlob },
  );
  const images = block.content.filter((inner): inner is ImageBlock => inner.type === 'image');
  const size = output.width !== undefined && output.height !== undefined ? ` (${output.width}×${output.height})` : '';
  return {
    content: [{ type: 'text', text: `[Observation after your actions: the screen now${size}.]` }, ...images],
    summary: output.changed === true ? 'screen changed' : 'screen captured',
  };
}
