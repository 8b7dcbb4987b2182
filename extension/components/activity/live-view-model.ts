/**
 * What the live view draws: the agent's latest screenshot of a run, and the
 * actions taken since the screenshot before it, as markers in that screenshot's pixels (tools'
 * coordinates are pixels of the latest screenshot).
 */

export interface StepLike {
  step: number;
  kind: string;
  intent: Record<string, unknown>;
  result: unknown;
  intent_at: string;
  result_at: string | null;
}

export interface Point {
  x: number;
  y: number;
}

export interface Bounds extends Point {
  width: number;
  height: number;
}

export type Marker =
  | { kind: 'click'; step: number; at: Point; button: 'left' | 'right' | 'double' }
  | { kind: 'element'; step: number; bounds: Bounds; label: string }
  | { kind: 'path'; step: number; from: Point; to: Point; drag: boolean }
  | { kind: 'scroll'; step: number; at: Point; direction: string }
  | { kind: 'typing'; step: number; at: Point | undefined; text: string };

export interface Screen {
  reference: string;
  width: number;
  height: number;
  step: number;
  time: string;
}

export interface LiveView {
  screen?: Screen;
  markers: Marker[];
}

interface OkResult {
  ok: true;
  output: Record<string, unknown>;
}

function okOutput(result: unknown): Record<string, unknown> | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const value = result as Partial<OkResult>;
  return value.ok === true && value.output && typeof value.output === 'object' ? value.output : undefined;
}

/** The screenshot a step took, if it took one (a `screenshot` call or the loop's observation). */
export function screenOf(step: StepLike): Screen | undefined {
  const tool = step.intent.tool;
  if (tool !== 'screenshot') return undefined;
  const output = okOutput(step.result);
  if (!output || typeof output.image !== 'string' || !output.image.startsWith('blob:')) return undefined;
  if (typeof output.width !== 'number' || typeof output.height !== 'number') return undefined;
  return {
    reference: output.image,
    width: output.width,
    height: output.height,
    step: step.step,
    time: step.result_at ?? step.intent_at,
  };
}

const point = (x: unknown, y: unknown): Point | undefined =>
  typeof x === 'number' && typeof y === 'number' ? { x, y } : undefined;

/** The marker of one action step, if it is an action the live view draws. */
export function markerOf(step: StepLike, lastPointer: Point | undefined): Marker | undefined {
  if (step.kind !== 'tool_call') return undefined;
  const failed = step.result !== null && okOutput(step.result) === undefined;
  if (failed) return undefined;
  const input = (step.intent.input ?? {}) as Record<string, unknown>;
  const at = point(input.x, input.y);
  switch (step.intent.tool) {
    case 'left_click':
    case 'right_click':
    case 'double_click':
      return at
        ? {
            kind: 'click',
            step: step.step,
            at,
            button:
              step.intent.tool === 'left_click' ? 'left' : step.intent.tool === 'right_click' ? 'right' : 'double',
          }
        : undefined;
    case 'mouse_move':
      return at && lastPointer ? { kind: 'path', step: step.step, from: lastPointer, to: at, drag: false } : undefined;
    case 'mouse_drag': {
      const from = point(input.from_x, input.from_y);
      const to = point(input.to_x, input.to_y);
      return from && to ? { kind: 'path', step: step.step, from, to, drag: true } : undefined;
    }
    case 'scroll':
      return at ? { kind: 'scroll', step: step.step, at, direction: String(input.direction ?? 'down') } : undefined;
    case 'type_text':
      return typeof input.text === 'string'
        ? { kind: 'typing', step: step.step, at: lastPointer, text: input.text }
        : undefined;
    case 'element_locate': {
      const output = okOutput(step.result);
      const elements = Array.isArray(output?.elements) ? (output.elements as Record<string, unknown>[]) : [];
      const first = elements[0];
      const bounds = first?.bounds as Bounds | undefined;
      if (!bounds || typeof bounds.x !== 'number') return undefined;
      return {
        kind: 'element',
        step: step.step,
        bounds,
        label: typeof input.description === 'string' ? input.description : String(first?.description ?? ''),
      };
    }
    default:
      return undefined;
  }
}

/** Where the pointer is after an action (locating an element does not move it). */
function pointerAfter(marker: Marker | undefined): Point | undefined {
  if (marker?.kind === 'click' || marker?.kind === 'scroll') return marker.at;
  if (marker?.kind === 'path') return marker.to;
  return undefined;
}

/**
 * The latest screenshot and the markers of actions since the screenshot before it (so the click
 * that led to this screen shows on it, and what happens next shows as it happens).
 */
export function liveView(steps: readonly StepLike[]): LiveView {
  const ordered = [...steps].sort((a, b) => a.step - b.step);
  const shots = ordered.map((step, index) => ({ index, screen: screenOf(step) })).filter((entry) => entry.screen);
  const latest = shots.at(-1);
  if (!latest?.screen) return { markers: [] };
  const since = shots.length > 1 ? (shots.at(-2)?.index ?? -1) : -1;
  const markers: Marker[] = [];
  let pointer: Point | undefined;
  for (const [index, step] of ordered.entries()) {
    const marker = markerOf(step, pointer);
    pointer = pointerAfter(marker) ?? pointer;
    if (marker && index > since) markers.push(marker);
  }
  return { screen: latest.screen, markers: markers.slice(-20) };
}
