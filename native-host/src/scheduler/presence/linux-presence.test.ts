import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { LinuxPresence } from './linux-presence.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let monitor: LinuxPresence | undefined;

afterEach(() => {
  monitor?.close();
  monitor = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

function supplies(entries: Record<string, Record<string, string>>): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-power-'));
  for (const [name, files] of Object.entries(entries)) {
    fs.mkdirSync(path.join(dir, name));
    for (const [file, value] of Object.entries(files)) fs.writeFileSync(path.join(dir, name, file), `${value}\n`);
  }
  return dir;
}

function make(options: {
  dir: string;
  commands?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}) {
  const calls: string[] = [];
  monitor = new LinuxPresence({
    log,
    powerSupplyDir: options.dir,
    env: options.env ?? {},
    now: options.now ?? (() => 0),
    startWatcher: () => undefined,
    run: (command, args) => {
      const line = [command, ...args].join(' ');
      calls.push(line);
      const answer = options.commands?.[line];
      return answer === undefined ? Promise.reject(new Error(`\`${line}\` failed`)) : Promise.resolve(answer);
    },
  });
  return { monitor, calls };
}

describe('LinuxPresence', () => {
  it('reads a discharging laptop battery and a locked session', async () => {
    const { monitor } = make({
      dir: supplies({
        AC: { type: 'Mains', online: '0' },
        BAT0: { type: 'Battery', status: 'Discharging', capacity: '42' },
      }),
      env: { XDG_SESSION_ID: '3' },
      commands: { 'loginctl show-session 3 -p LockedHint --value': 'yes\n' },
    });
    expect(await monitor.read()).toEqual({
      onBattery: true,
      batteryPercent: 42,
      screenLocked: true,
      sleeping: false,
      notes: ['sleep signals: not watched'],
    });
  });

  it('on mains power while charging; a monitor off by DPMS counts as locked', async () => {
    const { monitor } = make({
      dir: supplies({
        ADP1: { type: 'Mains', online: '1' },
        BAT0: { type: 'Battery', status: 'Charging', capacity: '80' },
      }),
      env: { DISPLAY: ':7', XDG_SESSION_ID: '3' },
      commands: {
        'loginctl show-session 3 -p LockedHint --value': 'no\n',
        'xset -display :7 q': 'DPMS (Energy Star):\n  Monitor is Off\n',
      },
    });
    const state = await monitor.read();
    expect([state.onBattery, state.screenLocked]).toEqual([false, true]);
  });

  it('a desktop without battery and without logind: unknown, with notes saying why', async () => {
    const { monitor } = make({ dir: supplies({}), env: {} });
    const state = await monitor.read();
    expect([state.onBattery, state.batteryPercent, state.screenLocked]).toEqual([null, null, null]);
    expect(state.notes.join('\n')).toMatch(/screen lock: `loginctl show-user \d+ -p Display --value` failed/);
  });

  it('reuses a reading for a while, longer on battery', async () => {
    let now = 0;
    const { monitor, calls } = make({
      dir: supplies({ BAT0: { type: 'Battery', status: 'Discharging', capacity: '50' } }),
      env: { XDG_SESSION_ID: '1' },
      commands: { 'loginctl show-session 1 -p LockedHint --value': 'no' },
      now: () => now,
    });
    await monitor.read();
    now = 120_000;
    await monitor.read();
    expect(calls).toHaveLength(1);
    now = 181_000;
    await monitor.read();
    expect(calls).toHaveLength(2);
  });

  it('reads again after the clock is set back, rather than reusing a reading for an hour', async () => {
    let now = Date.parse('2025-06-02T09:00:00Z');
    const { monitor } = make({
      dir: supplies({ AC: { type: 'Mains', online: '1' }, BAT0: { type: 'Battery', status: 'Charging' } }),
      env: { XDG_SESSION_ID: '1' },
      commands: { 'loginctl show-session 1 -p LockedHint --value': 'no' },
      now: () => now,
    });
    expect((await monitor.read()).onBattery).toBe(false);
    // Unplugged; a few seconds later the clock is set back an hour.
    fs.writeFileSync(path.join(dir, 'AC', 'online'), '0\n');
    fs.writeFileSync(path.join(dir, 'BAT0', 'status'), 'Discharging\n');
    now -= 3_600_000 - 5_000;
    expect((await monitor.read()).onBattery).toBe(true);
  });

  it('follows logind’s PrepareForSleep signal', () => {
    const { monitor } = make({ dir: supplies({}) });
    const seen: boolean[] = [];
    monitor.onSleep((sleeping) => seen.push(sleeping));
    monitor.handleSignalLine('/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForSleep (true,)');
    monitor.handleSignalLine('/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForSleep (false,)');
    expect(seen).toEqual([true, false]);
  });
});
