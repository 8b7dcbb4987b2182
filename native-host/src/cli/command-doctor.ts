import type { Command } from 'commander';

import { runDoctor } from '../platform/doctor.js';
import { currentPlatform } from '../core/current-platform.js';
import { EXIT } from './exit-codes.js';
import { printJson, printLine } from './output.js';

const MARK = { ok: '✓', missing: '✗', warning: '!' } as const;

export function registerDoctorCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('doctor')
    .description(
      'Check what the desktop tools need on this machine (display, helper programs, OCR data, permissions) and whether the data folder is on a local disk, and say how to fix what is missing.',
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const checks = await runDoctor(currentPlatform(), process.env);
      const missing = checks.filter((check) => check.status === 'missing');
      if (options.json) {
        printJson(checks);
      } else {
        for (const check of checks) {
          printLine(`${MARK[check.status]} ${check.title}: ${check.detail}`);
          if (check.fix) printLine(`    fix: ${check.fix}   (needed for ${check.needed_for})`);
        }
        printLine(
          missing.length === 0
            ? 'Everything the desktop tools need is here.'
            : `${missing.length} missing: the tools named above answer with an error until it is fixed.`,
        );
      }
      if (missing.length > 0) setExitCode(EXIT.FAILURE);
    });
}
