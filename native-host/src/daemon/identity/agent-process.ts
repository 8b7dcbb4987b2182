import fs from 'node:fs';

import { AGENT_PROCESS_ENV } from '@nextai/shared';

import type { PeerLookup } from './peer-process.js';

/**
 * What the daemon concluded about a connection's process when it connected. Judged once, then:
 * the process may exit and its pid be reused (even by a thread of the daemon) long before the
 * connection asks for anything.
 */
export type ProcessVerdict =
  { known: true; pid: number; agent?: string | undefined } | { known: false; reason: string };

export function judgeProcess(peer: PeerLookup, daemonPid: number, facts: ProcessFacts): ProcessVerdict {
  if (!peer.ok) return { known: false, reason: peer.reason };
  const agent = agentProcessReason(peer.peer.pid, daemonPid, facts);
  return { known: true, pid: peer.peer.pid, ...(agent ? { agent } : {}) };
}

/** What the check needs to know of a process (from /proc on Linux; faked in tests). */
export interface ProcessFacts {
  /** The parent of `pid`, or undefined when the process is gone or unreadable. */
  parentOf(pid: number): number | undefined;
  /** An identifier of the PID namespace `pid` lives in, or undefined when unknown. */
  pidNamespaceOf(pid: number): string | undefined;
  /** Whether the environment `pid` started with carries the agent's mark. */
  markedAsAgent?(pid: number): boolean;
}

/**
 * macOS has no /proc: one `ps` listing gives every parent (the PID namespace check does not apply;
 * Seatbelt keeps the sandbox's processes from the socket instead).
 */
export function psFacts(listing: string): ProcessFacts {
  const parents = new Map<number, number>();
  for (const line of listing.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (match) parents.set(Number(match[1]), Number(match[2]));
  }
  return { parentOf: (pid) => parents.get(pid), pidNamespaceOf: () => undefined };
}

export const procFacts = (procRoot = '/proc'): ProcessFacts => ({
  parentOf(pid) {
    try {
      const status = fs.readFileSync(`${procRoot}/${pid}/status`, 'utf8');
      const parent = /^PPid:\s*(\d+)/m.exec(status)?.[1];
      return parent === undefined ? undefined : Number(parent);
    } catch {
      return undefined; // gone while we looked, or not ours to read
    }
  },
  pidNamespaceOf(pid) {
    try {
      return fs.readlinkSync(`${procRoot}/${pid}/ns/pid`);
    } catch {
      return undefined;
    }
  },
  markedAsAgent(pid) {
    try {
      return fs
        .readFileSync(`${procRoot}/${pid}/environ`, 'latin1')
        .split('\0')
        .some((entry) => entry.startsWith(`${AGENT_PROCESS_ENV}=`));
    } catch {
      return false;
    }
  },
});

/** Far more than any real process tree is deep; a loop in the facts cannot hang the check. */
const MAX_DEPTH = 4096;

/**
 * Why the process `pid` is the agent's, or undefined when it is not: every process the daemon
 * starts (shells, terminals, launched apps, plugins, their children) descends from the daemon, and
 * everything that runs in the agent's sandbox is in a PID namespace of its own, from which no
 * process can leave. A process that detached from the tree keeps the mark in its environment.
 * What escapes all three — a detached process that also cleared its environment — can only come
 * from a command the person let run outside the sandbox (the analyser judges those first).
 */
export function agentProcessReason(pid: number, daemonPid: number, facts: ProcessFacts): string | undefined {
  const own = facts.pidNamespaceOf(daemonPid);
  const theirs = facts.pidNamespaceOf(pid);
  if (own !== undefined && theirs !== undefined && own !== theirs) {
    return `process ${pid} runs inside the agent's sandbox`;
  }
  let current = pid;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (current === daemonPid) {
      return pid === daemonPid ? 'the call comes from the daemon itself' : `process ${pid} was started by the agent`;
    }
    const parent = facts.parentOf(current);
    // The caller itself holds the connection open, so it exists: a parent nobody can read is a
    // process hidden from the daemon, not a person's.
    if (parent === undefined && current === pid) return `the parent of process ${pid} cannot be read`;
    if (parent === undefined || parent <= 0 || parent === current) break;
    current = parent;
    if (depth === MAX_DEPTH - 1) return `process ${pid} has a process tree too deep to check`;
  }
  // A process that left the daemon's tree (a detached, orphaned background job) keeps the mark.
  if (facts.markedAsAgent?.(pid)) return `process ${pid} carries the mark of a process the agent started`;
  return undefined;
}
