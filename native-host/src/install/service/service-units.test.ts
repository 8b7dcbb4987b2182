import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { MAX_STOP_GRACE_SECONDS, daemonConfigSchema } from '../../daemon/stop-config.js';
import {
  STOP_TIMEOUT_SECONDS,
  renderLaunchAgent,
  renderSystemdUnit,
  renderTaskXml,
  servicePlan,
  systemdQuote,
  windowsQuote,
} from './service-units.js';

const linux = {
  platform: 'linux' as const,
  homeDir: '/home/ada',
  dataDir: '/home/ada/.nextai-agent',
  nodePath: '/usr/bin/node',
  cliPath: '/opt/next ai/dist/nextai.js',
};

describe('systemd user unit', () => {
  it('starts the daemon in service mode at login, restarts it on failure, and never gives up', () => {
    const plan = servicePlan(linux);
    expect(plan.file).toBe('/home/ada/.config/systemd/user/nextai-agent.service');
    expect(plan.content).toBe(
      [
        '# Written by `nextai install --service`; removed by `nextai uninstall --service`.',
        '[Unit]',
        'Description=NextAI Agent daemon (scheduled tasks, agent runs, approvals)',
        'StartLimitIntervalSec=0',
        '',
        '[Service]',
        'Type=simple',
        'ExecStart="/usr/bin/node" "/opt/next ai/dist/nextai.js" "daemon" "--service" "--home" "/home/ada/.nextai-agent"',
        'Restart=on-failure',
        'RestartSec=5s',
        'RestartPreventExitStatus=4',
        'KillMode=mixed',
        'TimeoutStopSec=615s',
        '',
        '[Install]',
        'WantedBy=default.target',
        '',
      ].join('\n'),
    );
    expect(plan.register.map((command) => [command.command, ...command.args].join(' '))).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now nextai-agent.service',
    ]);
    expect(plan.unregister.map((command) => [command.command, ...command.args].join(' '))).toEqual([
      'systemctl --user disable --now nextai-agent.service',
      'systemctl --user daemon-reload',
    ]);
    expect(servicePlan({ ...linux, xdgConfigHome: '/cfg' }).file).toBe('/cfg/systemd/user/nextai-agent.service');
  });

  it('waits out the longest grace period config.json accepts before it kills the daemon', () => {
    expect(STOP_TIMEOUT_SECONDS).toBe(MAX_STOP_GRACE_SECONDS + 15);
    expect(daemonConfigSchema.safeParse({ stop_grace_seconds: MAX_STOP_GRACE_SECONDS }).success).toBe(true);
    expect(daemonConfigSchema.safeParse({ stop_grace_seconds: MAX_STOP_GRACE_SECONDS + 1 }).success).toBe(false);
  });

  it('quotes what systemd would otherwise expand', () => {
    expect(systemdQuote('/a b/"c"\\%h$HOME')).toBe('"/a b/\\"c\\"\\\\%%h$$HOME"');
    expect(() => systemdQuote('a\nb')).toThrow(/line break/);
  });

  it('passes `systemd-analyze verify` without a warning', () => {
    const found = spawnSync('systemd-analyze', ['--version']);
    // Not a skip: CI installs systemd (scripts/install-system-deps.sh); its absence is a failure that says so.
    expect(
      found.error,
      'systemd-analyze is not installed: run scripts/install-system-deps.sh (apt package systemd)',
    ).toBeUndefined();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-unit-'));
    const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-rt-'));
    try {
      const file = path.join(dir, 'nextai-agent.service');
      // A real node and a real file, so the checks on ExecStart's program pass for what it is.
      fs.writeFileSync(
        file,
        renderSystemdUnit({ ...linux, nodePath: process.execPath, cliPath: fileURLToPath(import.meta.url) }),
      );
      const result = spawnSync('systemd-analyze', ['--user', 'verify', file], {
        encoding: 'utf8',
        env: { ...process.env, XDG_RUNTIME_DIR: runtime },
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);

      // The check is real: a misspelt key is reported.
      fs.appendFileSync(file, 'Restrat=always\n');
      const bad = spawnSync('systemd-analyze', ['--user', 'verify', file], {
        encoding: 'utf8',
        env: { ...process.env, XDG_RUNTIME_DIR: runtime },
      });
      expect(bad.stderr).toContain("Unknown key 'Restrat'");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(runtime, { recursive: true, force: true });
    }
  });
});

describe('macOS LaunchAgent', () => {
  const mac = {
    ...linux,
    platform: 'macos' as const,
    homeDir: '/Users/ada',
    dataDir: '/Users/ada/.nextai-agent',
    uid: 502,
  };

  it('is a plist that starts at load, is kept alive unless it exits cleanly, and logs to the data directory', () => {
    const plan = servicePlan(mac);
    expect(plan.file).toBe('/Users/ada/Library/LaunchAgents/com.nextai-agent.plist');
    const plist = plan.content;
    expect(plist.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist')).toBe(true);
    expect(plist).toContain('<key>Label</key>\n  <string>com.nextai-agent</string>');
    expect(plist).toContain(
      [
        '  <array>',
        '    <string>/usr/bin/node</string>',
        '    <string>/opt/next ai/dist/nextai.js</string>',
        '    <string>daemon</string>',
        '    <string>--service</string>',
        '    <string>--home</string>',
        '    <string>/Users/ada/.nextai-agent</string>',
        '  </array>',
      ].join('\n'),
    );
    expect(plist).toContain('<key>RunAtLoad</key>\n  <true/>');
    expect(plist).toContain('<key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>');
    expect(plist).toContain('<key>ThrottleInterval</key>\n  <integer>5</integer>');
    // Longer than the longest grace period a stop may give running tool calls (600 s), as systemd's.
    expect(plist).toContain('<key>ExitTimeOut</key>\n  <integer>615</integer>');
    expect(plist).toContain('<string>/Users/ada/.nextai-agent/logs/service.log</string>');
    // Every element opened is closed, in order.
    const stack: string[] = [];
    for (const [, closing, name, selfClosing] of plist.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/gu)) {
      if (selfClosing) continue;
      if (closing) expect(stack.pop()).toBe(name);
      else stack.push(name!);
    }
    expect(stack).toEqual([]);
    expect(plan.register.map((command) => [command.command, ...command.args].join(' '))).toEqual([
      'launchctl bootout gui/502/com.nextai-agent',
      'launchctl bootstrap gui/502 /Users/ada/Library/LaunchAgents/com.nextai-agent.plist',
    ]);
  });

  it('escapes XML in paths', () => {
    expect(renderLaunchAgent({ ...mac, dataDir: '/Users/a&b/<x>' })).toContain(
      '<string>/Users/a&amp;b/&lt;x&gt;</string>',
    );
  });
});

describe('Windows Task Scheduler task', () => {
  const windows = {
    platform: 'windows' as const,
    homeDir: 'C:\\Users\\Ada',
    dataDir: 'C:\\Users\\Ada\\.nextai-agent',
    nodePath: 'C:\\Program Files\\nodejs\\node.exe',
    cliPath: 'C:\\tools\\nextai\\dist\\nextai.js',
    userId: 'PC\\Ada',
  };

  it('runs at logon as the person, without a time limit, restarting on failure', () => {
    const plan = servicePlan(windows);
    expect(plan.file).toBe('C:\\Users\\Ada\\.nextai-agent\\service\\nextai-agent-task.xml');
    expect(plan.encoding).toBe('utf16le');
    const xml = plan.content;
    expect(xml.split('\r\n')[0]).toBe('<?xml version="1.0" encoding="UTF-16"?>');
    expect(xml).toContain('<LogonTrigger>\r\n      <Enabled>true</Enabled>\r\n      <UserId>PC\\Ada</UserId>');
    expect(xml).toContain('<LogonType>InteractiveToken</LogonType>');
    expect(xml).toContain('<RunLevel>LeastPrivilege</RunLevel>');
    expect(xml).toContain('<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>');
    expect(xml).toContain('<DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>');
    expect(xml).toContain('<RestartOnFailure>\r\n      <Interval>PT1M</Interval>\r\n      <Count>999</Count>');
    expect(xml).toContain('<Command>C:\\Program Files\\nodejs\\node.exe</Command>');
    expect(xml).toContain(
      '<Arguments>C:\\tools\\nextai\\dist\\nextai.js daemon --service --home C:\\Users\\Ada\\.nextai-agent</Arguments>',
    );
    expect(plan.register.map((command) => [command.command, ...command.args].join(' '))).toEqual([
      `schtasks.exe /Create /TN NextAI Agent /XML ${plan.file} /F`,
      'schtasks.exe /Run /TN NextAI Agent',
    ]);
    expect(plan.managerRestartDelayMs).toBe(60_000);
  });

  it('quotes arguments for CommandLineToArgvW and the XML around them', () => {
    expect(windowsQuote('C:\\Program Files\\x')).toBe('"C:\\Program Files\\x"');
    expect(windowsQuote('a"b')).toBe('"a\\"b"');
    expect(windowsQuote('C:\\dir with space\\')).toBe('"C:\\dir with space\\\\"');
    expect(renderTaskXml({ ...windows, dataDir: 'C:\\A & B' })).toContain(
      '--home &quot;C:\\A &amp; B&quot;</Arguments>',
    );
  });
});
