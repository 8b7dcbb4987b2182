import { findDescendant } from './process-tree.js';

/**
 * A sandboxed process has its own PID namespace: what it says its pid is (an X window's
 * `_NET_WM_PID`) is a number inside the sandbox, and outside it names some other process. Apps
 * the sandbox starts get a host name of their own (`nextai-sandbox-<tag>`, which X clients put in
 * `WM_CLIENT_MACHINE`), so their windows' pids can be turned back into the pids they really have.
 */
export const SANDBOX_HOST_PREFIX = 'nextai-sandbox-';

/** The host pid of the process that is `innerPid` inside the sandbox started as `launcherPid`. */
export function hostPidInSandbox(launcherPid: number, innerPid: number, procRoot = '/proc'): number | undefined {
  return findDescendant(launcherPid, (entry) => entry.innerPid === innerPid && entry.pid !== innerPid, procRoot)?.pid;
}
