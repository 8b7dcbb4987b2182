import fs from 'node:fs';
import path from 'node:path';

/**
 * A sandboxed process has its own PID namespace: what it says its pid is (an X window's
 * `_NET_WM_PID`) is a number inside the sandbox, and outside it names some other process. Apps
 * the sandbox starts get a host name of their own (`nextai-sandbox-<tag>`, which X clients put in
 * `WM_CLIENT_MACHINE`), so their windows' pids can be turned back into the pids they really have.
 */
export const SANDBOX_HOST_PREFIX = 'nextai-sandbox-';

/** The host pid of the process that is `innerPid` inside the sandbox started as `launcherPid`. */
export function hostPidInSandbox(launcherPid: number, innerPid: number, procRoot = '/proc'): number | undefined {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = fs.readdirSync(procRoot);
  } catch {
    return undefined;
  }
  const innerOf = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = fs.readFileSync(path.join(procRoot, entry, 'status'), 'utf8');
    } catch {
      continue; // It ended while we looked.
    }
    const pid = Number(entry);
    const parent = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? -1);
    const nested = /^NSpid:\s*([\d\s]+)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
    if (nested.length > 1) innerOf.set(pid, nested.at(-1) as number);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const pending = [...(children.get(launcherPid) ?? [])];
  while (pending.length > 0) {
    const pid = pending.shift() as number;
    if (innerOf.get(pid) === innerPid) return pid;
    pending.push(...(children.get(pid) ?? []));
  }
  return undefined;
}
