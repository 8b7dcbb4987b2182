import { useId, useState } from 'react';

import {
  AppError,
  CATEGORY_TITLES,
  DECISION_LAYER_TITLES,
  type DecisionLayer,
  type ToolCategory,
} from '@nextai/shared';

import type { Locale, MessageKey, Translate } from '../../lib/i18n.js';
import type { AnswerChoice } from './approvals-store.js';
import type { PendingApproval } from '../../lib/pending-approvals.js';

const RISK_LABELS: Record<string, MessageKey> = {
  low: 'approvalsRiskLow',
  medium: 'approvalsRiskMedium',
  high: 'approvalsRiskHigh',
  critical: 'approvalsRiskCritical',
};

/** Parameters a person checks first (what runs, where, on what) come first; the rest keep their order. */
const LEADING_PARAMETERS = ['command', 'path', 'url', 'source', 'destination', 'text', 'keys', 'name'];

export function riskLabel(risk: string, t: Translate): string {
  const key = RISK_LABELS[risk];
  return key ? t(key) : risk;
}

export function layerTitle(layer: string, locale: Locale): string {
  return DECISION_LAYER_TITLES[layer as DecisionLayer]?.[locale] ?? layer;
}

function orderedParameters(input: Record<string, unknown>): [string, unknown][] {
  const rank = (name: string) => {
    const index = LEADING_PARAMETERS.indexOf(name);
    return index === -1 ? LEADING_PARAMETERS.length : index;
  };
  return Object.entries(input).sort(([a], [b]) => rank(a) - rank(b));
}

/** A value exactly as the tool will get it: strings verbatim, anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export interface ApprovalCardProps {
  approval: PendingApproval;
  title: string;
  /** The tool's category (tools.list), shown in the person's language. */
  category: string | undefined;
  t: Translate;
  locale: Locale;
  connected: boolean;
  onAnswer: (choice: AnswerChoice) => Promise<void>;
}

/** One request: what the tool will do, exactly, why it asks, and the four answers. */
export function ApprovalCard({ approval, title, category, t, locale, connected, onAnswer }: ApprovalCardProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [denying, setDenying] = useState(false);
  const [message, setMessage] = useState('');
  const messageId = useId();
  const risk = riskLabel(approval.risk, t);
  const canApproveForRun = approval.complete && approval.run_id !== null && !approval.per_call;
  // The daemon's own words in the panel's language; requests older than translations show English.
  const localized = locale === 'en' ? undefined : approval.translations[locale];
  const disabled = busy || !connected;

  const answer = async (choice: AnswerChoice) => {
    setBusy(true);
    setError(undefined);
    try {
      await onAnswer(choice);
    } catch (caught) {
      const code = caught instanceof AppError ? caught.code : undefined;
      const text = caught instanceof Error ? caught.message : String(caught);
      setError(
        code === 'DISCONNECTED' || code === 'DAEMON_UNAVAILABLE'
          ? t('approvalsAnswerOffline')
          : t('approvalsAnswerFailed', { message: text }),
      );
      setBusy(false);
    }
  };

  const parameters = orderedParameters(approval.input);
  return (
    <article
      className={`approval-card approval-risk-${approval.risk}`}
      aria-label={t('approvalsCardLabel', { title, risk })}
      data-testid="approval-card"
      data-approval-id={approval.id}
    >
      <header className="approval-head">
        <h3 className="approval-title">{title}</h3>
        <span className={`approval-risk approval-risk-badge-${approval.risk}`} data-testid="approval-risk">
          {risk}
        </span>
      </header>
      <p className="approval-meta">
        {category && CATEGORY_TITLES[category as ToolCategory] && (
          <span>{CATEGORY_TITLES[category as ToolCategory][locale]}</span>
        )}
        <code className="approval-tool">{approval.tool}</code>
        {approval.run_id ? (
          <span>{t('approvalsFromRun', { run: approval.run_id.slice(0, 8) })}</span>
        ) : approval.source ? (
          <span>{t('approvalsFromSource', { source: approval.source })}</span>
        ) : null}
        {approval.project && approval.project !== 'default' && (
          <span>{t('approvalsProject', { project: approval.project })}</span>
        )}
        <time dateTime={approval.created_at} title={new Date(approval.created_at).toLocaleString(locale)}>
          {t('approvalsWaitingSince', {
            time: new Date(approval.created_at).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' }),
          })}
        </time>
      </p>

      <section className="approval-section" aria-label={t('approvalsParameters')}>
        <h4>{t('approvalsParameters')}</h4>
        {!approval.complete ? (
          <p className="hint">{t('approvalsParametersLoading')}</p>
        ) : parameters.length === 0 ? (
          <p className="hint">{t('approvalsNoParameters')}</p>
        ) : (
          <dl className="approval-params" data-testid="approval-params">
            {parameters.map(([name, value]) => (
              <div key={name} className="approval-param">
                <dt>{name}</dt>
                <dd>
                  <pre className="approval-value" data-testid={`approval-param-${name}`}>
                    {shown(value)}
                  </pre>
                </dd>
              </div>
            ))}
          </dl>
        )}
      </section>

      <section className="approval-section approval-why" aria-label={t('approvalsWhy')}>
        <h4>{t('approvalsWhy')}</h4>
        <p className="approval-reason" data-testid="approval-reason">
          {localized?.reason ?? approval.reason}
        </p>
        <p className="approval-layer" data-testid="approval-layer">
          {t('approvalsLayer', { layer: layerTitle(approval.layer, locale) })}
        </p>
        {approval.findings.length > 0 && (
          <ul className="approval-findings" aria-label={t('approvalsFindings')} data-testid="approval-findings">
            {approval.findings.map((finding, index) => (
              <li key={finding}>{localized?.findings[index] ?? finding}</li>
            ))}
          </ul>
        )}
        {approval.per_call && <p className="approval-note">{t('approvalsPerCall')}</p>}
        {approval.complete && approval.run_id === null && !approval.per_call && (
          <p className="approval-layer">{t('approvalsRunOnlyWithRun')}</p>
        )}
      </section>

      {approval.sandbox && (
        <SandboxSection
          sandbox={approval.sandbox}
          localized={localized?.sandbox}
          reason={localized?.reason ?? approval.reason}
          t={t}
        />
      )}

      {denying ? (
        <form
          className="approval-deny-form"
          onSubmit={(event) => {
            event.preventDefault();
            void answer({ decision: 'deny', scope: 'once', message: message.trim() });
          }}
        >
          <label htmlFor={messageId}>{t('approvalsMessageLabel')}</label>
          <textarea
            id={messageId}
            value={message}
            rows={3}
            maxLength={2000}
            placeholder={t('approvalsMessagePlaceholder')}
            onChange={(event) => setMessage(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setDenying(false);
            }}
            // The form only opens on the person's click, so focus follows it.
            autoFocus
          />
          <div className="approval-actions">
            <button
              type="submit"
              className="approval-button approval-button-deny"
              disabled={disabled || !message.trim()}
            >
              {busy ? t('approvalsSending') : t('approvalsSendDenial')}
            </button>
            <button type="button" className="approval-button" disabled={busy} onClick={() => setDenying(false)}>
              {t('approvalsCancel')}
            </button>
          </div>
        </form>
      ) : (
        <div className="approval-actions">
          <button
            type="button"
            className="approval-button approval-button-approve"
            aria-label={t('approvalsApproveOnceLabel', { title })}
            disabled={disabled || !approval.complete}
            onClick={() => void answer({ decision: 'approve', scope: 'once' })}
            data-testid="approve-once"
          >
            {t('approvalsApproveOnce')}
          </button>
          <button
            type="button"
            className="approval-button"
            aria-label={t('approvalsApproveRunLabel', { title })}
            disabled={disabled || !canApproveForRun}
            onClick={() => void answer({ decision: 'approve', scope: 'run' })}
            data-testid="approve-run"
          >
            {t('approvalsApproveRun')}
          </button>
          <button
            type="button"
            className="approval-button approval-button-deny"
            aria-label={t('approvalsDenyLabel', { title })}
            disabled={disabled}
            onClick={() => void answer({ decision: 'deny', scope: 'once' })}
            data-testid="deny"
          >
            {t('approvalsDeny')}
          </button>
          <button
            type="button"
            className="approval-button approval-button-link"
            aria-label={t('approvalsDenyWithMessageLabel', { title })}
            disabled={disabled}
            onClick={() => setDenying(true)}
            data-testid="deny-with-message"
          >
            {t('approvalsDenyWithMessage')}
          </button>
        </div>
      )}
      {busy && !error && (
        <p className="hint" role="status">
          {t('approvalsSending')}
        </p>
      )}
      {error && (
        <p className="error-text approval-error" role="alert" data-testid="approval-error">
          {error}
        </p>
      )}
    </article>
  );
}

/**
 * Where the command or app would run: confined (what it may change, whether it has the
 * network), asking to leave (and why — already in the reasons above), or with no sandbox here.
 */
function SandboxSection({
  sandbox,
  localized,
  reason,
  t,
}: {
  sandbox: NonNullable<PendingApproval['sandbox']>;
  localized: { summary: string; escapes: string[] } | undefined;
  /** The reason shown above: when the sandbox itself asks, its sentence is already there. */
  reason: string;
  t: Translate;
}) {
  const summary = localized?.summary ?? sandbox.summary;
  const state =
    sandbox.mechanism === 'none' || sandbox.unavailable ? 'none' : sandbox.sandboxed ? 'confined' : 'leaves';
  const label = {
    confined: t('approvalsSandboxConfined'),
    leaves: t('approvalsSandboxLeaves'),
    none: t('approvalsSandboxNone'),
  }[state];
  return (
    <section
      className={`approval-section approval-sandbox approval-sandbox-${state}`}
      aria-label={t('approvalsSandbox')}
      data-testid="approval-sandbox"
    >
      <h4>
        {t('approvalsSandbox')} <span className="approval-sandbox-badge">{label}</span>
      </h4>
      <p className="approval-sandbox-summary" data-testid="approval-sandbox-summary">
        {summary === reason ? t('approvalsSandboxFullAccess') : summary}
      </p>
      {state === 'confined' && (
        <p className="approval-layer">
          {sandbox.writable.length > 0
            ? t('approvalsSandboxWritable', { folders: sandbox.writable.join(', ') })
            : t('approvalsSandboxNoWritable')}
          {' · '}
          {sandbox.network === 'full' ? t('approvalsSandboxNetworkOn') : t('approvalsSandboxNetworkOff')}
        </p>
      )}
    </section>
  );
}
