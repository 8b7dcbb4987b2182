import { execFile, spawn, type ChildProcess } from 'node:child_process';

import { CLI_BUNDLE } from './paths.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `nextai <args>` from the built bundle and collects its output and exit code. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI_BUNDLE, ...args], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Starts `nextai <args>` and lets the test watch its output while it runs. */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI_BUNDLE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }), exited: exitOf(child) };
}

/** Starts `nextai daemon` in the foreground as a child of the test. */
export function spawnDaemon(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [CLI_BUNDLE, 'daemon'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
