import { AppError, type OwnSurface } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { OwnSurfaces, SURFACE_SETTLE_MS } from './own-surfaces.js';

const PANEL: OwnSurface = {
  kind: 'panel',
  focused: false,
  rects: [{ x: 1500, y: 100, width: 400, height: 900 }],
  scale: 1,
};

function surfaces(sinceLastInput = Number.POSITIVE_INFINITY) {
  const slept: number[] = [];
  const own = new OwnSurfaces({
    sinceLastInput: () => sinceLastInput,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  return { own, slept };
}

async function refusalOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('NextAI pages on screen keep the agent input away', () => {
  it('refuses a click on the panel (and a few pixels around it) and allows one beside it', async () => {
    const { own } = surfaces();
    own.report('browser-1', [PANEL]);
    const inside = await refusalOf(own.beforePointer([{ x: 1600, y: 500 }]));
    expect(inside.code).toBe('POLICY_BLOCKED');
    expect(inside.message).toContain("NextAI's side panel");
    expect(inside.message).toContain('(1600, 500)');
    expect(inside.translations?.['zh-CN']).toContain('侧边栏');
    await refusalOf(own.beforePointer([{ x: 1497, y: 100 }]));
    await expect(own.beforePointer([{ x: 1490, y: 500 }])).resolves.toBeUndefined();
    await expect(own.beforePointer([{ x: 1600, y: 1010 }])).resolves.toBeUndefined();
  });

  it('refuses a drag that starts or ends on the panel', async () => {
    const { own } = surfaces();
    own.report('browser-1', [PANEL]);
    await refusalOf(
      own.beforePointer([
        { x: 10, y: 10 },
        { x: 1700, y: 200 },
      ]),
    );
    await refusalOf(
      own.beforePointer([
        { x: 1700, y: 200 },
        { x: 10, y: 10 },
      ]),
    );
  });

  it('scales DIP rectangles to screen pixels on a high-density screen', async () => {
    const { own } = surfaces();
    own.report('browser-1', [{ ...PANEL, scale: 2 }]);
    await refusalOf(own.beforePointer([{ x: 3400, y: 1000 }]));
    await expect(own.beforePointer([{ x: 1600, y: 500 }])).resolves.toBeUndefined();
  });

  it('on macOS takes the browser’s coordinates as they are: the screen is in points there too', async () => {
    const own = new OwnSurfaces({ sinceLastInput: () => Number.POSITIVE_INFINITY, devicePixels: false });
    own.report('browser-1', [{ ...PANEL, scale: 2 }]);
    await refusalOf(own.beforePointer([{ x: 1600, y: 500 }]));
    await expect(own.beforePointer([{ x: 3400, y: 1000 }])).resolves.toBeUndefined();
  });

  it('refuses keys while a NextAI page has the focus, and allows them when none has', async () => {
    const { own } = surfaces();
    own.report('browser-1', [PANEL]);
    await expect(own.beforeKeys()).resolves.toBeUndefined();
    own.report('browser-1', [{ ...PANEL, focused: true }]);
    const refused = await refusalOf(own.beforeKeys());
    expect(refused.message).toContain('keyboard focus');
    own.report('browser-2', [{ kind: 'browser_page', focused: false, rects: [], scale: 1 }]);
    own.report('browser-1', [{ ...PANEL, focused: false }]);
    await expect(own.beforeKeys()).resolves.toBeUndefined();
  });

  it('forgets what a browser reported when it goes away or reports nothing', async () => {
    const { own } = surfaces();
    own.report('browser-1', [{ ...PANEL, focused: true }]);
    own.forget('browser-1');
    await expect(own.beforeKeys()).resolves.toBeUndefined();
    own.report('browser-1', [{ ...PANEL, focused: true }]);
    own.report('browser-1', []);
    await expect(own.beforePointer([{ x: 1600, y: 500 }])).resolves.toBeUndefined();
  });

  it("names the extensions page when it is the browser's page in front", async () => {
    const { own } = surfaces();
    own.report('b', [
      { kind: 'browser_page', focused: true, rects: [{ x: 0, y: 0, width: 800, height: 600 }], scale: 1 },
    ]);
    expect((await refusalOf(own.beforeKeys())).message).toContain("browser's settings, extensions or developer tools");
    expect((await refusalOf(own.beforePointer([{ x: 5, y: 5 }]))).message).toContain('developer tools');
  });

  it('waits after the previous input, so the browser can report what it opened or focused', async () => {
    const soon = surfaces(40);
    await soon.own.beforeKeys();
    await soon.own.beforePointer([{ x: 1, y: 1 }]);
    expect(soon.slept).toEqual([SURFACE_SETTLE_MS - 40, SURFACE_SETTLE_MS - 40]);
    const late = surfaces(SURFACE_SETTLE_MS + 1);
    await late.own.beforeKeys();
    expect(late.slept).toEqual([]);
  });

  it('checks after waiting: a focus reported during the wait is honoured', async () => {
    const own: OwnSurfaces = new OwnSurfaces({
      sinceLastInput: () => 0,
      sleep: async () => {
        own.report('browser-1', [{ ...PANEL, focused: true }]);
      },
    });
    await refusalOf(own.beforeKeys());
  });

  it('asks the browsers where the pages are now, after waiting and before deciding', async () => {
    const order: string[] = [];
    const own: OwnSurfaces = new OwnSurfaces({
      sinceLastInput: () => 0,
      sleep: async () => {
        order.push('wait');
      },
      ask: async () => {
        order.push('ask');
        // The browser's answer: the focus went to another app since its last report.
        own.report('browser-1', [{ ...PANEL, focused: false }]);
      },
    });
    own.report('browser-1', [{ ...PANEL, focused: true }]);
    await expect(own.beforeKeys()).resolves.toBeUndefined();
    expect(order).toEqual(['wait', 'ask']);
  });

  it('waits for nothing and asks no one while no browser is connected', async () => {
    const slept: number[] = [];
    let asked = 0;
    const own = new OwnSurfaces({
      sinceLastInput: () => 0,
      sleep: async (ms) => {
        slept.push(ms);
      },
      ask: async () => {
        asked += 1;
      },
      browsersConnected: () => false,
    });
    await own.beforeKeys();
    await own.beforePointer([{ x: 1, y: 1 }]);
    expect(slept).toEqual([]);
    expect(asked).toBe(0);
  });

  it('stops waiting when the call is cancelled', async () => {
    const own = new OwnSurfaces({ sinceLastInput: () => 0 });
    const controller = new AbortController();
    const waiting = own.beforeKeys(controller.signal);
    controller.abort(new AppError('EMERGENCY_STOPPED', 'stop'));
    await expect(waiting).rejects.toMatchObject({ code: 'EMERGENCY_STOPPED' });
  });
});
