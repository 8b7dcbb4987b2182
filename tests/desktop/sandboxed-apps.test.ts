import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dataPaths } from '../../native-host/src/core/paths.js';
import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { createSandbox } from '../../native-host/src/sandbox/select.js';
import { SandboxService } from '../../native-host/src/sandbox/service.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createAppHandlers } from '../../native-host/src/tools/apps/index.js';
import { callTool, testContext, testServices } from '../../native-host/src/tools/test-support.js';
import type { SandboxPlacement } from '../../native-host/src/tools/types.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * A terminal the agent opens with app_launch runs in the sandbox: what is typed into it (with
 * real keystrokes, through XTEST) cannot change the person's files. The same terminal launched
 * outside the sandbox can, so the test would notice a sandbox that does nothing.
 */
let server: XServer;
let root: string;
let home: string;
let handlers: ReturnType<typeof createAppHandlers>['handlers'];

beforeAll(async () => {
  server = await startXServer({ width: 1280, height: 800 });
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-gui-sandbox-')));
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, 'Projects'), { recursive: true });
  fs.mkdirSync(path.join(root, 'data', 'run'), { recursive: true });
  const sandbox = new SandboxService({
    sandbox: createSandbox('linux'),
    platform: 'linux',
    homeDir: home,
    security: () => securityConfigSchema.parse({}),
    own: [path.join(root, 'data')],
  });
  const desktop = createLinuxDesktop({ ...server.env, HOME: home }, home, {
    windowPid: (machine, pid) => sandbox.windowPid(machine, pid),
  });
  handlers = createAppHandlers({
    ...testServices(desktop),
    homeDir: home,
    paths: dataPaths(path.join(root, 'data')),
    sandbox,
  }).handlers;
}, 40_000);

afterAll(async () => {
  await runCommand('pkill', ['-f', `xterm -title nx-gui-`], { timeoutMs: 5_000 }).catch(() => undefined);
  await server?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const x = (args: string[]) => runCommand(args[0] as string, args.slice(1), { env: { DISPLAY: server.display } });

async function launchAndType(title: string, placement: SandboxPlacement): Promise<{ pid: number }> {
  const launched = (await callTool(
    'app_launch',
    handlers.app_launch,
    { name: 'xterm', args: ['-title', title] },
    { ...testContext(), sandbox: placement },
  )) as { pid: number; message: string };
  // The window the person (and the agent) sees, found by its title and given keyboard focus.
  let id = '';
  await expect
    .poll(
      async () => (id = (await x(['xdotool', 'search', '--name', title]).catch(() => ({ stdout: '' }))).stdout.trim()),
      {
        timeout: 10_000,
      },
    )
    .not.toBe('');
  await x(['xdotool', 'windowactivate', '--sync', id.split('\n')[0] as string]);
  const marker = path.join(home, 'Projects', `${title}.done`);
  await x(['xdotool', 'type', '--delay', '5', `touch ~/escaped-${title}; echo rc=$? > ${marker}`]);
  await x(['xdotool', 'key', 'Return']);
  await expect.poll(() => fs.existsSync(marker), { timeout: 10_000 }).toBe(true);
  return { pid: launched.pid };
}

describe('a terminal opened by app_launch', () => {
  it('is confined: a command typed into it cannot write outside the allowed folders', async () => {
    const { pid } = await launchAndType('nx-gui-confined', { mode: 'confined', network: 'none' });
    expect(fs.readFileSync(path.join(home, 'Projects', 'nx-gui-confined.done'), 'utf8')).toBe('rc=1\n');
    expect(fs.existsSync(path.join(home, 'escaped-nx-gui-confined'))).toBe(false);
    // Its windows carry its real pid (not the one inside its own PID namespace).
    const listed = (await callTool('app_list', handlers.app_list, { include_windows: true })) as {
      apps: { name: string; pid: number; windows: { title: string }[] }[];
    };
    // The window manager adds the sandbox's host name to the title, as for any other machine's window.
    const app = listed.apps.find((candidate) =>
      candidate.windows.some((window) => window.title.startsWith('nx-gui-confined')),
    );
    expect(app, JSON.stringify(listed)).toMatchObject({ name: 'xterm', pid });
    expect(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('xterm');
  });

  it('launched outside the sandbox (as a person agreed), the same typing does write there', async () => {
    await launchAndType('nx-gui-outside', { mode: 'outside' });
    expect(fs.readFileSync(path.join(home, 'Projects', 'nx-gui-outside.done'), 'utf8')).toBe('rc=0\n');
    expect(fs.existsSync(path.join(home, 'escaped-nx-gui-outside'))).toBe(true);
  });
});
