import { type Platform } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { comparablePath, expandHome, isPathInside, joinedPath, lexicalAbsolute } from './paths.js';
import { sensitivePathReason } from './sensitive.js';

/**
 * The pure comparison functions, for all three platforms on any host: macOS and Windows compare
 * without case, Windows also with drive letters, backslashes, `\\?\`, streams and trailing dots.
 */
describe('isPathInside', () => {
  const table: [string, string, Platform, boolean][] = [
    ['/home/me/Projects/a', '/home/me/Projects', 'linux', true],
    ['/home/me/Projects', '/home/me/Projects', 'linux', true],
    ['/home/me/Projects/', '/home/me/Projects', 'linux', true],
    ['/home/me/ProjectsX', '/home/me/Projects', 'linux', false],
    ['/home/me/projects/a', '/home/me/Projects', 'linux', false],
    ['/home/me/PROJECTS', '/home/me/Projects', 'linux', false],
    ['/anything', '/', 'linux', true],
    ['/', '/home', 'linux', false],
    ['/home/me/Cafe\u0301/x', '/home/me/Café', 'linux', false],
    ['/Users/Me/projects/a', '/Users/me/Projects', 'macos', true],
    ['/USERS/ME/PROJECTS', '/Users/me/Projects', 'macos', true],
    ['/Users/me/ProjectsX', '/Users/me/Projects', 'macos', false],
    ['/Users/me/Cafe\u0301/x', '/Users/me/Café', 'macos', true],
    ['/Users/me/Café/x', '/Users/me/Cafe\u0301', 'macos', true],
    ['/users/me/.SSH/id_rsa', '/Users/me/.ssh', 'macos', true],
    ['C:\\Users\\Me\\Projects\\a', 'c:/users/me/projects', 'windows', true],
    ['c:/users/me/projects/a/b', 'C:\\Users\\Me\\Projects', 'windows', true],
    ['C:\\Users\\Me\\Projects', 'C:\\Users\\Me\\Projects\\', 'windows', true],
    ['C:\\Users\\Me\\ProjectsX\\a', 'C:\\Users\\Me\\Projects', 'windows', false],
    ['D:\\Users\\Me\\Projects\\a', 'C:\\Users\\Me\\Projects', 'windows', false],
    ['C:\\x', 'C:\\', 'windows', true],
    ['D:\\x', 'C:\\', 'windows', false],
    ['\\\\server\\share\\a', '\\\\SERVER\\Share', 'windows', true],
    ['\\\\server\\other\\a', '\\\\server\\share', 'windows', false],
    ['\\\\?\\C:\\Users\\Me\\Projects\\x', 'C:\\Users\\Me\\Projects', 'windows', true],
    ['C:\\Users\\Me\\Projects.\\x', 'C:\\Users\\Me\\Projects', 'windows', true],
    ['C:\\Users\\Me\\Projects  \\x', 'C:\\Users\\Me\\Projects', 'windows', true],
    ['C:\\Users\\Me\\.nextai-agent:stream', 'C:\\Users\\Me\\.nextai-agent', 'windows', true],
    ['C:\\Users\\Me\\.nextai-agent\\config.json::$DATA', 'C:\\Users\\Me\\.nextai-agent\\config.json', 'windows', true],
    ['C:\\Users\\Me\\Projects', 'C:\\Users\\Me\\Projects\\a', 'windows', false],
  ];
  it.each(table)('%s inside %s on %s: %s', (child, parent, platform, expected) => {
    expect(isPathInside(child, parent, platform)).toBe(expected);
  });

  it('keeps the drive root separator', () => {
    expect(comparablePath('C:\\', 'windows')).toBe('c:\\');
    expect(comparablePath('/', 'linux')).toBe('/');
  });
});

describe('lexical resolution', () => {
  const home = { linux: '/home/me', macos: '/Users/me', windows: 'C:\\Users\\me' } as const;
  const table: [string, string, Platform, string][] = [
    ['a/../b', '/home/me/x', 'linux', '/home/me/x/b'],
    ['~', '/tmp', 'linux', '/home/me'],
    ['~/', '/tmp', 'linux', '/home/me'],
    ['~/../..', '/tmp', 'linux', '/'],
    ['//a//b/', '/tmp', 'linux', '/a/b'],
    ['../../../../..', '/home/me/x', 'linux', '/'],
    ['%2e%2e/x', '/tmp', 'linux', '/tmp/%2e%2e/x'],
    ['..\\..\\x', '/tmp', 'linux', '/tmp/..\\..\\x'],
    ['~/Projects/./a/', '/', 'macos', '/Users/me/Projects/a'],
    ['..\\..\\Windows', 'C:\\Users\\me\\Projects', 'windows', 'C:\\Users\\Windows'],
    ['~\\Projects\\a', 'D:\\work', 'windows', 'C:\\Users\\me\\Projects\\a'],
    ['~/Projects/a', 'D:\\work', 'windows', 'C:\\Users\\me\\Projects\\a'],
    ['\\temp', 'D:\\work', 'windows', 'D:\\temp'],
    ['/temp', 'D:\\work', 'windows', 'D:\\temp'],
    ['C:/Users/me/./Projects//a/', 'D:\\work', 'windows', 'C:\\Users\\me\\Projects\\a'],
    ['..', 'C:\\', 'windows', 'C:\\'],
    ['\\\\?\\C:\\x\\..\\y', 'D:\\work', 'windows', 'C:\\y'],
    ['\\\\?\\UNC\\server\\share\\x', 'D:\\work', 'windows', '\\\\server\\share\\x'],
    ['\\\\server\\share\\..\\..\\x', 'D:\\work', 'windows', '\\\\server\\share\\x'],
    ['a\\..\\..\\b', '\\\\server\\share\\dir', 'windows', '\\\\server\\share\\b'],
  ];
  it.each(table)('%s from %s on %s is %s', (input, cwd, platform, expected) => {
    expect(lexicalAbsolute(input, cwd, home[platform], platform)).toBe(expected);
  });

  it('keeps .. in the joined path for the symlink walk', () => {
    expect(joinedPath('~/a/../b', '/tmp', '/home/me', 'linux')).toBe('/home/me/a/../b');
    expect(joinedPath('a/../b', '/tmp', '/home/me', 'linux')).toBe('/tmp/a/../b');
  });

  it.each([
    ['C:foo', 'D:\\work', 'relative to a drive'],
    ['\\\\.\\PhysicalDrive0', 'D:\\work', 'device path'],
    ['\\\\?\\Volume{1234}\\x', 'D:\\work', 'device path'],
    ['x', 'work', 'must start with a drive'],
    ['x', '\\work', 'must start with a drive'],
    ['~other\\x', 'D:\\work', "another user's home"],
    ['a\0b', 'D:\\work', 'NUL'],
  ])('refuses %s (cwd %s) on Windows: %s', (input, cwd, message) => {
    expect(() => lexicalAbsolute(input, cwd, home.windows, 'windows')).toThrow(message);
  });

  it.each([
    ['~user', '/'],
    ['~user/x', '/'],
    ['x', 'relative'],
    ['', '/'],
    ['x\0', '/'],
    ['x', ''],
  ])('refuses %s (cwd %s) on Linux with INVALID_INPUT', (input, cwd) => {
    expect(() => lexicalAbsolute(input, cwd, home.linux, 'linux')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }) as unknown as Error,
    );
  });

  it('expands ~ only at the start', () => {
    expect(expandHome('a/~', '/home/me', 'linux')).toBe('a/~');
    expect(expandHome('~/a/../b', '/home/me', 'linux')).toBe('/home/me/a/../b');
    expect(() => expandHome('~\\x', '/home/me', 'linux')).toThrow(/another user/);
    expect(expandHome('~\\x', 'C:\\Users\\me', 'windows')).toBe('C:\\Users\\me\\x');
  });
});

describe('sensitivePathReason', () => {
  const table: [string, string, Platform, boolean][] = [
    ['/home/me/.bashrc', '/home/me', 'linux', true],
    ['/home/me/.zshrc', '/home/me', 'linux', true],
    ['/home/me/.profile', '/home/me', 'linux', true],
    ['/home/me/.config/fish/config.fish', '/home/me', 'linux', true],
    ['/home/me/.ssh', '/home/me', 'linux', true],
    ['/home/me/.ssh/authorized_keys', '/home/me', 'linux', true],
    ['/home/me/.aws/credentials', '/home/me', 'linux', true],
    ['/home/me/.netrc', '/home/me', 'linux', true],
    ['/home/me/.git-credentials', '/home/me', 'linux', true],
    ['/home/me/.docker/config.json', '/home/me', 'linux', true],
    ['/home/me/.docker/other.json', '/home/me', 'linux', false],
    ['/home/me/.gnupg/private-keys-v1.d/x.key', '/home/me', 'linux', true],
    ['/home/me/.config/systemd/user/x.service', '/home/me', 'linux', true],
    ['/home/me/.config/autostart/x.desktop', '/home/me', 'linux', true],
    ['/home/me/.local/share/keyrings/login.keyring', '/home/me', 'linux', true],
    ['/home/me/.config/google-chrome/Default/Cookies', '/home/me', 'linux', true],
    ['/home/me/.config/google-chrome/Default/Login Data', '/home/me', 'linux', true],
    ['/home/me/.mozilla/firefox/abc.default/logins.json', '/home/me', 'linux', true],
    ['/home/me/.mozilla/firefox/abc.default/key4.db', '/home/me', 'linux', true],
    ['/home/me/Projects/recipes/Cookies', '/home/me', 'linux', false],
    ['/var/spool/cron/crontabs/me', '/home/me', 'linux', true],
    ['/etc/crontab', '/home/me', 'linux', true],
    ['/etc/cron.d/job', '/home/me', 'linux', true],
    ['/etc/systemd/system/x.service', '/home/me', 'linux', true],
    ['/etc/profile.d/x.sh', '/home/me', 'linux', true],
    ['/etc/sudoers.d/me', '/home/me', 'linux', true],
    ['/home/me/.bashrc.bak', '/home/me', 'linux', false],
    ['/home/me/Projects/.bashrc', '/home/me', 'linux', false],
    ['/home/me/.BASHRC', '/home/me', 'linux', false],
    ['/home/me/Projects/app/index.ts', '/home/me', 'linux', false],
    ['/Users/me/.BASHRC', '/Users/me', 'macos', true],
    ['/Users/me/Library/LaunchAgents/x.plist', '/Users/me', 'macos', true],
    ['/Library/LaunchDaemons/x.plist', '/Users/me', 'macos', true],
    ['/Users/me/Library/Keychains/login.keychain-db', '/Users/me', 'macos', true],
    ['/Users/me/Library/Application Support/Google/Chrome/Default/Cookies', '/Users/me', 'macos', true],
    ['/Users/me/Library/Cookies/Cookies.binarycookies', '/Users/me', 'macos', true],
    ['/usr/lib/cron/tabs/me', '/Users/me', 'macos', true],
    ['C:\\Users\\me\\.ssh\\id_ed25519', 'C:\\Users\\me', 'windows', true],
    ['c:\\users\\ME\\.SSH.\\id_rsa', 'C:\\Users\\me', 'windows', true],
    ['C:\\Users\\me\\_netrc', 'C:\\Users\\me', 'windows', true],
    [
      'C:\\Users\\me\\AppData\\Roaming\\Microsoft\\Windows\\Start Menu\\Programs\\Startup\\x.lnk',
      'C:\\Users\\me',
      'windows',
      true,
    ],
    ['C:\\ProgramData\\Microsoft\\Windows\\Start Menu\\Programs\\StartUp\\x.lnk', 'C:\\Users\\me', 'windows', true],
    ['C:\\Users\\me\\Documents\\WindowsPowerShell\\Microsoft.PowerShell_profile.ps1', 'C:\\Users\\me', 'windows', true],
    [
      'C:\\Users\\me\\AppData\\Local\\Google\\Chrome\\User Data\\Default\\Network\\Cookies',
      'C:\\Users\\me',
      'windows',
      true,
    ],
    ['C:\\Users\\me\\AppData\\Local\\Google\\Chrome\\User Data\\Local State', 'C:\\Users\\me', 'windows', true],
    ['C:\\Windows\\System32\\Tasks\\x', 'C:\\Users\\me', 'windows', true],
    ['C:\\Users\\me\\Projects\\a.txt', 'C:\\Users\\me', 'windows', false],
    ['/etc/crontab', 'C:\\Users\\me', 'windows', false],
  ];
  it.each(table)('%s (home %s, %s): %s', (location, home, platform, expected) => {
    expect(Boolean(sensitivePathReason(location, home, platform))).toBe(expected);
  });

  it('says why in words', () => {
    expect(sensitivePathReason('/home/me/.bashrc', '/home/me', 'linux')?.en).toMatch(/runs every time/);
    expect(sensitivePathReason('/home/me/.ssh/id_rsa', '/home/me', 'linux')?.en).toMatch(/SSH/);
  });
});

// Brace expansion and shell globs are tested beside them: brace-expansion.test.ts, shell-glob.test.ts.
