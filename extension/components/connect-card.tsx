import { useEffect, useState } from 'react';

import { detectBrowser, installCommandFor } from '../lib/browser-family.js';
import type { ConnectionState } from '../lib/connection-state.js';
import type { Translate } from '../lib/i18n.js';

/** Shown while not connected: why, and — when the host is missing — the one command that fixes it. */
export function ConnectCard({ state, t, onRetry }: { state: ConnectionState; t: Translate; onRetry: () => void }) {
  const [copied, setCopied] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  if (state.status === 'connecting' && !state.error) {
    return (
      <section className="card card-muted">
        <div className="spinner" aria-hidden="true" />
        <p>{state.daemonRestarting ? t('statusRestarting') : t('statusConnecting')}</p>
      </section>
    );
  }

  const command = installCommandFor(detectBrowser(navigator));
  const hostMissing = state.error?.hostMissing ?? false;
  const secondsLeft = state.nextRetryAt ? Math.max(0, Math.ceil((state.nextRetryAt - now) / 1000)) : undefined;
  const copy = async () => {
    await navigator.clipboard.writeText(command);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <section className="card card-warning" data-testid="connect-card">
      <h2>{hostMissing ? t('hostMissingTitle') : t('disconnectedTitle')}</h2>
      {hostMissing ? <p>{t('hostMissingBody')}</p> : <p className="error-text">{state.error?.message}</p>}
      {hostMissing && (
        <div className="command">
          <code data-testid="install-command">{command}</code>
          <button type="button" className="button-small" onClick={() => void copy()}>
            {copied ? t('copied') : t('copy')}
          </button>
        </div>
      )}
      <div className="card-actions">
        <button type="button" className="button-primary" onClick={onRetry}>
          {t('checkAgain')}
        </button>
        {secondsLeft !== undefined && state.status === 'disconnected' && (
          <span className="hint">{t('retryIn', { seconds: secondsLeft })}</span>
        )}
      </div>
    </section>
  );
}
