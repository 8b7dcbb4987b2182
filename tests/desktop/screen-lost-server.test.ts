import { AppError } from '@nextai/shared';
import { expect, it } from 'vitest';

import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { failureOf } from '../../native-host/src/tools/test-support.js';
import { startXServer } from '../support/x-server.js';

/**
 * The daemon outlives its X server (a logout, a crashed Xvfb): screen and mouse calls made after
 * the server went away fail with an error that says so, and this process keeps running — Xlib
 * (libnut, which the project no longer uses) would have ended it.
 */
it('answers screen and mouse calls with an error once the X server is gone, and keeps running', async () => {
  const server = await startXServer({ width: 640, height: 480 });
  const desktop = createLinuxDesktop(server.env);
  const before = await desktop.screen.capture();
  expect(before).toMatchObject({ width: 640, height: 480 });
  await desktop.input.mouseMove({ x: 10, y: 10 }, 0);
  await server.stop();

  const capture = await failureOf(desktop.screen.capture());
  expect(capture).toBeInstanceOf(AppError);
  expect(capture.code).toBe('UNAVAILABLE');
  const move = await failureOf(desktop.input.mouseMove({ x: 20, y: 20 }, 0));
  expect(move.code).toBe('UNAVAILABLE');
  // Still here, and still answering.
  expect(process.exitCode ?? 0).toBe(0);
}, 40_000);
