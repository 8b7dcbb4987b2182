import { useCallback, useEffect, useRef, useState } from 'react';

import type { Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import type { PanelProps } from '../panel-props.js';
import { stopReason } from '../safety/emergency-stop.js';
import { forgetRunSteps, imageUrl, runSteps, screenshotReference } from './data.js';
import { ImageDialog } from './image-dialog.js';
import {
  foldAudit,
  newestFirst,
  summariseParameters,
  type AuditRecordLike,
  type Operation,
  type OperationStatus,
} from './operations.js';
import { WindowedList } from './windowed-list.js';

const PAGE = 200;
const ROW_HEIGHT = 64;
/** Events after which the audit log has new rows. */
const TRIGGERS = ['tool.started', 'tool.finished', 'approval.requested', 'approval.answered', 'emergency.'];

/**
 * The operation log: every tool call the daemon decided on — from a run, the CLI
 * or an MCP client — with its time, tool, key parameters, status and, for screenshots, a
 * thumbnail that opens at full size. Read from the audit log, newest first, and kept current
 * from the events; older pages on demand.
 */
export function OperationLog({ client, state, t, locale }: PanelProps) {
  const [operations, setOperations] = useState<Map<string, Operation>>(new Map());
  const [phase, setPhase] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [error, setError] = useState<string | undefined>(undefined);
  const [hasOlder, setHasOlder] = useState(false);
  const [open, setOpen] = useState<{ url: string; title: string } | undefined>(undefined);
  const newest = useRef(0);
  const connected = state.status === 'connected';
  const daemonPid = state.daemon?.pid;

  const merge = useCallback((records: AuditRecordLike[]) => {
    for (const record of records) newest.current = Math.max(newest.current, record.seq);
    setOperations((known) => foldAudit(known, records));
  }, []);

  // The latest page, on connecting and after the daemon restarted.
  useEffect(() => {
    if (!connected) return;
    let current = true;
    client
      .call('audit.list', { limit: PAGE })
      .then(({ records }) => {
        if (!current) return;
        newest.current = 0;
        setOperations(new Map());
        merge(records);
        setHasOlder(records.length === PAGE);
        setPhase('ready');
        setError(undefined);
      })
      .catch((failure: Error) => {
        if (!current) return;
        setPhase('failed');
        setError(failure.message);
      });
    return () => {
      current = false;
    };
  }, [client, connected, daemonPid, merge]);

  // New rows as they happen: one catch-up read per burst of events.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const catchUp = () => {
      timer = undefined;
      client
        .call('audit.list', { after_seq: newest.current, limit: 1000 })
        .then(({ records }) => merge(records))
        .catch(() => undefined);
    };
    const unsubscribe = client.onEvent((event) => {
      if (event.type === 'run.step' && typeof event.data.run_id === 'string') forgetRunSteps(event.data.run_id);
      if (!TRIGGERS.some((prefix) => event.type.startsWith(prefix))) return;
      timer ??= setTimeout(catchUp, 150);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [client, merge]);

  const loadOlder = async () => {
    const oldest = Math.min(...[...operations.values()].map((operation) => operation.seq));
    try {
      const { records } = await client.call('audit.list', { limit: PAGE, before_seq: oldest });
      merge(records);
      setHasOlder(records.length === PAGE);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const rows = newestFirst(operations);
  return (
    <section className="card activity-log" data-testid="activity-card" aria-labelledby="activity-log-title">
      <div className="card-title-row">
        <h2 id="activity-log-title">{t('activityLogTitle')}</h2>
        {rows.length > 0 && <span className="sub">{t('activityCount', { count: rows.length })}</span>}
      </div>
      {phase === 'loading' && connected && <p className="hint">{t('loading')}</p>}
      {!connected && rows.length === 0 && <p className="hint">{t('activityOffline')}</p>}
      {error && <p className="error-text">{t('activityLoadFailed', { message: error })}</p>}
      {phase === 'ready' && rows.length === 0 && <p className="hint">{t('noActivity')}</p>}
      {rows.length > 0 && (
        <WindowedList
          items={rows}
          rowHeight={ROW_HEIGHT}
          maxHeight={448}
          label={t('activityListLabel')}
          itemKey={(operation) => operation.id}
          testId="activity-list"
          renderItem={(operation) => (
            <OperationRow
              operation={operation}
              client={client}
              t={t}
              locale={locale}
              onOpen={(url) =>
                setOpen({ url, title: t('activityScreenshotOf', { time: clock(operation.time, locale) }) })
              }
            />
          )}
        />
      )}
      {hasOlder && connected && (
        <button type="button" className="button-small activity-older" onClick={() => void loadOlder()}>
          {t('activityLoadOlder')}
        </button>
      )}
      {open && <ImageDialog url={open.url} title={open.title} onClose={() => setOpen(undefined)} t={t} />}
    </section>
  );
}

const STATUS_KEYS = {
  ok: 'activityStatusOk',
  failed: 'activityStatusFailed',
  waiting: 'activityStatusWaiting',
  blocked: 'activityStatusBlocked',
  running: 'activityStatusRunning',
} as const satisfies Record<OperationStatus, string>;

const STATUS_GLYPHS: Record<OperationStatus, string> = {
  ok: '✓',
  failed: '✕',
  waiting: '…',
  blocked: '⊘',
  running: '•',
};

function OperationRow({
  operation,
  client,
  t,
  locale,
  onOpen,
}: {
  operation: Operation;
  client: PanelClient;
  t: Translate;
  locale: string;
  onOpen: (url: string) => void;
}) {
  const status = t(STATUS_KEYS[operation.status]);
  const emergency = operation.kind === 'emergency';
  const name = emergency
    ? operation.emergency === 'stop'
      ? t('activityEmergencyStop')
      : t('activityEmergencyReset')
    : operation.tool;
  const parameters = emergency
    ? t('activityBy', { by: operation.actor ?? '?' })
    : summariseParameters(operation.tool, operation.parameters);
  const detail = emergency && operation.detail ? stopReason(operation.detail, t) : operation.detail;
  return (
    <div className={`op op-${operation.status}${emergency ? ' op-emergency' : ''}`} data-status={operation.status}>
      <span className="op-status" role="img" aria-label={status} title={status}>
        {STATUS_GLYPHS[operation.status]}
      </span>
      <div className="op-main">
        <div className="op-line">
          <span className="op-tool">{name}</span>
          {operation.source && <span className="op-source">{operation.source}</span>}
          {operation.durationMs !== undefined && <span className="op-duration">{duration(operation.durationMs)}</span>}
          <time className="op-time" dateTime={operation.time}>
            {clock(operation.time, locale)}
          </time>
        </div>
        <div className="op-params mono" title={parameters}>
          {parameters || '—'}
        </div>
        {detail && (
          <div className="op-detail" title={detail}>
            {detail}
          </div>
        )}
      </div>
      {operation.tool === 'screenshot' && operation.runId && operation.status === 'ok' && (
        <Thumbnail operation={operation} client={client} t={t} onOpen={onOpen} />
      )}
    </div>
  );
}

function Thumbnail({
  operation,
  client,
  t,
  onOpen,
}: {
  operation: Operation;
  client: PanelClient;
  t: Translate;
  onOpen: (url: string) => void;
}) {
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => {
    let current = true;
    const runId = operation.runId;
    if (!runId) return;
    runSteps(client, runId)
      .then((steps) => {
        const reference = screenshotReference(operation, steps);
        return reference ? imageUrl(client, reference) : undefined;
      })
      .then((value) => {
        if (current && value) setUrl(value);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [client, operation]);
  if (!url) return null;
  return (
    <button
      type="button"
      className="op-thumb"
      aria-label={t('activityOpenScreenshot')}
      onClick={() => onOpen(url)}
      data-testid="activity-thumbnail"
    >
      <img src={url} alt="" />
    </button>
  );
}

export function clock(time: string, locale: string): string {
  return new Date(time).toLocaleTimeString(locale, { hour12: false });
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
