import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { z } from 'zod';

import { ALL_PLATFORMS, defineTool, getTool, securityConfigSchema, type AnyTool, type Platform } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { currentPlatform } from '../core/current-platform.js';
import { createFakeDesktop } from '../platform/fake-desktop.js';
import { createHostHandlers } from '../tools/host-handlers.js';
import { callTool, testContext, testServices } from '../tools/test-support.js';
import { assessEnvFactory } from './assess-env.js';
import { assessInput, type AssessEnv, type Assessment } from './assess.js';
import { initShellAnalyzer } from './shell/index.js';

/**
 * assessInput with the real guards and shell analyser (assess-env.ts), in a throw-away home
 * folder: where a command is judged, which shells are known, and where a deletion lands.
 */

let root: string;
let home: string;

beforeAll(async () => {
  await initShellAnalyzer();
  root = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-assess-')));
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, 'Projects'), { recursive: true });
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const tool = (name: string) => getTool(name) as AnyTool;

function environment(
  options: { shellCwd?: AssessEnv['shellCwd']; platform?: Platform; homeDir?: string } = {},
): AssessEnv {
  const factory = assessEnvFactory(options.platform ?? 'linux', options.homeDir ?? home, [], options.shellCwd);
  return factory(securityConfigSchema.parse({}));
}

const blocked = (assessment: Assessment) => assessment.guards.some((guard) => guard.block);

describe('bash_execute is judged where its session is', () => {
  const run = (input: Record<string, unknown>, shellCwd?: AssessEnv['shellCwd']) =>
    assessInput(tool('bash_execute'), input, environment({ shellCwd }));

  it('takes relative paths from the session’s current directory', () => {
    const inEtc = run({ command: 'rm passwd' }, () => '/etc');
    expect(inEtc.analysis.risk).toBe('critical');
    expect(inEtc.analysis.findings.map((finding) => finding.en).join('\n')).toContain('/etc/passwd');

    const inHome = run({ command: 'rm passwd' }, () => home);
    expect(inHome.analysis.risk).not.toBe('critical');
    expect(inHome.analysis.findings.join('\n')).not.toContain('/etc/passwd');
  });

  it('uses the home folder when the session does not exist yet', () => {
    const fresh = run({ command: 'rm passwd' }, () => undefined);
    expect(fresh.analysis.risk).not.toBe('critical');
    expect(run({ command: 'rm passwd' }).analysis.risk).not.toBe('critical');
  });

  it('asks about the session the call names, and the default session when none is named', () => {
    const asked: (string | undefined)[] = [];
    const shellCwd = (id: string | undefined) => {
      asked.push(id);
      return id === 'admin' ? '/etc' : home;
    };
    expect(run({ command: 'rm passwd', session_id: 'admin' }, shellCwd).analysis.risk).toBe('critical');
    expect(run({ command: 'rm passwd' }, shellCwd).analysis.risk).not.toBe('critical');
    expect(asked).toEqual(['admin', undefined]);
  });

  it('resolves a relative working_dir against the session’s directory', () => {
    const relative = run({ command: 'rm passwd', working_dir: 'etc' }, () => '/');
    expect(relative.analysis.risk).toBe('critical');
    expect(relative.analysis.findings.map((finding) => finding.en).join('\n')).toContain('/etc/passwd');

    const fromHome = run({ command: 'rm passwd', working_dir: 'Projects' }, () => '/');
    expect(fromHome.analysis.risk).not.toBe('critical');
  });

  it('lets an absolute working_dir win over the session’s directory', () => {
    expect(run({ command: 'rm passwd', working_dir: '/etc' }, () => home).analysis.risk).toBe('critical');
    expect(run({ command: 'rm passwd', working_dir: home }, () => '/etc').analysis.risk).not.toBe('critical');
  });

  it('does not take a working_dir that is not a path as a directory', () => {
    const assessment = run({ command: 'ls', working_dir: '~other/x' }, () => home);
    expect(assessment.analysis.risk === 'critical' || assessment.guards.some((g) => g.risk === 'critical')).toBe(true);
  });
});

describe.skipIf(currentPlatform() !== 'linux')('the daemon’s wiring to the real terminal', () => {
  it('judges the next command in the directory an earlier `cd` left the session in', async () => {
    const services = testServices(createFakeDesktop().desktop);
    const tools = createHostHandlers(services);
    try {
      // Reading it starts nothing: there is no default session before the first command.
      expect(tools.terminalCwd(undefined)).toBeUndefined();
      const env = assessEnvFactory('linux', services.homeDir, [], (id) => tools.terminalCwd(id))(
        securityConfigSchema.parse({}),
      );
      expect(assessInput(tool('bash_execute'), { command: 'rm passwd' }, env).analysis.risk).not.toBe('critical');

      await callTool('bash_execute', tools.handlers.bash_execute, { command: 'cd /etc' }, testContext());
      expect(tools.terminalCwd(undefined)).toBe('/etc');
      expect(tools.terminalCwd('no-such-session')).toBeUndefined();
      const assessment = assessInput(tool('bash_execute'), { command: 'rm passwd' }, env);
      expect(assessment.analysis.risk).toBe('critical');
      expect(assessment.analysis.findings.map((finding) => finding.en).join('\n')).toContain('/etc/passwd');
    } finally {
      await tools.dispose();
    }
    expect(tools.terminalCwd(undefined)).toBeUndefined();
  });
});

describe('bash_session create knows the shells the terminal runs', () => {
  const create = (shell: string, platform: Platform) =>
    assessInput(
      tool('bash_session'),
      { action: 'create', shell },
      environment({ platform, homeDir: platform === 'windows' ? 'C:\\Users\\me' : home }),
    ).analysis.risk;

  it('does not raise PowerShell on Windows', () => {
    for (const shell of ['powershell', 'pwsh', 'bash', 'PowerShell', ' pwsh ']) {
      expect(create(shell, 'windows'), shell).not.toBe('critical');
    }
  });

  it('does not raise the POSIX shells', () => {
    for (const shell of ['bash', 'sh', 'dash']) {
      expect(create(shell, 'linux'), shell).not.toBe('critical');
      expect(create(shell, 'macos'), shell).not.toBe('critical');
    }
  });

  it('raises a shell the terminal would not run to critical', () => {
    for (const shell of ['evil', '/tmp/x/bash', 'python3', 'cmd']) {
      expect(create(shell, 'linux'), shell).toBe('critical');
      expect(create(shell, 'windows'), shell).toBe('critical');
    }
    expect(create('powershell', 'linux')).toBe('critical');
    expect(create('dash', 'windows')).toBe('critical');
    // The terminal refuses these on POSIX (shells.ts), so starting one is not a known shell either.
    expect(create('zsh', 'linux')).toBe('critical');
    expect(create('fish', 'linux')).toBe('critical');
  });
});

describe('delete_file judges a symlink where it is, not where it points', () => {
  const at = (...parts: string[]) => path.join(root, ...parts);
  const inHome = (...parts: string[]) => path.join(home, ...parts);
  const link = (target: string, location: string) => {
    fs.mkdirSync(path.dirname(location), { recursive: true });
    fs.symlinkSync(target, location);
  };

  beforeAll(() => {
    fs.mkdirSync(at('outside'), { recursive: true });
    fs.writeFileSync(at('outside/secret.txt'), 'x');
    fs.writeFileSync(inHome('Projects/key'), 'x');
    fs.mkdirSync(inHome('.ssh'), { recursive: true });
    // A link in a denied place pointing into an allowed folder, reached through an allowed path.
    link(inHome('Projects/key'), inHome('.ssh/id_rsa'));
    link(inHome('.ssh'), inHome('Projects/link-ssh'));
    // A link outside the allowed folders pointing into one.
    link(inHome('Projects/key'), at('outside/link-in'));
    // A link in an allowed folder pointing outside, to a file and to a folder.
    link(at('outside/secret.txt'), inHome('Projects/link-out'));
    link(at('outside'), inHome('Projects/link-dir-out'));
    link(at('outside/missing.txt'), inHome('Projects/dangling-out'));
  });

  const assess = (name: string, input: Record<string, unknown>) => assessInput(tool(name), input, environment());

  it('refuses a link in a denied place, however it is reached, though its target is allowed', () => {
    for (const target of ['~/.ssh/id_rsa', '~/Projects/link-ssh/id_rsa']) {
      const assessment = assess('delete_file', { path: target });
      expect(blocked(assessment), target).toBe(true);
      expect(assessment.guards.map((guard) => guard.reason.en).join('\n')).toMatch(/denied pattern/);
    }
  });

  it('refuses a link outside the allowed folders, though its target is inside', () => {
    const assessment = assess('delete_file', { path: at('outside/link-in') });
    expect(blocked(assessment)).toBe(true);
    expect(assessment.guards[0]?.reason.en).toMatch(/outside the folders NextAI may use/);
  });

  it('lets a link in an allowed folder be deleted wherever it points', () => {
    for (const target of ['~/Projects/link-out', '~/Projects/link-dir-out', '~/Projects/dangling-out']) {
      expect(assess('delete_file', { path: target }).guards, target).toEqual([]);
    }
  });

  it('still follows symlinked folders on the way', () => {
    expect(blocked(assess('delete_file', { path: '~/Projects/link-dir-out/secret.txt' }))).toBe(true);
  });

  it('keeps judging writes at the link’s target, where the content lands', () => {
    expect(blocked(assess('file_write', { path: '~/Projects/link-out', content: 'x' }))).toBe(true);
    expect(blocked(assess('file_edit', { path: '~/Projects/link-out', old_string: 'x', new_string: 'y' }))).toBe(true);
    expect(assess('file_write', { path: at('outside/link-in'), content: 'x' }).guards).toEqual([]);
  });
});

describe('a tool is judged by what its declaration says it touches', () => {
  // A tool the assessor has never heard of: no line of assess.ts names it.
  const future = defineTool({
    name: 'future_sync',
    title: 'Sync a folder to a site',
    titleZh: '把文件夹同步到网站',
    description: 'A tool declared only here, to show that its declared resources reach the guards.',
    category: 'files',
    risk: 'medium',
    effect: 'write',
    level: 'L3',
    platforms: ALL_PLATFORMS,
    runsIn: 'host',
    input: z.object({ folder: z.string(), site: z.string(), app: z.string(), command: z.string() }).strict(),
    output: z.object({ success: z.boolean() }),
    outputFrom: 'trusted',
    resources: (input) => ({
      files: [{ path: input.folder, access: 'write', verb: 'writes' }],
      urls: [input.site],
      apps: [input.app],
      runs: { kind: 'command', command: input.command, ask: {} },
    }),
  });
  const layers = (input: Record<string, unknown>) =>
    assessInput(future, input, environment()).guards.map((guard) => guard.layer);
  const harmless = { folder: '~/Projects/site', site: 'https://example.com', app: 'gedit', command: 'ls' };

  it('puts its paths, addresses and apps before the guards', () => {
    expect(layers(harmless)).toEqual([]);
    expect(layers({ ...harmless, folder: '~/.ssh/keys' })).toEqual(['filesystem']);
    expect(layers({ ...harmless, site: 'https://www.bank.com/' })).toEqual(['network']);
    expect(layers({ ...harmless, app: 'KeePassXC' })).toEqual(['blocked_app']);
  });

  it('analyses the command line it runs', () => {
    const assessment = assessInput(future, { ...harmless, command: 'rm -rf ~' }, environment());
    expect(assessment.analysis.risk).toBe('critical');
  });
});

describe('a screenshot of a window is checked against the blocked apps, whatever the mode says', () => {
  it('the default mode with a window title captures that window: a blocked app is refused', () => {
    const env = assessEnvFactory('linux', home, [])(securityConfigSchema.parse({ blocked_apps: ['KeePassXC'] }));
    for (const input of [{ window_title: 'KeePassXC' }, { mode: 'window', window_title: 'KeePassXC' }]) {
      expect(blocked(assessInput(tool('screenshot'), input, env)), JSON.stringify(input)).toBe(true);
    }
    expect(blocked(assessInput(tool('screenshot'), { window_title: 'Text Editor' }, env))).toBe(false);
  });
});
