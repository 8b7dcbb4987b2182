import path from 'node:path';

import { verbatim, type RiskLevel } from '@nextai/shared';
import { beforeAll, expect, it } from 'vitest';

import type { GuardVerdict, ShellGuards } from '../verdicts.js';
import { analyzeShellCommand, type ShellAnalysis } from './analyze.js';
import { initShellAnalyzer } from './parser.js';

/** The person in the tests: home /home/u, working in /home/u/project. */
export const HOME = '/home/u';
export const PROJECT = '/home/u/project';

/** Every call the fake guards received, for tests that check what was asked. */
export interface GuardCalls {
  paths: { path: string; access: 'read' | 'write'; cwd: string }[];
  urls: string[];
}

/**
 * Small stand-ins for the real guards: NextAI's own folder cannot be written, ~/.ssh and
 * ~/.aws are critical to read, evil.example (and its subdomains) is blocked.
 */
export function fakeGuards(calls?: GuardCalls): ShellGuards {
  return {
    checkPath(target, access, cwd): GuardVerdict | undefined {
      calls?.paths.push({ path: target, access, cwd });
      const resolved =
        target === '~' || target.startsWith('~/')
          ? path.posix.join(HOME, target.slice(1))
          : path.posix.resolve(cwd, target);
      if (resolved.startsWith(`${HOME}/.nextai-agent`) && access === 'write') {
        return {
          block: true,
          risk: 'critical',
          layer: 'protected_files',
          reason: verbatim("NextAI's own files cannot be changed"),
        };
      }
      if (/^\/home\/u\/\.(?:ssh|aws)(?:\/|$)/.test(resolved) && access === 'read') {
        return { block: false, risk: 'critical', layer: 'filesystem', reason: verbatim('reads credentials') };
      }
      return undefined;
    },
    checkUrl(url): GuardVerdict | undefined {
      calls?.urls.push(url);
      const host = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url)?.[1]?.toLowerCase();
      if (host === 'evil.example' || host?.endsWith('.evil.example')) {
        return {
          block: true,
          risk: 'critical',
          layer: 'network',
          reason: verbatim('evil.example is a blocked domain'),
        };
      }
      return undefined;
    },
  };
}

/**
 * Analyses with a deadline far beyond any real run, so that a loaded test machine can neither
 * fail a benign command nor pass a dangerous one by timing out (the deadline has its own tests).
 */
export function analyze(command: string, cwd = PROJECT): ShellAnalysis {
  return analyzeShellCommand(command, fakeGuards(), { cwd, homeDir: HOME, timeoutMs: 10_000 });
}

/** Loads the bash grammar before the tests of the file that calls it (each test file has its own module state). */
export function useShellAnalyzer(): void {
  beforeAll(async () => {
    await initShellAnalyzer();
  });
}

/** One test per row: the command, analysed with the fake guards, is rated exactly this risk. */
export function expectLevels(table: [string, RiskLevel][]): void {
  it.each(table)('%j is %s', (command, level) => {
    const result = analyze(command);
    expect(result.risk, JSON.stringify(result.findings)).toBe(level);
  });
}

/** The English reasons of the findings, to match against. */
export function reasons(command: string): string[] {
  return analyze(command).findings.map((finding) => finding.reason.en);
}
