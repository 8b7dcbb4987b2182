import fs from 'node:fs';
import path from 'node:path';

import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { openXterm, startXServer, type XServer } from '../support/x-server.js';

/**
 * The desktop tools through the whole product: the built `nextai` CLI, a real daemon process,
 * its policy and audit, a real X server. Large images come back by reference and are read with
 * `blobs.read` (the CLI's --save does that).
 */
let server: XServer;
let home: TestHome;

beforeAll(async () => {
  requireBuilt(CLI_BUNDLE);
  server = await startXServer({ width: 1920, height: 1080 });
}, 40_000);
afterAll(async () => server?.stop());
afterEach(async () => home?.cleanup());

function withoutDisplay(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.DISPLAY;
  delete copy.WAYLAND_DISPLAY;
  return copy;
}

it('answers screen tools with a clear error when there is no display, and keeps running', async () => {
  home = makeHome();
  const env = withoutDisplay(home.env);
  const shot = await runCli(['tool', 'screenshot'], env);
  expect(shot.code).toBe(1);
  expect(shot.stderr).toContain('[UNAVAILABLE]');
  expect(shot.stderr).toContain('DISPLAY');
  const click = await runCli(['tool', 'mouse_move', '{"x":1,"y":1,"smooth":false}', '--json'], env);
  expect(JSON.parse(click.stdout)).toMatchObject({ ok: false });
  const status = await runCli(['status', '--json'], env);
  expect(status.code).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({ running: true });
});

it('takes a screenshot of the real screen, scaled under 1568 px and 1.15 MP, and saves it from a blob reference', async () => {
  home = makeHome();
  const env = { ...home.env, DISPLAY: server.display };
  const file = path.join(home.dir, 'shot.png');
  const result = await runCli(['tool', 'screenshot', '{"format":"png"}', '--json', '--save', file], env);
  expect(result.code, result.stderr).toBe(0);
  const answer = JSON.parse(result.stdout) as {
    ok: boolean;
    output: { image: string; width: number; height: number; scale: number; format: string };
  };
  // 1920×1080 at 1568 px wide would be 1.38 MP: the area limit (~1.15 MP) makes it 1430×804.
  expect(answer.output).toMatchObject({ width: 1430, height: 804, format: 'png' });
  expect(answer.output.scale).toBeCloseTo(1430 / 1920, 3);
  const metadata = await sharp(fs.readFileSync(file)).metadata();
  expect(metadata).toMatchObject({ format: 'png', width: 1430, height: 804 });
});

it('lists a real window through the daemon', async () => {
  home = makeHome();
  const env = { ...home.env, DISPLAY: server.display };
  const { child } = await openXterm(server, 'nx-daemon-term');
  try {
    const result = await runCli(['tool', 'app_list', '{"include_windows":true}'], env);
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout) as { apps: { name: string; windows: { title: string }[] }[] };
    const xterm = output.apps.find((app) => app.windows.some((window) => window.title === 'nx-daemon-term'));
    expect(xterm?.name).toBe('xterm');
  } finally {
    child.kill();
  }
});
