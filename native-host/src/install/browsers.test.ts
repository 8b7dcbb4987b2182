import { describe, expect, it } from 'vitest';

import { BROWSERS, browserFamily, browserLocations, userDataDirManifestPath } from './browsers.js';

const context = { homeDir: '/home/ada', env: {}, dataDir: '/home/ada/.nextai-agent' };

describe('browserLocations', () => {
  it('lists the per-user Linux directories of every browser', () => {
    expect(browserLocations('linux', context)).toEqual({
      chrome: {
        browser: 'chrome',
        configRoots: ['/home/ada/.config/google-chrome'],
        manifestPath: '/home/ada/.config/google-chrome/NativeMessagingHosts/com.nextai.agent.json',
      },
      chromium: {
        browser: 'chromium',
        configRoots: ['/home/ada/.config/chromium'],
        manifestPath: '/home/ada/.config/chromium/NativeMessagingHosts/com.nextai.agent.json',
      },
      edge: {
        browser: 'edge',
        configRoots: ['/home/ada/.config/microsoft-edge'],
        manifestPath: '/home/ada/.config/microsoft-edge/NativeMessagingHosts/com.nextai.agent.json',
      },
      brave: {
        browser: 'brave',
        configRoots: ['/home/ada/.config/BraveSoftware/Brave-Browser'],
        manifestPath: '/home/ada/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.nextai.agent.json',
      },
      firefox: {
        browser: 'firefox',
        configRoots: ['/home/ada/.mozilla', '/home/ada/.config/mozilla'],
        manifestPath: '/home/ada/.mozilla/native-messaging-hosts/com.nextai.agent.json',
      },
    });
  });

  it('follows XDG_CONFIG_HOME for the Chromium family on Linux; Firefox reads hosts from ~/.mozilla only', () => {
    const locations = browserLocations('linux', { ...context, env: { XDG_CONFIG_HOME: '/srv/ada-config' } });
    expect(locations.chrome.manifestPath).toBe(
      '/srv/ada-config/google-chrome/NativeMessagingHosts/com.nextai.agent.json',
    );
    expect(locations.chromium.manifestPath).toBe('/srv/ada-config/chromium/NativeMessagingHosts/com.nextai.agent.json');
    expect(locations.edge.manifestPath).toBe(
      '/srv/ada-config/microsoft-edge/NativeMessagingHosts/com.nextai.agent.json',
    );
    expect(locations.brave.manifestPath).toBe(
      '/srv/ada-config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.nextai.agent.json',
    );
    expect(locations.firefox.manifestPath).toBe('/home/ada/.mozilla/native-messaging-hosts/com.nextai.agent.json');
  });

  it('prefers CHROME_CONFIG_HOME over XDG_CONFIG_HOME, as Chromium does, and ignores relative values', () => {
    const both = browserLocations('linux', {
      ...context,
      env: { CHROME_CONFIG_HOME: '/opt/chrome-config', XDG_CONFIG_HOME: '/srv/ada-config' },
    });
    expect(both.chromium.configRoots).toEqual(['/opt/chrome-config/chromium']);
    expect(both.firefox.configRoots).toEqual(['/home/ada/.mozilla', '/srv/ada-config/mozilla']);
    const relative = browserLocations('linux', { ...context, env: { XDG_CONFIG_HOME: 'relative/config' } });
    expect(relative.chromium.configRoots).toEqual(['/home/ada/.config/chromium']);
  });

  it('lists the per-user macOS directories of every browser', () => {
    const support = '/Users/ada/Library/Application Support';
    expect(browserLocations('macos', { ...context, homeDir: '/Users/ada' })).toEqual({
      chrome: {
        browser: 'chrome',
        configRoots: [`${support}/Google/Chrome`],
        manifestPath: `${support}/Google/Chrome/NativeMessagingHosts/com.nextai.agent.json`,
      },
      chromium: {
        browser: 'chromium',
        configRoots: [`${support}/Chromium`],
        manifestPath: `${support}/Chromium/NativeMessagingHosts/com.nextai.agent.json`,
      },
      edge: {
        browser: 'edge',
        configRoots: [`${support}/Microsoft Edge`],
        manifestPath: `${support}/Microsoft Edge/NativeMessagingHosts/com.nextai.agent.json`,
      },
      brave: {
        browser: 'brave',
        configRoots: [`${support}/BraveSoftware/Brave-Browser`],
        manifestPath: `${support}/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.nextai.agent.json`,
      },
      firefox: {
        browser: 'firefox',
        configRoots: [`${support}/Firefox`],
        manifestPath: `${support}/Mozilla/NativeMessagingHosts/com.nextai.agent.json`,
      },
    });
  });

  it('ignores XDG_CONFIG_HOME on macOS', () => {
    const locations = browserLocations('macos', { ...context, homeDir: '/Users/ada', env: { XDG_CONFIG_HOME: '/x' } });
    expect(locations.chromium.configRoots).toEqual(['/Users/ada/Library/Application Support/Chromium']);
  });

  it('gives an HKCU key and a manifest under the data directory for every browser on Windows', () => {
    const dataDir = 'C:\\Users\\ada\\.nextai-agent';
    const manifest = (browser: string) => `${dataDir}\\native-messaging\\${browser}\\com.nextai.agent.json`;
    expect(browserLocations('windows', { homeDir: 'C:\\Users\\ada', env: {}, dataDir })).toEqual({
      chrome: {
        browser: 'chrome',
        manifestPath: manifest('chrome'),
        registryKey: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.nextai.agent',
      },
      chromium: {
        browser: 'chromium',
        manifestPath: manifest('chromium'),
        registryKey: 'HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.nextai.agent',
      },
      edge: {
        browser: 'edge',
        manifestPath: manifest('edge'),
        registryKey: 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.nextai.agent',
      },
      brave: {
        browser: 'brave',
        manifestPath: manifest('brave'),
        registryKey: 'HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.nextai.agent',
      },
      firefox: {
        browser: 'firefox',
        manifestPath: manifest('firefox'),
        registryKey: 'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\com.nextai.agent',
      },
    });
  });
});

describe('browserFamily', () => {
  it('puts Firefox alone and every other browser in the Chromium family', () => {
    expect(BROWSERS.map((browser) => [browser, browserFamily(browser)])).toEqual([
      ['chrome', 'chromium'],
      ['chromium', 'chromium'],
      ['edge', 'chromium'],
      ['brave', 'chromium'],
      ['firefox', 'firefox'],
    ]);
  });
});

describe('userDataDirManifestPath', () => {
  it('is <profile dir>/NativeMessagingHosts/com.nextai.agent.json', () => {
    expect(userDataDirManifestPath('/tmp/profile')).toBe('/tmp/profile/NativeMessagingHosts/com.nextai.agent.json');
  });
});
