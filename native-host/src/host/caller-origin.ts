import { ALLOWED_CHROME_ORIGINS, ALLOWED_FIREFOX_EXTENSIONS } from '@nextai/shared/wire';

export type CallerCheck =
  { allowed: true; origin: string; family: 'chromium' | 'firefox' } | { allowed: false; reason: string };

/**
 * Decides from the host's command-line arguments which extension started it. Chromium browsers
 * pass the caller origin (`chrome-extension://<id>/`, plus `--parent-window=…` on Windows);
 * Firefox passes the path of the host manifest and the add-on id. The browser only starts the
 * host for extensions its manifest allows; this check is the second lock on the same door.
 */
export function checkCaller(
  args: readonly string[],
  allowedChromeOrigins: readonly string[] = ALLOWED_CHROME_ORIGINS,
  allowedFirefoxIds: readonly string[] = ALLOWED_FIREFOX_EXTENSIONS,
): CallerCheck {
  const chromeOrigin = args.find((arg) => arg.startsWith('chrome-extension://'));
  if (chromeOrigin !== undefined) {
    const normalized = chromeOrigin.endsWith('/') ? chromeOrigin : `${chromeOrigin}/`;
    return allowedChromeOrigins.includes(normalized)
      ? { allowed: true, origin: normalized, family: 'chromium' }
      : { allowed: false, reason: `The extension ${chromeOrigin} is not allowed to use this host.` };
  }
  const firefoxId = args.find((arg) => allowedFirefoxIds.includes(arg));
  if (firefoxId !== undefined) return { allowed: true, origin: firefoxId, family: 'firefox' };
  return {
    allowed: false,
    reason:
      args.length === 0
        ? '`nextai host` is started by the browser for the NextAI extension; it was started without the caller origin.'
        : `The caller (${args.join(' ')}) is not an allowed NextAI extension.`,
  };
}
