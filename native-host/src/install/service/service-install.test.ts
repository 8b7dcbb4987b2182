import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { installService, uninstallService } from './service-install.js';
import { servicePlan } from './service-units.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function plan(platform: 'linux' | 'windows') {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-svc-'));
  return servicePlan({
    platform,
    homeDir: dir,
    dataDir: path.join(dir, 'data'),
    nodePath: '/usr/bin/node',
    cliPath: '/opt/nextai.js',
    xdgConfigHome: path.join(dir, 'config'),
  });
}

describe('installService', () => {
  it('writes the unit, runs the registration commands in order, and uninstall undoes both', async () => {
    const linux = plan('linux');
    const ran: string[] = [];
    const run = (command: string, args: string[]) => {
      ran.push([command, ...args].join(' '));
      return Promise.resolve();
    };
    const installed = await installService(linux, { dryRun: false, run });
    expect(fs.readFileSync(linux.file, 'utf8')).toBe(linux.content);
    expect(installed.commands.every((command) => command.ok)).toBe(true);
    const removed = await uninstallService(linux, { dryRun: false, run });
    expect(removed.removed).toBe(true);
    expect(fs.existsSync(linux.file)).toBe(false);
    expect(ran).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now nextai-agent.service',
      'systemctl --user disable --now nextai-agent.service',
      'systemctl --user daemon-reload',
    ]);
  });

  it('a dry run writes and runs nothing', async () => {
    const linux = plan('linux');
    const report = await installService(linux, {
      dryRun: true,
      run: () => Promise.reject(new Error('must not run')),
    });
    expect(fs.existsSync(linux.file)).toBe(false);
    expect(report.commands.map((command) => command.command)).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now nextai-agent.service',
    ]);
  });

  it('a failing registration is an error that says the file is in place; stopping what is gone is not', async () => {
    const linux = plan('linux');
    const failing = () => Promise.reject(new Error('Failed to connect to bus'));
    await expect(installService(linux, { dryRun: false, run: failing })).rejects.toThrow(
      /`systemctl --user daemon-reload` failed: Failed to connect to bus\. The unit file is in place/,
    );
    const removed = await uninstallService(linux, { dryRun: false, run: failing });
    expect(removed.commands.map((command) => command.ok)).toEqual([false, false]);
    expect(fs.existsSync(linux.file)).toBe(false);
  });

  it('writes the Task Scheduler XML as UTF-16 with a byte-order mark', async () => {
    const windows = plan('windows');
    // On this (POSIX) machine the Windows path is one odd file name inside the working directory.
    const local = { ...windows, file: path.join(dir, 'task.xml') };
    await installService(local, { dryRun: false, run: () => Promise.resolve() });
    const bytes = fs.readFileSync(local.file);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    expect(bytes.subarray(2).toString('utf16le')).toBe(windows.content);
  });
});
