import os from 'node:os';
import path from 'node:path';

import { Option, type Command } from 'commander';

import { AppError, NATIVE_HOST_NAME } from '@nextai/shared';

import { cliProgramPath } from '../client/self-path.js';
import {
  BROWSER_CHOICES,
  formatInstallReport,
  formatUninstallReport,
  installNativeHost,
  uninstallNativeHost,
  type BrowserChoice,
} from '../install/index.js';
import { installService, uninstallService, type ServiceReport } from '../install/service/service-install.js';
import { servicePlan } from '../install/service/service-units.js';
import { dataPaths, resolveDataDir } from '../core/paths.js';
import { currentPlatform } from '../core/current-platform.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor, printError, printJson, printLine } from './output.js';

interface InstallCommandOptions {
  service?: boolean;
  browser: BrowserChoice;
  userDataDir?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function registerInstallCommands(program: Command, setExitCode: (code: number) => void): void {
  const withSharedOptions = (command: Command, texts: { browser: string; dryRun: string }) =>
    command
      .addOption(new Option('--browser <name>', texts.browser).choices(BROWSER_CHOICES).default('all'))
      .option(
        '--user-data-dir <dir>',
        'a Chromium-family profile directory (as given to the browser with --user-data-dir): ' +
          'the manifest goes into <dir>/NativeMessagingHosts',
      )
      .option('--dry-run', texts.dryRun)
      .option('--json', 'print the result as JSON')
      .option(
        '--service',
        'the daemon as an OS service instead (systemd user unit, LaunchAgent, Task Scheduler task): ' +
          'it starts at login, runs with no browser open, and is restarted if it dies',
      );

  withSharedOptions(program.command('install'), {
    browser: 'the browser to register with; "all": every one that has a profile for this user',
    dryRun: 'print each file (with its full content) and registry command it would write, and change nothing',
  })
    .description(
      `Register the native-messaging host (${NATIVE_HOST_NAME}) with your browsers, so the NextAI Agent ` +
        'extension can start it. Per user; no administrator rights needed.',
    )
    .action(async (options: InstallCommandOptions) => {
      await reportErrors('install', options, setExitCode, async () => {
        if (options.service) {
          printServiceReport(await installService(serviceContextPlan(), { dryRun: options.dryRun ?? false }), options);
          return;
        }
        const platform = currentPlatform();
        const report = await installNativeHost({
          platform,
          homeDir: os.homedir(),
          env: process.env,
          paths: dataPaths(resolveDataDir(), platform),
          cliPath: cliProgramPath(),
          nodePath: process.execPath,
          browser: options.browser,
          ...userDataDirOption(options),
          dryRun: options.dryRun ?? false,
        });
        if (options.json) printJson(report);
        else for (const line of formatInstallReport(report)) printLine(line);
      });
    });

  withSharedOptions(program.command('uninstall'), {
    browser: 'remove only what was installed for this browser; "all": for every browser',
    dryRun: 'print what it would remove, and change nothing',
  })
    .description('Remove exactly what `nextai install` wrote (as listed in its install record), and nothing else.')
    .action(async (options: InstallCommandOptions) => {
      await reportErrors('uninstall', options, setExitCode, async () => {
        if (options.service) {
          printServiceReport(
            await uninstallService(serviceContextPlan(), { dryRun: options.dryRun ?? false }),
            options,
          );
          return;
        }
        const platform = currentPlatform();
        const report = await uninstallNativeHost({
          platform,
          homeDir: os.homedir(),
          env: process.env,
          paths: dataPaths(resolveDataDir(), platform),
          browser: options.browser,
          ...userDataDirOption(options),
          dryRun: options.dryRun ?? false,
        });
        if (options.json) printJson(report);
        else for (const line of formatUninstallReport(report)) printLine(line);
        if (report.failures.length > 0) {
          if (!options.json) for (const failure of report.failures) printError(failure.message);
          setExitCode(EXIT.FAILURE);
        }
      });
    });
}

/** The service unit for this user, OS and data directory, running this node and this CLI. */
function serviceContextPlan() {
  let userName = 'user';
  try {
    userName = os.userInfo().username;
  } catch (error) {
    // No passwd entry (some containers): the Windows task names its user; elsewhere it is unused.
    process.stderr.write(`nextai: could not read the user name (${(error as Error).message}); using "user"\n`);
  }
  return servicePlan({
    platform: currentPlatform(),
    homeDir: os.homedir(),
    dataDir: resolveDataDir(),
    nodePath: process.execPath,
    cliPath: cliProgramPath(),
    userId: process.env.USERDOMAIN ? `${process.env.USERDOMAIN}\\${userName}` : userName,
    ...(typeof process.getuid === 'function' ? { uid: process.getuid() } : {}),
    ...(process.env.XDG_CONFIG_HOME ? { xdgConfigHome: process.env.XDG_CONFIG_HOME } : {}),
  });
}

function printServiceReport(report: ServiceReport, options: InstallCommandOptions): void {
  if (options.json) {
    printJson(report);
    return;
  }
  const would = report.dryRun;
  if (report.action === 'install') {
    printLine(`${would ? 'would write' : 'wrote'} ${report.file}:`);
    for (const line of (report.content ?? '').replace(/\r?\n$/u, '').split(/\r?\n/u)) printLine(line);
    printLine('');
  } else {
    printLine(
      report.removed
        ? `${would ? 'would remove' : 'removed'} ${report.file}`
        : `nothing at ${report.file} (already removed)`,
    );
  }
  for (const command of report.commands) {
    printLine(
      `${would ? 'would run' : command.ok ? 'ran' : 'failed (ignored)'} ${command.command}${command.error ? `: ${command.error}` : ''}`,
    );
  }
  for (const note of report.notes) printLine(note);
  if (would) printLine('dry run: nothing was written or registered');
}

function userDataDirOption(options: InstallCommandOptions): { userDataDir?: string } {
  return options.userDataDir === undefined ? {} : { userDataDir: path.resolve(options.userDataDir) };
}

async function reportErrors(
  command: 'install' | 'uninstall',
  options: InstallCommandOptions,
  setExitCode: (code: number) => void,
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (options.json) printJson({ command, error: { code: error.code, message: error.message } });
    printError(error.message);
    setExitCode(exitCodeFor(error));
  }
}
