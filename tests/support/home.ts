import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CLI_BUNDLE } from './paths.js';

export interface TestHome {
  /** A fresh NEXTAI_HOME. */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Stops any daemon of this home (politely, then by force) and deletes the directory. */
  cleanup(): Promise<void>;
}

/**
 * A temporary data directory. Kept short (under /tmp) because a Unix socket path must fit in
 * about 104 bytes.
 */
export function makeHome(prefix = 'nx-'): TestHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const env = { ...process.env, NEXTAI_HOME: dir, NEXTAI_LOG_LEVEL: 'debug' };
  return {
    dir,
    env,
    cleanup: async () => {
      await stopDaemonOf(dir, env);
      reportDaemonBugs(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the daemon's log says ended it or went unhandled (process-guards.ts), or nothing. */
export function daemonBugs(dir: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'logs', 'daemon.log'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) =>
      /an exception nothing caught ends the daemon|a promise was rejected and nothing handled it/.test(line),
    )
    .map((line) => line.slice(0, 4000));
}

/**
 * Prints the daemon's own account of a bug before its home goes: in CI the log goes with the
 * temporary directory, and a test that saw "the daemon closed the connection" says nothing of why.
 */
function reportDaemonBugs(dir: string): void {
  const bugs = daemonBugs(dir);
  if (bugs.length > 0) console.error(`The daemon of ${dir} logged a bug:\n${bugs.join('\n')}`);
}

export async function stopDaemonOf(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  await new Promise<void>((resolve) => {
    // --now: a test's leftovers (a hanging tool call) are not waited for.
    execFile(process.execPath, [CLI_BUNDLE, 'daemon', 'stop', '--now'], { env, timeout: 10_000 }, () => resolve());
  });
  const pid = readPid(path.join(dir, 'run', 'daemon.pid'));
  if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
}

export function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process runs. A detached daemon that exited stays a zombie until its parent reaps
 * it, and in containers that parent (pid 1) may never do so: a zombie counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Pids of `nextai daemon` processes (alive, not zombies) whose NEXTAI_HOME is `dir`. */
export function daemonPidsOf(dir: string): string[] {
  return nextaiProcessesOf(dir, 'daemon');
}

/** Pids of live `nextai <role>` processes started with NEXTAI_HOME=`dir`, read from /proc. */
export function nextaiProcessesOf(dir: string, role: 'daemon' | 'host'): string[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
        return (
          cmdline.includes(`nextai.js\0${role}`) && environ.includes(`NEXTAI_HOME=${dir}\0`) && isAlive(Number(pid))
        );
      } catch {
        // The process ended while we looked.
        return false;
      }
    });
}
