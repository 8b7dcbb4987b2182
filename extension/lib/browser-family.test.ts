import { describe, expect, it } from 'vitest';

import { detectBrowser, installCommandFor } from './browser-family.js';

const chromeUa =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

describe('detectBrowser', () => {
  it('tells the browsers apart from what a page can see', () => {
    expect(detectBrowser({ userAgent: chromeUa, userAgentData: { brands: [{ brand: 'Chromium' }] } })).toBe('chromium');
    expect(detectBrowser({ userAgent: chromeUa, userAgentData: { brands: [{ brand: 'Google Chrome' }] } })).toBe(
      'chrome',
    );
    expect(
      detectBrowser({ userAgent: `${chromeUa} Edg/156.0`, userAgentData: { brands: [{ brand: 'Microsoft Edge' }] } }),
    ).toBe('edge');
    expect(detectBrowser({ userAgent: chromeUa, brave: {} })).toBe('brave');
    expect(detectBrowser({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' })).toBe(
      'firefox',
    );
  });

  it('gives the install command for that browser', () => {
    expect(installCommandFor('edge')).toBe('npx nextai install --browser edge');
  });
});
