import fs from 'node:fs';
import path from 'node:path';

/** One process as /proc/<pid>/status tells it. */
export interface ProcessEntry {
  pid: number;
  parent: number;
  name: string;
  /** Its pid in the innermost PID namespace it is in (the same as `pid` outside any sandbox). */
  innerPid: number;
}

/** Every process, read from /proc, and their children; processes that end meanwhile are skipped. */
export function processTree(procRoot = '/proc'): {
  entries: Map<number, ProcessEntry>;
  children: Map<number, number[]>;
} {
  const entries = new Map<number, ProcessEntry>();
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = fs.readdirSync(procRoot);
  } catch {
    return { entries, children };
  }
  for (const entry of names) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = fs.readFileSync(path.join(procRoot, entry, 'status'), 'utf8');
    } catch {
      continue; // It ended while we looked.
    }
    const pid = Number(entry);
    const parent = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? -1);
    const name = /^Name:\s*(.*)$/m.exec(status)?.[1] ?? '';
    const nested = /^NSpid:\s*([\d\t ]+)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [pid];
    entries.set(pid, { pid, parent, name, innerPid: nested.at(-1) ?? pid });
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  return { entries, children };
}

/** The first process below `pid`, breadth first, that `wanted` accepts. */
export function findDescendant(
  pid: number,
  wanted: (entry: ProcessEntry) => boolean,
  procRoot = '/proc',
): ProcessEntry | undefined {
  const { entries, children } = processTree(procRoot);
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = entries.get(pending.shift() as number);
    if (!next) continue;
    if (wanted(next)) return next;
    pending.push(...(children.get(next.pid) ?? []));
  }
  return undefined;
}
