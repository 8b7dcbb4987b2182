import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';

/**
 * What `nextai install --service` writes so the daemon runs as an OS service: it
 * starts at login, keeps running after the browser closes, and is restarted when it dies. The
 * restart delays grow 5 s → 15 s → 60 s: the service manager waits its own delay (below), and
 * `nextai daemon --service` waits the rest before it starts (see restart-backoff.ts) — the same
 * schedule on every OS, whatever its manager can express.
 */
export interface ServiceContext {
  platform: Platform;
  homeDir: string;
  /** The data directory the daemon serves (`NEXTAI_HOME`). */
  dataDir: string;
  /** The node executable and the bundled CLI. */
  nodePath: string;
  cliPath: string;
  /** Windows: the account the task runs as (DOMAIN\user). */
  userId?: string;
  /** macOS: the uid of the GUI session the LaunchAgent is loaded into. */
  uid?: number;
  /** Linux: where user units live (`$XDG_CONFIG_HOME/systemd/user`). */
  xdgConfigHome?: string;
}

export interface ServiceCommand {
  command: string;
  args: string[];
  /** Whether a failure stops the install (loading) or is only reported (stopping something already gone). */
  mayFail: boolean;
}

export interface ServicePlan {
  platform: Platform;
  /** The manager's name for it. */
  name: string;
  file: string;
  content: string;
  /** Task Scheduler reads its XML as UTF-16. */
  encoding: 'utf8' | 'utf16le';
  register: ServiceCommand[];
  unregister: ServiceCommand[];
  /** What the manager itself waits before a restart, in ms (the daemon waits the rest). */
  managerRestartDelayMs: number;
}

export const SYSTEMD_UNIT_NAME = 'nextai-agent.service';
export const LAUNCH_AGENT_LABEL = 'com.nextai-agent';
export const WINDOWS_TASK_NAME = 'NextAI Agent';

/** The daemon's command line under a service manager. */
export function daemonArguments(context: ServiceContext): string[] {
  return [context.cliPath, 'daemon', '--service', '--home', context.dataDir];
}

export function servicePlan(context: ServiceContext): ServicePlan {
  switch (context.platform) {
    case 'linux':
      return systemdPlan(context);
    case 'macos':
      return launchdPlan(context);
    case 'windows':
      return windowsPlan(context);
  }
}

// ---------------------------------------------------------------------------------------------
// Linux: a systemd user unit

function systemdPlan(context: ServiceContext): ServicePlan {
  const configHome = context.xdgConfigHome ?? path.posix.join(context.homeDir, '.config');
  const file = path.posix.join(configHome, 'systemd', 'user', SYSTEMD_UNIT_NAME);
  const systemctl = (...args: string[]) => ['--user', ...args];
  return {
    platform: 'linux',
    name: SYSTEMD_UNIT_NAME,
    file,
    content: renderSystemdUnit(context),
    encoding: 'utf8',
    register: [
      { command: 'systemctl', args: systemctl('daemon-reload'), mayFail: false },
      { command: 'systemctl', args: systemctl('enable', '--now', SYSTEMD_UNIT_NAME), mayFail: false },
    ],
    unregister: [
      { command: 'systemctl', args: systemctl('disable', '--now', SYSTEMD_UNIT_NAME), mayFail: true },
      { command: 'systemctl', args: systemctl('daemon-reload'), mayFail: true },
    ],
    managerRestartDelayMs: 5000,
  };
}

/**
 * How long the service manager lets a stop take before it kills the daemon: the longest grace
 * period config.json accepts for running tool calls (`daemon.stop_grace_seconds`, at most 600 s —
 * MAX_STOP_GRACE_SECONDS in daemon/stop-config.ts, a layer above; a test keeps the two together)
 * and 15 s to abort what is left and close. A backstop only: the daemon keeps to the grace period
 * configured (30 s by default) and aborts the calls still running itself. Not capped at the
 * default instead: the grace is read when a stop begins, so an edit made after the install
 * applies — and a manager that gave up sooner would SIGKILL the tool calls the person chose to
 * wait for, partway (the run then says "outcome unknown"). The price: a daemon hung in its stop
 * holds a stop of the service up to this long.
 */
export const STOP_TIMEOUT_SECONDS = 600 + 15;

export function renderSystemdUnit(context: ServiceContext): string {
  const exec = [context.nodePath, ...daemonArguments(context)].map(systemdQuote).join(' ');
  return [
    '# Written by `nextai install --service`; removed by `nextai uninstall --service`.',
    '[Unit]',
    'Description=NextAI Agent daemon (scheduled tasks, agent runs, approvals)',
    // Never give up restarting: the daemon itself slows a crash loop down (5 s, 15 s, 60 s).
    'StartLimitIntervalSec=0',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    'Restart=on-failure',
    'RestartSec=5s',
    // Exit code 4: another daemon already owns the data directory; restarting would not help.
    'RestartPreventExitStatus=4',
    // A stop lets running tool calls finish first (30 s by default, daemon.stop_grace_seconds):
    // SIGTERM goes to the daemon alone — not to the commands it runs (the default, control-group,
    // would end them at once, and the run would say "outcome unknown") — and the rest of the
    // control group is killed only once the daemon has ended, or TimeoutStopSec is over.
    'KillMode=mixed',
    `TimeoutStopSec=${STOP_TIMEOUT_SECONDS}s`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** A word of a systemd command line: double-quoted, with `\`, `"`, `%` (specifiers) and `$` (variables) escaped. */
export function systemdQuote(word: string): string {
  if (/[\n\r]/u.test(word))
    throw new AppError(
      'INVALID_ARGUMENT',
      `A path with a line break cannot go in a unit file: ${JSON.stringify(word)}`,
    );
  return `"${word.replace(/\\/gu, '\\\\').replace(/"/gu, '\\"').replace(/%/gu, '%%').replace(/\$/gu, '$$$$')}"`;
}

// ---------------------------------------------------------------------------------------------
// macOS: a LaunchAgent (not run on a real Mac yet; the plist follows launchd.plist(5))

function launchdPlan(context: ServiceContext): ServicePlan {
  const file = path.posix.join(context.homeDir, 'Library', 'LaunchAgents', `${LAUNCH_AGENT_LABEL}.plist`);
  const domain = `gui/${context.uid ?? 501}`;
  return {
    platform: 'macos',
    name: LAUNCH_AGENT_LABEL,
    file,
    content: renderLaunchAgent(context),
    encoding: 'utf8',
    register: [
      // A stale copy from an earlier install would make bootstrap fail: unload it first.
      { command: 'launchctl', args: ['bootout', `${domain}/${LAUNCH_AGENT_LABEL}`], mayFail: true },
      { command: 'launchctl', args: ['bootstrap', domain, file], mayFail: false },
    ],
    unregister: [{ command: 'launchctl', args: ['bootout', `${domain}/${LAUNCH_AGENT_LABEL}`], mayFail: true }],
    // ThrottleInterval: launchd starts a job at most this often.
    managerRestartDelayMs: 5000,
  };
}

export function renderLaunchAgent(context: ServiceContext): string {
  const string = (value: string) => `<string>${xmlEscape(value)}</string>`;
  const log = path.posix.join(context.dataDir, 'logs', 'service.log');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `nextai install --service`; removed by `nextai uninstall --service`. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  ${string(LAUNCH_AGENT_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[context.nodePath, ...daemonArguments(context)].map((word) => `    ${string(word)}`),
    '  </array>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    // Restarted when it exits with an error or dies; a clean `nextai daemon stop` stays stopped.
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>5</integer>',
    // launchd kills a job 20 s after SIGTERM by default: a stop may take longer (see
    // STOP_TIMEOUT_SECONDS). launchd.plist(5) has it signal the job's process, the daemon; what is
    // left of its process group is killed once the daemon has ended (as KillMode=mixed does).
    '  <key>ExitTimeOut</key>',
    `  <integer>${STOP_TIMEOUT_SECONDS}</integer>`,
    '  <key>ProcessType</key>',
    '  <string>Background</string>',
    '  <key>StandardOutPath</key>',
    `  ${string(log)}`,
    '  <key>StandardErrorPath</key>',
    `  ${string(log)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Windows: a Task Scheduler task (not run on a real Windows machine yet; the XML follows the
// Task Scheduler schema, version 1.4)

function windowsPlan(context: ServiceContext): ServicePlan {
  const file = path.win32.join(context.dataDir, 'service', 'nextai-agent-task.xml');
  return {
    platform: 'windows',
    name: WINDOWS_TASK_NAME,
    file,
    content: renderTaskXml(context),
    encoding: 'utf16le',
    register: [
      { command: 'schtasks.exe', args: ['/Create', '/TN', WINDOWS_TASK_NAME, '/XML', file, '/F'], mayFail: false },
      { command: 'schtasks.exe', args: ['/Run', '/TN', WINDOWS_TASK_NAME], mayFail: false },
    ],
    unregister: [
      { command: 'schtasks.exe', args: ['/End', '/TN', WINDOWS_TASK_NAME], mayFail: true },
      { command: 'schtasks.exe', args: ['/Delete', '/TN', WINDOWS_TASK_NAME, '/F'], mayFail: true },
    ],
    // The shortest restart interval Task Scheduler accepts is one minute.
    managerRestartDelayMs: 60_000,
  };
}

export function renderTaskXml(context: ServiceContext): string {
  const user = xmlEscape(context.userId ?? 'user');
  const args = daemonArguments(context).map(windowsQuote).join(' ');
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<!-- Written by `nextai install --service`; removed by `nextai uninstall --service`. -->',
    '<Task version="1.4" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    '    <Description>NextAI Agent daemon: scheduled tasks, agent runs and approvals.</Description>',
    `    <URI>\\${xmlEscape(WINDOWS_TASK_NAME)}</URI>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <LogonTrigger>',
    '      <Enabled>true</Enabled>',
    `      <UserId>${user}</UserId>`,
    '    </LogonTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    `      <UserId>${user}</UserId>`,
    '      <LogonType>InteractiveToken</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <AllowHardTerminate>true</AllowHardTerminate>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>',
    '    <IdleSettings>',
    '      <StopOnIdleEnd>false</StopOnIdleEnd>',
    '      <RestartOnIdle>false</RestartOnIdle>',
    '    </IdleSettings>',
    '    <AllowStartOnDemand>true</AllowStartOnDemand>',
    '    <Enabled>true</Enabled>',
    '    <Hidden>false</Hidden>',
    '    <RunOnlyIfIdle>false</RunOnlyIfIdle>',
    '    <WakeToRun>false</WakeToRun>',
    // No time limit: the daemon runs until the person logs off or stops it.
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <Priority>7</Priority>',
    '    <RestartOnFailure>',
    '      <Interval>PT1M</Interval>',
    '      <Count>999</Count>',
    '    </RestartOnFailure>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    `      <Command>${xmlEscape(context.nodePath)}</Command>`,
    `      <Arguments>${xmlEscape(args)}</Arguments>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\r\n');
}

/** One argument for a Windows command line (CommandLineToArgvW rules). */
export function windowsQuote(word: string): string {
  if (word !== '' && !/[\s"]/u.test(word)) return word;
  return `"${word.replace(/(\\*)"/gu, '$1$1\\"').replace(/(\\+)$/u, '$1$1')}"`;
}

export function xmlEscape(text: string): string {
  return text
    .replace(/&/gu, '&amp;')
    .replace(/</gu, '&lt;')
    .replace(/>/gu, '&gt;')
    .replace(/"/gu, '&quot;')
    .replace(/'/gu, '&apos;');
}
