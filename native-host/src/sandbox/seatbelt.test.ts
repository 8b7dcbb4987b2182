import { describe, expect, it } from 'vitest';

import type { SandboxProfile } from './profile.js';
import { Seatbelt, seatbeltProfile, SANDBOX_EXEC } from './seatbelt.js';

const HOME = '/Users/u';

function profile(overrides: Partial<SandboxProfile> = {}): SandboxProfile {
  return {
    homeDir: HOME,
    writable: [`${HOME}/Projects`],
    readOnly: [`${HOME}/Projects/app/.git/hooks`, `${HOME}/Projects/app/.git/config`],
    pinned: [`${HOME}/Projects/app/.git`],
    hidden: [`${HOME}/.ssh`, `${HOME}/Library/Keychains`],
    network: 'none',
    tmpDir: '/private/var/folders/xy/nextai-tmp',
    visible: [],
    cwd: `${HOME}/Projects`,
    ...overrides,
  };
}

describe('Seatbelt profile (macOS, tested as text)', () => {
  it('is closed by default, reads everywhere but the hidden places, writes only where allowed', () => {
    const text = seatbeltProfile(profile());
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    expect(lines).toContain('(allow signal (target same-sandbox))');
    const readAll = lines.indexOf('(allow file-read*)');
    const hideRead = lines.findIndex((line) => line.startsWith('(deny file-read*'));
    // Later rules win: the denial of the hidden places comes after reading is allowed.
    expect(hideRead).toBeGreaterThan(readAll);
    expect(lines[hideRead]).toBe(`(deny file-read* (subpath "${HOME}/.ssh") (subpath "${HOME}/Library/Keychains"))`);
    const allowWrite = lines.findIndex((line) => line.startsWith('(allow file-write*'));
    expect(lines[allowWrite]).toContain(`(subpath "${HOME}/Projects")`);
    expect(lines[allowWrite]).toContain('(subpath "/private/var/folders/xy/nextai-tmp")');
    expect(lines[allowWrite]).not.toContain('"/tmp"');
    const keep = lines.findIndex((line) => line.startsWith('(deny file-write*'));
    expect(keep).toBeGreaterThan(allowWrite);
    expect(lines[keep]).toContain(`(subpath "${HOME}/Projects/app/.git/hooks")`);
    expect(lines[keep]).toContain(`(subpath "${HOME}/.ssh")`);
    expect(lines).toContain(
      `(deny file-write-unlink file-write-mode file-write-owner (literal "${HOME}/Projects/app/.git"))`,
    );
  });

  it('allows the network only when the profile has it', () => {
    expect(seatbeltProfile(profile())).not.toMatch(/network/);
    expect(seatbeltProfile(profile({ network: 'full' }))).toContain('(allow network*)');
  });

  it('quotes paths so that a quote or backslash in a folder name cannot end the string', () => {
    const text = seatbeltProfile(profile({ writable: [`${HOME}/we"ird\\name`] }));
    expect(text).toContain(`(subpath "${HOME}/we\\"ird\\\\name")`);
  });

  it('runs the command through /usr/bin/sandbox-exec with the profile, TMPDIR the private folder', () => {
    const sandbox = new Seatbelt(process.execPath);
    const prepared = sandbox.prepare(['/bin/zsh', '-c', 'ls'], profile(), { PATH: '/usr/bin', SSH_AUTH_SOCK: '/x' });
    expect(prepared.file).toBe(process.execPath);
    expect(prepared.args[0]).toBe('-p');
    expect(prepared.args[1]).toBe(seatbeltProfile(profile()));
    expect(prepared.args.slice(2)).toEqual(['--', '/bin/zsh', '-c', 'ls']);
    expect(prepared.env).toMatchObject({ PATH: '/usr/bin', TMPDIR: '/private/var/folders/xy/nextai-tmp/' });
    expect(prepared.env.SSH_AUTH_SOCK).toBeUndefined();
    expect(SANDBOX_EXEC).toBe('/usr/bin/sandbox-exec');
  });

  it('refuses to prepare anything when sandbox-exec is missing: nothing runs unconfined instead', () => {
    const sandbox = new Seatbelt('/nonexistent/sandbox-exec');
    expect(sandbox.status()).toMatchObject({ available: false, mechanism: 'seatbelt' });
    expect(() => sandbox.prepare(['/bin/ls'], profile(), {})).toThrow(/sandbox cannot start.*Nothing was run/);
  });
});
