import { describe, expect, it } from 'vitest';

import { createWindowsDesktop } from './index.js';
import { fakePowerShell } from './test-support.js';

describe('createWindowsDesktop', () => {
  it('assembles every part on one PowerShell host', async () => {
    const host = fakePowerShell((request) => (request.op === 'size' ? { width: 1920, height: 1080 } : { windows: [] }));
    const desktop = createWindowsDesktop({ powershell: host });
    expect(desktop.platform).toBe('windows');
    await expect(desktop.screen.screenSize()).resolves.toEqual({ width: 1920, height: 1080 });
    await expect(desktop.windows.listWindows()).resolves.toEqual([]);
    expect(host.calls).toHaveLength(2);
  });
});
