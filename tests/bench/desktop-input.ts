/**
 * Input bench, under its own Xvfb + openbox:
 *   - click dispatch through the real `left_click` handler (screen-space mapping from a half-scale
 *     screenshot frame, the Linux adapter's XTEST connection, waiting until the server has
 *     processed press and release), at points spread over an xev window;
 *   - the baseline in the same run: one `xdotool mousemove X Y click 1` process per click;
 *   - type_text throughput (ASCII, and Chinese needing keycode rebinding) into an xterm, with the
 *     typed text read back to make sure it all arrived.
 * Goal: click p50 ≤ 10 ms. Returns the lines to print; asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createInputHandlers } from '../../native-host/src/tools/input/index.js';
import { callTool, testServices } from '../../native-host/src/tools/test-support.js';
import { openXterm, startXServer, waitForWindow } from '../support/x-server.js';
import { formatRow, summarize } from './stats.js';

const CLICKS = Number(process.env.BENCH_CLICKS ?? 300);
const BASELINE_CLICKS = Number(process.env.BENCH_BASELINE_CLICKS ?? 100);
const WARM_UP = 20;

export async function benchInput(): Promise<string[]> {
  const server = await startXServer();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bench-input-'));
  const children: ChildProcess[] = [];
  try {
    const desktop = createLinuxDesktop(server.env, workDir);
    const services = testServices(desktop);
    services.screenSpace.remember({
      area: { x: 0, y: 0, width: server.width, height: server.height },
      scale: 0.5,
      image: { width: server.width / 2, height: server.height / 2 },
    });
    const { handlers } = createInputHandlers(services);

    // A window that takes the clicks (and the window manager's click-to-focus grab, as on a desktop).
    const xev = spawn('xev', ['-name', 'nx-bench-xev', '-geometry', '800x600+200+200', '-event', 'button'], {
      env: server.env,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(xev);
    await waitForWindow(server, 'nx-bench-xev');
    const point = (index: number) => ({ x: 150 + (index % 40) * 8, y: 150 + (Math.floor(index / 40) % 20) * 12 });

    for (let index = 0; index < WARM_UP; index++) await callTool('left_click', handlers.left_click, point(index));
    const handlerSamples: number[] = [];
    for (let index = 0; index < CLICKS; index++) {
      const start = performance.now();
      await callTool('left_click', handlers.left_click, point(index));
      handlerSamples.push(performance.now() - start);
    }

    const baselineSamples: number[] = [];
    const env = { DISPLAY: server.display };
    for (let index = 0; index < BASELINE_CLICKS; index++) {
      const { x, y } = point(index);
      const start = performance.now();
      await runCommand('xdotool', ['mousemove', String(x * 2 + 1), String(y * 2 + 1), 'click', '1'], { env });
      baselineSamples.push(performance.now() - start);
    }

    const typing = await benchTyping(server, workDir, handlers, children);

    const handler = summarize(handlerSamples);
    const baseline = summarize(baselineSamples);
    return [
      'Input, Xvfb 1920×1080 + openbox:',
      formatRow('left_click handler (map + XTEST, waits for processing)', handler),
      formatRow('xdotool mousemove X Y click 1, a process per click', baseline),
      `click vs xdotool: ${(baseline.p50 / handler.p50).toFixed(1)}× faster at p50`,
      `goal click p50 ≤ 10 ms: ${handler.p50 <= 10 ? 'met' : 'NOT met'} (${handler.p50.toFixed(2)} ms)`,
      ...typing,
    ];
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await server.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

async function benchTyping(
  server: Awaited<ReturnType<typeof startXServer>>,
  workDir: string,
  handlers: ReturnType<typeof createInputHandlers>['handlers'],
  children: ChildProcess[],
): Promise<string[]> {
  const file = path.join(workDir, 'typed.txt');
  const term = await openXterm(
    { ...server, env: { ...server.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } },
    'nx-bench-type',
    ['-u8', '-e', 'bash', '-c', `stty -echo; cat > ${file}`],
  );
  children.push(term.child);
  await runCommand('xdotool', ['windowactivate', '--sync', term.windowId], { env: { DISPLAY: server.display } }).catch(
    () => undefined,
  );
  const ascii = `${'The quick brown fox jumps over the lazy dog; 0123456789 ~!@#$%^&*()_+{}|:"<>?\n'.repeat(6)}`;
  const chinese = '天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜\n';
  const lines: string[] = [];
  let expected = '';
  for (const [label, text] of [
    ['ASCII with symbols', ascii],
    ['Chinese (keycodes rebound in batches)', chinese],
  ] as const) {
    const start = performance.now();
    await callTool('type_text', handlers.type_text, { text, delay: 0 });
    const elapsed = performance.now() - start;
    expected += text;
    const deadline = Date.now() + 10_000;
    while ((fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '') !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const arrived = fs.existsSync(file) && fs.readFileSync(file, 'utf8') === expected;
    const characters = [...text].length;
    lines.push(
      `type_text ${label.padEnd(40)} ${String(characters).padStart(4)} chars in ${elapsed.toFixed(0).padStart(5)} ms = ${((characters / elapsed) * 1000).toFixed(0).padStart(5)} chars/s (delay 0; ${arrived ? 'all arrived' : 'NOT all arrived'})`,
    );
  }
  return lines;
}
