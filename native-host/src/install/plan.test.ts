import { describe, expect, it } from 'vitest';

import { CHROME_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '@nextai/shared';

import type { Browser } from './browsers.js';
import { buildInstallPlan, buildUninstallPlan, type InstallPlanInput } from './plan.js';
import type { InstallRecord, RecordEntry } from './record.js';

const linuxInput: InstallPlanInput = {
  platform: 'linux',
  homeDir: '/home/ada',
  env: {},
  dataDir: '/home/ada/.nextai-agent',
  binDir: '/home/ada/.nextai-agent/bin',
  cliPath: '/opt/nextai/native-host/dist/nextai.js',
  nodePath: '/usr/local/bin/node',
  browser: 'all',
  installedBrowsers: new Set<Browser>(),
};

const windowsInput: InstallPlanInput = {
  platform: 'windows',
  homeDir: 'C:\\Users\\ada',
  env: {},
  dataDir: 'C:\\Users\\ada\\.nextai-agent',
  binDir: 'C:\\Users\\ada\\.nextai-agent\\bin',
  cliPath: 'C:\\nextai\\native-host\\dist\\nextai.js',
  nodePath: 'C:\\Program Files\\nodejs\\node.exe',
  browser: 'all',
  installedBrowsers: new Set<Browser>(),
};

const LAUNCHER = '/home/ada/.nextai-agent/bin/nextai-host';

describe('buildInstallPlan', () => {
  it('for "all", writes the launcher and the manifests of the browsers found, and skips the others', () => {
    const plan = buildInstallPlan({ ...linuxInput, installedBrowsers: new Set(['chromium', 'firefox']) });
    expect(plan.files.map(({ role, path, mode, browser }) => ({ role, path, mode, browser }))).toEqual([
      { role: 'launcher', path: LAUNCHER, mode: 0o755, browser: undefined },
      {
        role: 'manifest',
        path: '/home/ada/.config/chromium/NativeMessagingHosts/com.nextai.agent.json',
        mode: 0o644,
        browser: 'chromium',
      },
      {
        role: 'manifest',
        path: '/home/ada/.mozilla/native-messaging-hosts/com.nextai.agent.json',
        mode: 0o644,
        browser: 'firefox',
      },
    ]);
    expect(plan.skipped).toEqual([
      { browser: 'chrome', reason: 'not installed (/home/ada/.config/google-chrome does not exist)' },
      { browser: 'edge', reason: 'not installed (/home/ada/.config/microsoft-edge does not exist)' },
      { browser: 'brave', reason: 'not installed (/home/ada/.config/BraveSoftware/Brave-Browser does not exist)' },
    ]);
    expect(plan.registry).toEqual([]);
  });

  it('points every manifest at the launcher, with the allow-list of its browser family', () => {
    const plan = buildInstallPlan({ ...linuxInput, installedBrowsers: new Set(['chrome', 'firefox']) });
    const [chrome, firefox] = plan.files.slice(1).map((file) => JSON.parse(file.content) as Record<string, unknown>);
    expect(chrome).toMatchObject({ path: LAUNCHER, allowed_origins: [`chrome-extension://${CHROME_EXTENSION_ID}/`] });
    expect(firefox).toMatchObject({ path: LAUNCHER, allowed_extensions: [FIREFOX_EXTENSION_ID] });
    expect(plan.files[0]?.content).toContain(`exec "$NODE" "$nextai_cli" host "$@"`);
    expect(plan.files[0]?.content).toContain("NEXTAI_HOME='/home/ada/.nextai-agent'");
    expect(plan.files[0]?.content).toContain("nextai_cli='/opt/nextai/native-host/dist/nextai.js'");
  });

  it('fails with a clear message naming --browser when no browser is found', () => {
    expect(() => buildInstallPlan(linuxInput)).toThrow(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: expect.stringContaining('--browser chrome|chromium|edge|brave|firefox'),
      }),
    );
  });

  it('always writes an explicitly named browser, found or not', () => {
    const plan = buildInstallPlan({ ...linuxInput, browser: 'edge' });
    expect(plan.files.map((file) => file.path)).toEqual([
      LAUNCHER,
      '/home/ada/.config/microsoft-edge/NativeMessagingHosts/com.nextai.agent.json',
    ]);
    expect(plan.skipped).toEqual([]);
  });

  it('with --user-data-dir and no browser, writes a Chromium manifest into <dir>/NativeMessagingHosts', () => {
    const plan = buildInstallPlan({ ...linuxInput, userDataDir: '/tmp/profile' });
    expect(plan.files[1]).toMatchObject({
      role: 'manifest',
      browser: 'chromium',
      userDataDir: '/tmp/profile',
      path: '/tmp/profile/NativeMessagingHosts/com.nextai.agent.json',
    });
    expect(plan.files).toHaveLength(2);
    const withBrave = buildInstallPlan({ ...linuxInput, browser: 'brave', userDataDir: '/tmp/profile' });
    expect(withBrave.files[1]?.browser).toBe('brave');
  });

  it('refuses --user-data-dir with Firefox, on Windows, and when relative', () => {
    expect(() => buildInstallPlan({ ...linuxInput, browser: 'firefox', userDataDir: '/tmp/profile' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Firefox') }),
    );
    expect(() => buildInstallPlan({ ...windowsInput, userDataDir: 'C:\\profile' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('registry') }),
    );
    expect(() => buildInstallPlan({ ...linuxInput, userDataDir: 'profile' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('refuses relative paths for the CLI bundle and node', () => {
    expect(() => buildInstallPlan({ ...linuxInput, cliPath: 'dist/nextai.js', browser: 'chrome' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => buildInstallPlan({ ...linuxInput, nodePath: 'node', browser: 'chrome' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it('on Windows writes a .cmd launcher, one manifest per browser under the data dir, and every HKCU key', () => {
    const plan = buildInstallPlan(windowsInput);
    const manifest = (browser: string) =>
      `C:\\Users\\ada\\.nextai-agent\\native-messaging\\${browser}\\com.nextai.agent.json`;
    expect(plan.files.map((file) => file.path)).toEqual([
      'C:\\Users\\ada\\.nextai-agent\\bin\\nextai-host.cmd',
      manifest('chrome'),
      manifest('chromium'),
      manifest('edge'),
      manifest('brave'),
      manifest('firefox'),
    ]);
    expect(JSON.parse(plan.files[1]?.content ?? '').path).toBe('C:\\Users\\ada\\.nextai-agent\\bin\\nextai-host.cmd');
    expect(plan.skipped).toEqual([]);
    expect(plan.registry).toEqual([
      {
        browser: 'chrome',
        key: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.nextai.agent',
        value: manifest('chrome'),
        command: 'reg.exe',
        args: [
          'add',
          'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.nextai.agent',
          '/ve',
          '/t',
          'REG_SZ',
          '/d',
          manifest('chrome'),
          '/f',
        ],
      },
      expect.objectContaining({
        browser: 'chromium',
        key: 'HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.nextai.agent',
      }),
      expect.objectContaining({
        browser: 'edge',
        key: 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.nextai.agent',
      }),
      expect.objectContaining({
        browser: 'brave',
        key: 'HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.nextai.agent',
      }),
      expect.objectContaining({
        browser: 'firefox',
        key: 'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\com.nextai.agent',
      }),
    ]);
  });

  it('on Windows with one browser, writes only its manifest and key', () => {
    const plan = buildInstallPlan({ ...windowsInput, browser: 'firefox' });
    expect(plan.files.map((file) => file.browser ?? file.role)).toEqual(['launcher', 'firefox']);
    expect(plan.registry.map((operation) => operation.key)).toEqual([
      'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\com.nextai.agent',
    ]);
  });
});

describe('buildUninstallPlan', () => {
  const file = (path: string, extra: Partial<RecordEntry> = {}): RecordEntry =>
    ({ kind: 'file', role: 'manifest', path, sha256: '0'.repeat(64), ...extra }) as RecordEntry;
  const launcher = file('/d/bin/nextai-host', { role: 'launcher' });
  const chromium = file('/h/.config/chromium/NativeMessagingHosts/com.nextai.agent.json', { browser: 'chromium' });
  const firefox = file('/h/.mozilla/native-messaging-hosts/com.nextai.agent.json', { browser: 'firefox' });
  const profile = file('/p/NativeMessagingHosts/com.nextai.agent.json', { browser: 'chromium', userDataDir: '/p' });
  const record: InstallRecord = {
    version: 1,
    updatedAt: '2025-01-01T00:00:00.000Z',
    entries: [launcher, chromium, firefox, profile],
    createdDirectories: [],
  };

  it('without filters removes everything, the launcher included', () => {
    const plan = buildUninstallPlan(record, {});
    expect(plan.files).toEqual(expect.arrayContaining([launcher, chromium, firefox, profile]));
    expect(plan.files).toHaveLength(4);
    expect(plan.remaining).toEqual([]);
  });

  it('with --browser keeps the launcher while other manifests still use it', () => {
    const plan = buildUninstallPlan(record, { browser: 'firefox' });
    expect(plan.files).toEqual([firefox]);
    expect(plan.remaining).toEqual([launcher, chromium, profile]);
  });

  it('with --user-data-dir selects only the manifest in that profile', () => {
    const plan = buildUninstallPlan(record, { userDataDir: '/p' });
    expect(plan.files).toEqual([profile]);
    expect(buildUninstallPlan(record, { browser: 'firefox', userDataDir: '/p' }).files).toEqual([]);
  });

  it('removes the launcher with the last manifest', () => {
    const plan = buildUninstallPlan({ ...record, entries: [launcher, firefox] }, { browser: 'firefox' });
    expect(plan.files).toEqual([firefox, launcher]);
    expect(plan.remaining).toEqual([]);
  });
});
