import { Command, CommanderError } from 'commander';

import { AppError, VERSION, toAppError } from '@nextai/shared';

import { registerApprovalsCommand } from './command-approvals.js';
import { registerAuditCommand } from './command-audit.js';
import { registerConfigCommand } from './command-config.js';
import { registerDaemonCommand } from './command-daemon.js';
import { registerDoctorCommand } from './command-doctor.js';
import { registerHostCommand } from './command-host.js';
import { registerInstallCommands } from './command-install.js';
import { registerPolicyCommand } from './command-policy.js';
import { registerRunCommand } from './command-run.js';
import { registerRunsCommand } from './command-runs.js';
import { registerScheduleCommand } from './command-schedule.js';
import { registerSessionsCommand } from './command-sessions.js';
import { registerStatusCommand } from './command-status.js';
import { registerStopCommand } from './command-stop.js';
import { registerToolCommand } from './command-tool.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor } from './output.js';

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('nextai')
    .description('NextAI Agent: a local AI agent for your own computer.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run `nextai --help` for usage)')
    .exitOverride();

  let exitCode: number = EXIT.OK;
  const setExitCode = (code: number) => {
    exitCode = code;
  };
  registerDaemonCommand(program, setExitCode);
  registerHostCommand(program, setExitCode);
  registerInstallCommands(program, setExitCode);
  registerStatusCommand(program, setExitCode);
  registerToolCommand(program, setExitCode);
  registerRunCommand(program, setExitCode);
  registerRunsCommand(program, setExitCode);
  registerSessionsCommand(program);
  registerScheduleCommand(program);
  registerPolicyCommand(program);
  registerConfigCommand(program);
  registerApprovalsCommand(program);
  registerAuditCommand(program, setExitCode);
  registerStopCommand(program);
  registerDoctorCommand(program, setExitCode);

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    const appError = toAppError(error);
    process.stderr.write(`nextai: ${appError.message}\n`);
    return error instanceof AppError ? exitCodeFor(appError) : EXIT.FAILURE;
  }
}
