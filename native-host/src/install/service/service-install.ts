import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import { runCommand } from '../../core/subprocess.js';
import type { ServiceCommand, ServicePlan } from './service-units.js';

export type CommandRunner = (command: string, args: string[]) => Promise<void>;

export interface ServiceReport {
  dryRun: boolean;
  action: 'install' | 'uninstall';
  file: string;
  /** The unit file's content (install). */
  content?: string;
  commands: { command: string; ok: boolean; error?: string }[];
  /** What to know next (how to run without being logged in, where logs go). */
  notes: string[];
  removed?: boolean;
}

const defaultRunner: CommandRunner = async (command, args) => {
  await runCommand(command, args, { timeoutMs: 30_000 });
};

/** Writes the unit file and registers it (or, with `dryRun`, only says what it would do). */
export async function installService(
  plan: ServicePlan,
  options: { dryRun: boolean; run?: CommandRunner },
): Promise<ServiceReport> {
  const report: ServiceReport = {
    dryRun: options.dryRun,
    action: 'install',
    file: plan.file,
    content: plan.content,
    commands: [],
    notes: notesFor(plan),
  };
  if (options.dryRun) {
    report.commands = plan.register.map((command) => ({ command: display(command), ok: true }));
    return report;
  }
  const pathApi = plan.platform === 'windows' ? path.win32 : path.posix;
  try {
    fs.mkdirSync(pathApi.dirname(plan.file), { recursive: true });
    const bytes =
      plan.encoding === 'utf16le'
        ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plan.content, 'utf16le')])
        : plan.content;
    fs.writeFileSync(plan.file, bytes, { mode: 0o644 });
  } catch (error) {
    throw new AppError('NOT_WRITABLE', `Could not write ${plan.file}: ${(error as Error).message}`, { cause: error });
  }
  report.commands = await runAll(plan.register, options.run ?? defaultRunner);
  return report;
}

/** Unregisters the service and removes its file; what is already gone is fine. */
export async function uninstallService(
  plan: ServicePlan,
  options: { dryRun: boolean; run?: CommandRunner },
): Promise<ServiceReport> {
  const report: ServiceReport = {
    dryRun: options.dryRun,
    action: 'uninstall',
    file: plan.file,
    commands: [],
    notes: [],
  };
  if (options.dryRun) {
    report.commands = plan.unregister.map((command) => ({ command: display(command), ok: true }));
    report.removed = fs.existsSync(plan.file);
    return report;
  }
  report.commands = await runAll(plan.unregister, options.run ?? defaultRunner);
  report.removed = fs.existsSync(plan.file);
  fs.rmSync(plan.file, { force: true });
  return report;
}

async function runAll(commands: readonly ServiceCommand[], run: CommandRunner) {
  const results: ServiceReport['commands'] = [];
  for (const command of commands) {
    try {
      await run(command.command, command.args);
      results.push({ command: display(command), ok: true });
    } catch (error) {
      const message = (error as Error).message;
      results.push({ command: display(command), ok: false, error: message });
      if (!command.mayFail) {
        throw new AppError(
          'TOOL_FAILED',
          `\`${display(command)}\` failed: ${message}. The unit file is in place; fix the problem and run \`nextai install --service\` again.`,
          { cause: error, details: { results } },
        );
      }
    }
  }
  return results;
}

function notesFor(plan: ServicePlan): string[] {
  switch (plan.platform) {
    case 'linux':
      return [
        'The daemon starts at login and is restarted if it dies (after 5 s, 15 s, then 60 s).',
        'To keep it running while you are logged out too: loginctl enable-linger "$USER"',
        `Its log: journalctl --user -u ${plan.name}`,
      ];
    case 'macos':
      return ['The daemon starts at login and is restarted if it dies (after 5 s, 15 s, then 60 s).'];
    case 'windows':
      return [
        'The daemon starts at logon and is restarted if it dies (Task Scheduler waits at least a minute before a restart).',
      ];
  }
}

export function display(command: ServiceCommand): string {
  return [command.command, ...command.args]
    .map((word) => (/[\s"']/u.test(word) ? JSON.stringify(word) : word))
    .join(' ');
}
