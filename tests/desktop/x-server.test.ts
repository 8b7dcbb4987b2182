import { afterAll, beforeAll, expect, it } from 'vitest';

import { runCommand } from '../../native-host/src/core/subprocess.js';
import { openXterm, startXServer, type XServer } from '../support/x-server.js';

let server: XServer;
beforeAll(async () => {
  server = await startXServer();
}, 40_000);
afterAll(async () => server?.stop());

it('starts Xvfb with openbox, and an xterm gets a titled window', async () => {
  const { child, windowId } = await openXterm(server, 'nx-smoke-term');
  const { stdout } = await runCommand('xwininfo', ['-id', windowId], { env: { DISPLAY: server.display } });
  expect(stdout).toContain('nx-smoke-term');
  child.kill();
}, 20_000);
