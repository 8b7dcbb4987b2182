import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Command, CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { registerInstallCommands } from '../cli/command-install.js';
import { EXIT } from '../cli/exit-codes.js';

/** The `install` / `uninstall` commands as `nextai` wires them, with HOME and NEXTAI_HOME in a temp dir. */
describe('nextai install / uninstall commands', () => {
  let root: string;
  let stdout: string;
  let stderr: string;
  let exitCodes: number[];

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-install-cli-'));
    vi.stubEnv('HOME', path.join(root, 'home'));
    vi.stubEnv('NEXTAI_HOME', path.join(root, 'data'));
    stdout = '';
    stderr = '';
    exitCodes = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      stdout += String(chunk);
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr += String(chunk);
      return true;
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function run(...argv: string[]): Promise<void> {
    const program = new Command('nextai').exitOverride();
    program.configureOutput({ writeErr: (text) => (stderr += text), writeOut: (text) => (stdout += text) });
    registerInstallCommands(program, (code) => exitCodes.push(code));
    await program.parseAsync(argv, { from: 'user' });
  }

  it('uninstall without a record says there is nothing to uninstall and succeeds', async () => {
    await run('uninstall');
    expect(stdout).toBe(
      `nothing to uninstall: there is no install record at ${path.join(root, 'data', 'install-record.json')}, ` +
        'so nextai has installed nothing for this data directory\n',
    );
    expect(exitCodes).toEqual([]);
  });

  it('uninstall --json prints the report as JSON', async () => {
    await run('uninstall', '--json');
    expect(JSON.parse(stdout)).toMatchObject({ command: 'uninstall', dryRun: false, actions: [], failures: [] });
  });

  it('install --browser firefox --user-data-dir is a usage error that writes nothing', async () => {
    await run('install', '--browser', 'firefox', '--user-data-dir', path.join(root, 'profile'));
    expect(stderr).toContain('nextai: --user-data-dir is for Chromium-family browsers');
    expect(exitCodes).toEqual([EXIT.USAGE]);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('rejects a browser it does not know', async () => {
    await expect(run('install', '--browser', 'safari')).rejects.toBeInstanceOf(CommanderError);
    expect(stderr).toContain('Allowed choices are chrome, chromium, edge, brave, firefox, all');
  });
});
