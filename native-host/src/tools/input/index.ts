import { AppError } from '@nextai/shared';

import type { MouseButton, Point } from '../../platform/desktop.js';
import { isModifier, normalizeChord, normalizeKey, type ModifierKey } from '../../platform/keys.js';
import type { HandlerGroup, HostServices, ToolContext } from '../types.js';

type InputTool =
  | 'mouse_move'
  | 'left_click'
  | 'right_click'
  | 'double_click'
  | 'mouse_drag'
  | 'scroll'
  | 'type_text'
  | 'key_press'
  | 'hotkey';

/**
 * Mouse and keyboard tools on top of the desktop's input adapter. Coordinates from the model are
 * pixels of the latest screenshot: `screenSpace.toScreen` maps them to screen pixels (off-image is
 * INVALID_INPUT naming the image size), and positions are reported back in the same image space.
 * Key names are normalised here (`cmd`/`super`/`win` → meta), so the adapters see canonical names.
 */
export function createInputHandlers(services: HostServices): HandlerGroup<InputTool> {
  const { input } = services.desktop;
  const space = services.screenSpace;
  // NextAI's own pages on screen: the agent's buttons and keys may not act on them.
  const surfaces = services.ownSurfaces;

  const describe = (image: Point, screen: Point) =>
    `(${image.x}, ${image.y}) in the screenshot, screen pixel (${screen.x}, ${screen.y})`;

  /** Where the pointer is now, in image pixels of the latest screenshot. */
  const position = async () => space.toImage(await input.pointer());

  const click = (button: MouseButton, count: number, verb: string) => {
    return async (request: { x: number; y: number; modifiers?: string[] | undefined }, context: ToolContext) => {
      const modifiers = canonicalModifiers(request.modifiers ?? []);
      const target = await space.toScreen({ x: request.x, y: request.y });
      await surfaces.beforePointer([target], context.signal);
      await input.click(target, button, count, modifiers);
      const holding = modifiers.length > 0 ? ` holding ${modifiers.join('+')}` : '';
      return {
        success: true,
        message: `${verb} at ${describe(request, target)}${holding}.`,
        position: await position(),
      };
    };
  };

  return {
    handlers: {
      mouse_move: async (request, context) => {
        const target = await space.toScreen({ x: request.x, y: request.y });
        const duration = request.smooth ? request.duration : 0;
        await input.mouseMove(target, duration, context.signal);
        const how = duration > 0 ? ` over ${duration} ms` : '';
        return {
          success: true,
          message: `Moved the pointer to ${describe(request, target)}${how}.`,
          position: await position(),
        };
      },

      left_click: click('left', 1, 'Clicked'),
      right_click: click('right', 1, 'Right-clicked'),
      double_click: click('left', 2, 'Double-clicked'),

      mouse_drag: async (request, context) => {
        const fromImage = { x: request.from_x, y: request.from_y };
        const toImage = { x: request.to_x, y: request.to_y };
        const from = await space.toScreen(fromImage);
        const to = await space.toScreen(toImage);
        await surfaces.beforePointer([from, to], context.signal);
        await input.drag(from, to, request.duration, context.signal);
        return {
          success: true,
          message: `Dragged from ${describe(fromImage, from)} to ${describe(toImage, to)} over ${request.duration} ms.`,
          from: fromImage,
          to: toImage,
        };
      },

      scroll: async (request, context) => {
        const target = await space.toScreen({ x: request.x, y: request.y });
        // A wheel turned over a list or a number field in the panel changes it.
        await surfaces.beforePointer([target], context.signal);
        await input.scroll(target, request.direction, request.amount);
        return {
          success: true,
          message: `Scrolled ${request.direction} by about ${request.amount} px at ${describe(request, target)}.`,
          position: await position(),
        };
      },

      type_text: async (request, context) => {
        await surfaces.beforeKeys(context.signal);
        await input.typeText(request.text, request.delay, context.signal);
        const characters = [...request.text].length;
        return {
          success: true,
          message: `Typed ${characters} character${characters === 1 ? '' : 's'} into the focused element.`,
          characters,
        };
      },

      key_press: async (request, context) => {
        const keys = normalizeChord(request.keys);
        await surfaces.beforeKeys(context.signal);
        await input.pressKeys(keys);
        return { success: true, message: `Pressed ${keys.join('+')}.`, keys };
      },

      hotkey: async (request, context) => {
        const keys = normalizeChord(request.keys);
        await surfaces.beforeKeys(context.signal);
        await input.pressKeys(keys);
        return { success: true, message: `Sent the hotkey ${keys.join('+')} (${request.reason}).`, keys };
      },
    },
  };
}

/** `cmd` → meta and the other spellings; duplicates dropped; a non-modifier is INVALID_INPUT. */
export function canonicalModifiers(raw: readonly string[]): ModifierKey[] {
  const modifiers: ModifierKey[] = [];
  for (const name of raw) {
    const key = normalizeKey(name);
    if (!isModifier(key)) {
      throw new AppError('INVALID_INPUT', `"${name}" is not a modifier key: use shift, ctrl, alt or cmd.`);
    }
    if (!modifiers.includes(key)) modifiers.push(key);
  }
  return modifiers;
}
