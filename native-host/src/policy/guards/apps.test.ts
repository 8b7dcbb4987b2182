import { securityConfigSchema } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { AppGuard, appSegments } from './apps.js';

const guard = new AppGuard(securityConfigSchema.parse({}));

/** [app name, path or window title, blocked] under the default blocked_apps. */
const TABLE: [string, boolean][] = [
  // Names, paths and executables.
  ['Keychain Access', true],
  ['keychain access', true],
  ['KEYCHAIN ACCESS', true],
  ['Keychain-Access', true],
  ['1Password', true],
  ['1Password 7', true],
  ['1Password for Safari', true],
  ['/Applications/1Password.app', true],
  ['/Applications/1Password.app/', true],
  ['/Applications/Utilities/Keychain Access.app', true],
  ['/System/Applications/Passwords.app', true],
  ['keepassxc', true],
  ['KeePassXC.exe', true],
  ['C:\\Program Files\\KeePassXC\\KeePassXC.exe', true],
  ['/usr/bin/keepassxc', true],
  ['org.keepassxc.KeePassXC', true],
  ['com.bitwarden.desktop', true],
  ['bitwarden.desktop', true],
  ['Bitwarden.AppImage', true],
  ['LastPass', true],
  ['seahorse', true],
  ['Passwords', true],
  ['钥匙串访问', true],
  ['密码', true],
  // Window titles.
  ['Keychain Access — login', true],
  ['login – Keychain Access', true],
  ['Passwords.kdbx - KeePassXC', true],
  ['Vault • 1Password', true],
  ['My Vault | Bitwarden', true],
  ['LastPass: Free Password Manager - Chrome Web Store', true],
  ['Passwords — Wi-Fi', true],
  ['Passwords and Keys', true],
  ['钥匙串访问 — 登录', true],
  // The rule errs on the blocking side: a document whose name begins with the app's name counts.
  ['keepassxc-browser-notes.txt - Notes', true],
  // Not these apps.
  ['notes about passwords app', false],
  ['How to manage passwords - Google Chrome', false],
  ['Why I left 1Password for Bitwarden', false],
  ['Terminal', false],
  ['Visual Studio Code', false],
  ['Keychain', false],
  ['Access', false],
  ['Password', false],
  ['KeePass', false],
  ['1Passwords', false],
  ['/Applications/Safari.app', false],
  ['Firefox', false],
  ['修改密码 - 设置', false],
  ['', false],
  ['   ', false],
];

describe('AppGuard.check', () => {
  it.each(TABLE)('%s → blocked %s', (input, blocked) => {
    const verdict = guard.check(input);
    expect(verdict.allowed, verdict.reason?.en).toBe(!blocked);
    if (blocked) expect(verdict.reason?.en).toMatch(/security\.blocked_apps/);
  });

  it('uses the configured list', () => {
    const custom = new AppGuard(securityConfigSchema.parse({ blocked_apps: ['Signal', 'Microsoft Outlook'] }));
    expect(custom.check('Signal').allowed).toBe(false);
    expect(custom.check('Inbox - me@example.com - Microsoft Outlook').allowed).toBe(false);
    expect(custom.check('Outlook').allowed).toBe(true);
    expect(custom.check('1Password').allowed).toBe(true);
    expect(new AppGuard(securityConfigSchema.parse({ blocked_apps: [] })).check('Keychain Access').allowed).toBe(true);
  });

  it('splits titles, paths and ids into the segments an app name can begin', () => {
    expect(appSegments('Passwords.kdbx - KeePassXC')).toEqual(['Passwords.kdbx', 'KeePassXC', 'Passwords', 'kdbx']);
    expect(appSegments('/Applications/1Password.app/')).toEqual(['1Password']);
    expect(appSegments('Wi-Fi settings')).toEqual(['Wi-Fi settings']);
  });
});
