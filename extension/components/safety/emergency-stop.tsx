import { useEffect, useState } from 'react';

import type { Translate } from '../../lib/i18n.js';
import { STOP_REASONS } from '../../lib/messages/safety.js';
import type { PanelProps } from '../panel-props.js';
import './safety.css';

/** The manifest's `emergency-stop` command (wxt.config.ts); people can change it in the browser. */
export const STOP_SHORTCUT = 'Alt+Shift+S';

interface Latched {
  active: boolean;
  since?: string;
  reason?: string;
  by?: string;
}

type Busy = 'stopping' | 'resetting' | undefined;

/**
 * The emergency stop, always visible in the header: one press stops every run
 * and every running tool in the daemon (`safety.stop`); while it is latched the header says so,
 * with who stopped, when and why, and a reset.
 */
export function EmergencyStop({ client, state, t, locale }: PanelProps) {
  const [latched, setLatched] = useState<Latched>({ active: false });
  const [busy, setBusy] = useState<Busy>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const connected = state.status === 'connected';
  const daemonPid = state.daemon?.pid;

  // The daemon's word on connecting (and after it restarted: the stop survives restarts) …
  useEffect(() => {
    if (!connected) return;
    let current = true;
    client
      .call('safety.status', {})
      .then((status) => {
        if (current) setLatched(status);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [client, connected, daemonPid]);

  // … then the events, whoever pressed stop (the CLI, the keyboard command, another panel).
  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type === 'emergency.engaged') {
          setLatched({
            active: true,
            since: event.time,
            reason: String(event.data.reason ?? ''),
            by: String(event.data.by ?? ''),
          });
          setError(undefined);
        } else if (event.type === 'emergency.reset') {
          setLatched({ active: false });
        }
      }),
    [client],
  );

  const stop = async () => {
    setBusy('stopping');
    setError(undefined);
    try {
      await client.call('safety.stop', { reason: STOP_REASONS.panel.reason });
      const status = await client.call('safety.status', {});
      setLatched(status);
    } catch (failure) {
      const message = connected ? (failure as Error).message : t('stopNotConnected');
      setError(t('stopFailed', { message: message.endsWith('.') ? message : `${message}.` }));
    } finally {
      setBusy(undefined);
    }
  };

  const reset = async () => {
    setBusy('resetting');
    setError(undefined);
    try {
      await client.call('safety.reset', {});
      setLatched({ active: false });
    } catch (failure) {
      setError(t('resetFailed', { message: (failure as Error).message }));
    } finally {
      setBusy(undefined);
    }
  };

  const since = latched.since ? new Date(latched.since).toLocaleTimeString(locale, { hour12: false }) : undefined;

  return (
    <>
      {latched.active ? (
        <span className="estop-pill" data-testid="estop-latched-pill" role="status">
          <span className="estop-pill-dot" aria-hidden="true" />
          {t('stoppedPill')}
        </span>
      ) : (
        <button
          type="button"
          className="estop-button"
          data-testid="emergency-stop"
          aria-label={t('stopButtonLabel', { shortcut: STOP_SHORTCUT })}
          title={t('stopButtonLabel', { shortcut: STOP_SHORTCUT })}
          aria-keyshortcuts="Alt+Shift+S"
          disabled={busy !== undefined}
          onClick={() => void stop()}
        >
          <span className="estop-icon" aria-hidden="true" />
          {busy === 'stopping' ? t('stopping') : t('stopButton')}
        </button>
      )}
      {latched.active && (
        <div className="estop-banner" data-testid="estop-banner" role="alert">
          <div className="estop-banner-text">
            <strong>{t('stoppedTitle')}</strong>
            {since && <span className="estop-meta">{t('stoppedSince', { time: since, by: latched.by ?? '?' })}</span>}
            {latched.reason && (
              <span className="estop-meta">{t('stoppedReason', { reason: stopReason(latched.reason, t) })}</span>
            )}
            <span className="estop-body">{t('stoppedBody')}</span>
          </div>
          <button
            type="button"
            className="estop-reset"
            data-testid="estop-reset"
            aria-label={t('resetButtonLabel')}
            disabled={busy !== undefined || !connected}
            onClick={() => void reset()}
          >
            {busy === 'resetting' ? t('resetting') : t('resetButton')}
          </button>
        </div>
      )}
      {error && (
        <p className="estop-error" data-testid="estop-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** A stop reason in the panel's language when it is one the extension gave. */
export function stopReason(reason: string, t: Translate): string {
  const known = Object.values(STOP_REASONS).find((entry) => entry.reason === reason);
  return known ? t(known.key) : reason;
}
