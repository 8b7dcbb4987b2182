import { INSTALL_COMMAND } from '@nextai/shared';

export type BrowserName = 'chrome' | 'chromium' | 'edge' | 'brave' | 'firefox';

interface NavigatorLike {
  userAgent: string;
  userAgentData?: { brands?: { brand: string }[] };
  brave?: unknown;
}

/** Which browser this is, from what the page can see; the install command depends on it. */
export function detectBrowser(navigatorLike: NavigatorLike): BrowserName {
  const brands = navigatorLike.userAgentData?.brands?.map((entry) => entry.brand) ?? [];
  if (/firefox\//i.test(navigatorLike.userAgent)) return 'firefox';
  if (navigatorLike.brave !== undefined || brands.includes('Brave')) return 'brave';
  if (brands.includes('Microsoft Edge') || /edg\//i.test(navigatorLike.userAgent)) return 'edge';
  if (brands.includes('Google Chrome')) return 'chrome';
  return 'chromium';
}

/** The one command that registers the host for this browser, run in the NextAI Agent folder. */
export function installCommandFor(browser: BrowserName): string {
  return `${INSTALL_COMMAND} --browser ${browser}`;
}
