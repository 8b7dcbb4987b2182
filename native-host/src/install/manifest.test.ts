import { describe, expect, it } from 'vitest';

import { CHROME_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '@nextai/shared';

import { buildHostManifest, renderHostManifest } from './manifest.js';

const launcher = '/home/ada/.nextai-agent/bin/nextai-host';

describe('host manifests', () => {
  it('lets exactly our Chromium extension id start the host', () => {
    expect(JSON.parse(renderHostManifest('chromium', launcher))).toEqual({
      name: 'com.nextai.agent',
      description: expect.any(String),
      path: launcher,
      type: 'stdio',
      allowed_origins: [`chrome-extension://${CHROME_EXTENSION_ID}/`],
    });
  });

  it('lets exactly our Firefox add-on id start the host', () => {
    expect(JSON.parse(renderHostManifest('firefox', launcher))).toEqual({
      name: 'com.nextai.agent',
      description: expect.any(String),
      path: launcher,
      type: 'stdio',
      allowed_extensions: [FIREFOX_EXTENSION_ID],
    });
  });

  it('never contains a wildcard, and each dialect only its own allow-list', () => {
    for (const family of ['chromium', 'firefox'] as const) {
      const text = renderHostManifest(family, launcher);
      expect(text).not.toContain('*');
      expect(text.endsWith('}\n')).toBe(true);
    }
    expect(buildHostManifest('chromium', launcher)).not.toHaveProperty('allowed_extensions');
    expect(buildHostManifest('firefox', launcher)).not.toHaveProperty('allowed_origins');
  });

  it('uses the id exactly: 32 letters a-p in a chrome-extension origin with a trailing slash', () => {
    const manifest = buildHostManifest('chromium', launcher);
    expect('allowed_origins' in manifest && manifest.allowed_origins).toEqual([
      expect.stringMatching(/^chrome-extension:\/\/[a-p]{32}\/$/),
    ]);
  });

  it('keeps a Windows launcher path intact through JSON escaping', () => {
    const windowsLauncher = 'C:\\Users\\ada\\.nextai-agent\\bin\\nextai-host.cmd';
    expect(JSON.parse(renderHostManifest('chromium', windowsLauncher)).path).toBe(windowsLauncher);
  });
});
