import { describe, expect, it } from 'vitest';

import { liveView, type StepLike } from './live-view-model.js';

const time = '2026-11-24T07:00:00.000Z';
const call = (step: number, tool: string, input: Record<string, unknown>, output: unknown = {}): StepLike => ({
  step,
  kind: 'tool_call',
  intent: { kind: 'tool_call', tool, call_id: `c${step}`, input },
  result: { ok: true, output },
  intent_at: time,
  result_at: time,
});
const observe = (step: number, image: string): StepLike => ({
  step,
  kind: 'observe',
  intent: { kind: 'observe', tool: 'screenshot' },
  result: { ok: true, output: { image, width: 800, height: 600, format: 'jpeg', scale: 1 } },
  intent_at: time,
  result_at: time,
});

describe('the live view of a run', () => {
  it('shows the latest screenshot with the actions since the one before it', () => {
    const view = liveView([
      call(1, 'screenshot', {}, { image: 'blob:first', width: 800, height: 600 }),
      call(2, 'left_click', { x: 5, y: 5 }),
      observe(3, 'blob:second'),
      call(
        4,
        'element_locate',
        { description: 'Submit' },
        {
          found: true,
          elements: [
            { description: 'Submit', center: { x: 60, y: 30 }, bounds: { x: 40, y: 20, width: 40, height: 20 } },
          ],
        },
      ),
      call(5, 'left_click', { x: 60, y: 30 }),
      call(6, 'type_text', { text: 'hello' }),
      call(7, 'mouse_drag', { from_x: 1, from_y: 2, to_x: 30, to_y: 40 }),
      observe(8, 'blob:third'),
    ]);
    expect(view.screen).toMatchObject({ reference: 'blob:third', width: 800, height: 600, step: 8 });
    expect(view.markers.map((marker) => marker.kind)).toEqual(['element', 'click', 'typing', 'path']);
    expect(view.markers[2]).toMatchObject({ kind: 'typing', at: { x: 60, y: 30 }, text: 'hello' });
  });

  it('leaves out failed actions, and has no screen before the first screenshot', () => {
    const failed: StepLike = { ...call(2, 'left_click', { x: 1, y: 1 }), result: { ok: false, error: {} } };
    expect(liveView([failed])).toEqual({ markers: [] });
    const view = liveView([observe(1, 'blob:a'), failed, call(3, 'right_click', { x: 9, y: 9 })]);
    expect(view.markers).toEqual([{ kind: 'click', step: 3, at: { x: 9, y: 9 }, button: 'right' }]);
  });
});
