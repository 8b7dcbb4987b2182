import { memo } from 'react';

import { inLocale, toolTitleIn, type ToolInfo, type TimelineItem } from '@nextai/shared';

import type { MessageKey, Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { BlobThumbnail } from './blob-image.js';

type ToolItem = Extract<TimelineItem, { kind: 'tool' }>;

/** `key=value` pairs of a tool's input, short enough for one or two lines. */
export function shortParams(input: Record<string, unknown>, width = 140): string {
  const pairs = Object.entries(input).map(([key, value]) => {
    const shown =
      typeof value === 'string' && /^[^\s"'=]{1,60}$/.test(value) ? value : oneLine(JSON.stringify(value) ?? '', 80);
    return `${key}=${shown}`;
  });
  return oneLine(pairs.join(' '), width);
}

export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= width ? flat : `${points.slice(0, width - 1).join('')}…`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const STATUS_KEYS: Record<ToolItem['status'], MessageKey> = {
  running: 'chatStepRunning',
  ok: 'chatStepOk',
  failed: 'chatStepFailed',
  unknown: 'chatStepUnknown',
};

const RISK_KEYS: Record<string, MessageKey> = {
  low: 'chatRiskLow',
  medium: 'chatRiskMedium',
  high: 'chatRiskHigh',
  critical: 'chatRiskCritical',
};

/** A card per tool call: title, risk, short parameters, status, duration, result, screenshot. */
export const ToolCard = memo(function ToolCard({
  item,
  info,
  client,
  t,
}: {
  item: ToolItem;
  info: ToolInfo | undefined;
  client: PanelClient;
  t: Translate;
}) {
  const title = item.observe ? t('chatObserved') : toolTitleIn(t.locale, item.tool, info?.title ?? item.tool);
  const params = shortParams(item.input);
  const riskKey = info ? RISK_KEYS[info.risk] : undefined;
  return (
    <article
      className={`tool-card tool-${item.status}`}
      data-testid="tool-card"
      data-tool={item.tool}
      data-status={item.status}
      aria-label={t('chatToolCardLabel', { title, status: t(STATUS_KEYS[item.status]) })}
    >
      <div className="tool-head">
        <span className={`tool-status-icon status-${item.status}`} aria-hidden="true">
          {item.status === 'running' ? <span className="spinner spinner-small" /> : STATUS_ICON[item.status]}
        </span>
        <span className="tool-title">{title}</span>
        {!item.observe && info && riskKey && (
          <span className={`risk risk-${info.risk}`} title={t('chatRiskTitle')}>
            {t(riskKey)}
          </span>
        )}
        <span className="tool-meta">
          {item.durationMs !== undefined && formatDuration(item.durationMs)}
          {item.attempt !== undefined && item.attempt > 1 && ` · ${t('chatAttempt', { attempt: item.attempt })}`}
        </span>
      </div>
      {params !== '' && (
        <code className="tool-params" title={JSON.stringify(item.input, null, 2)}>
          {params}
        </code>
      )}
      {(item.summary || item.status !== 'ok') && (
        <p className={`tool-result ${item.status === 'failed' ? 'tool-result-failed' : ''}`} data-testid="tool-result">
          {item.status === 'failed' && item.errorCode ? `${item.errorCode}: ` : ''}
          {item.summary
            ? oneLine(inLocale(item.summary, item.summaryTranslations, t.locale), 240)
            : t(STATUS_KEYS[item.status])}
        </p>
      )}
      {item.image && <BlobThumbnail client={client} reference={item.image} label={title} t={t} />}
    </article>
  );
});

const STATUS_ICON: Record<ToolItem['status'], string> = { running: '', ok: '✓', failed: '✕', unknown: '?' };
