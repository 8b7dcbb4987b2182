import { describe, expect, it } from 'vitest';

import { createMacosDesktop } from './index.js';
import type { JxaHost } from './jxa.js';

describe('createMacosDesktop', () => {
  it('assembles every part on the given script host', async () => {
    const scripts: string[] = [];
    const jxa: JxaHost = {
      run: async (script, request) => {
        scripts.push(script);
        return (request as { op?: string }).op === 'apps'
          ? [{ name: 'Finder', pid: 90 }]
          : { width: 1, height: 1, backingScale: 1, screenRecording: null };
      },
    };
    const desktop = createMacosDesktop({ jxa });
    expect(desktop.platform).toBe('macos');
    await expect(desktop.windows.listApps()).resolves.toEqual([{ name: 'Finder', pid: 90 }]);
    await expect(desktop.screen.screenSize()).resolves.toEqual({ width: 1, height: 1 });
    expect(new Set(scripts).size).toBe(2);
  });
});
