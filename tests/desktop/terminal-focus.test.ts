import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { terminalInputOn } from '../../native-host/src/policy/channels/terminal-input.js';
import { openXterm, startXServer, type XServer } from '../support/x-server.js';

/**
 * What the keyboard channel of the policy asks the real X11 adapter: which window has
 * the focus, read without listing every window, and an xterm known as a terminal by it. No key is
 * sent here: the tracker only judges.
 */
let server: XServer;

beforeAll(async () => {
  server = await startXServer();
}, 40_000);
afterAll(async () => server?.stop());

describe('the focused window, for judging keys', () => {
  it('is the window listWindows marks focused, and an xterm there composes a command line', async () => {
    const desktop = createLinuxDesktop(server.env);
    const first = await openXterm(server, 'nx-focus-one');
    const second = await openXterm(server, 'nx-focus-two');
    try {
      await expect.poll(async () => (await desktop.windows.focusedWindow?.())?.title).toBe('nx-focus-two');
      const focused = await desktop.windows.focusedWindow?.();
      const listed = (await desktop.windows.listWindows()).find((window) => window.focused);
      expect(focused).toMatchObject({ id: listed?.id, app: 'xterm', pid: second.child.pid, focused: true });

      const input = terminalInputOn(desktop, 'linux');
      const typed = await input.judge({ typed: 'rm -rf ~' });
      expect(await typed?.confirm()).toBeUndefined();
      typed?.settle('sent');
      const enter = await input.judge({ keys: ['enter'] });
      expect(enter?.submission).toMatchObject({ scripts: [{ text: 'rm -rf ~' }] });
      expect(enter?.submission?.action.en).toMatch(/^presses enter in the terminal xterm "nx-focus-two"$/);

      const other = (await desktop.windows.listWindows()).find((window) => window.title === 'nx-focus-one');
      await desktop.windows.focusWindow(other?.id ?? 'none');
      expect((await enter?.confirm())?.en).toMatch(/The window in front changed/);
    } finally {
      first.child.kill();
      second.child.kill();
    }
  });
});
