import { useId, useState } from 'react';

import { inLocale, type ScheduleRunView, type ScheduleView } from '@nextai/shared';

import type { Translate } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import { errorText, outcomeOf, triggerText, whenText } from './format.js';

/** One task: what and when, on/off, next and last run, run now, its history, delete. */
export function ScheduleCard(props: PanelProps & { schedule: ScheduleView; now: number; onChanged: () => void }) {
  const { schedule, client, t, locale, state, now, onChanged } = props;
  const connected = state.status === 'connected';
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [history, setHistory] = useState<ScheduleRunView[] | undefined>(undefined);
  const historyId = useId();
  const description = schedule.description[locale];

  const act = async (work: () => Promise<unknown>, done?: string) => {
    setBusy(true);
    setProblem(undefined);
    setNotice(undefined);
    try {
      await work();
      if (done) setNotice(done);
      onChanged();
    } catch (error) {
      setProblem(t('schedulesActionFailed', { message: errorText(error, locale) }));
    } finally {
      setBusy(false);
    }
  };
  const loadHistory = () =>
    client
      .call('schedules.get', { id: schedule.id, history_limit: 10 })
      .then(({ history: runs }) => setHistory(runs))
      .catch((error: unknown) => setProblem(t('schedulesActionFailed', { message: errorText(error, locale) })));

  return (
    <article
      className={`card schedule-card${schedule.enabled ? '' : ' schedule-off'}`}
      data-testid="schedule-card"
      data-name={schedule.name}
      aria-labelledby={`${historyId}-name`}
    >
      <header className="schedule-top">
        <div className="schedule-title">
          <h3 id={`${historyId}-name`}>{schedule.name}</h3>
          <p className="schedule-when" data-testid="schedule-when">
            {description} <span className="schedule-zone">({schedule.timezone})</span>
          </p>
        </div>
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            checked={schedule.enabled}
            // Not disabled while a change is on its way: a disabled control drops the keyboard focus.
            disabled={!connected}
            aria-busy={busy}
            aria-label={t('schedulesEnabledLabel', { name: schedule.name })}
            data-testid="schedule-enabled"
            onChange={(event) => {
              if (busy) return;
              const enabled = event.target.checked;
              void act(() => client.call('schedules.update', { id: schedule.id, changes: { enabled } }));
            }}
          />
          <span className="switch-track" aria-hidden="true" />
          <span className="switch-text">{schedule.enabled ? t('schedulesOn') : t('schedulesOff')}</span>
        </label>
      </header>

      <p className="schedule-does">
        <span className="schedule-kind">
          {schedule.kind === 'agent'
            ? t('schedulesKindAgent')
            : schedule.steps?.length === 1
              ? t('schedulesKindStep')
              : t('schedulesKindSteps', { count: schedule.steps?.length ?? 0 })}
        </span>
        <span className="schedule-what">
          {schedule.kind === 'agent' ? schedule.instruction : schedule.steps?.map((step) => step.tool).join(' → ')}
        </span>
      </p>

      <dl className="schedule-facts">
        <dt>{t('schedulesNext')}</dt>
        <dd data-testid="schedule-next">
          {schedule.running
            ? t('schedulesRunning')
            : schedule.next_run_at
              ? whenText(schedule.next_run_at, now, locale)
              : t('schedulesNoNext')}
          {schedule.retry_at && (
            <span className="schedule-note">
              {' '}
              · {t('schedulesRetryAt', { time: whenText(schedule.retry_at, now, locale) })}
            </span>
          )}
        </dd>
        <dt>{t('schedulesLast')}</dt>
        <dd data-testid="schedule-last">
          {schedule.last_run ? (
            <RunLine run={schedule.last_run} t={t} locale={locale} now={now} />
          ) : (
            t('schedulesNever')
          )}
        </dd>
      </dl>
      {schedule.deferred && (
        <p className="schedule-note warn">
          {t('schedulesWaits', {
            reason: inLocale(schedule.deferred, schedule.deferred_translations, locale),
          })}
        </p>
      )}
      {schedule.disabled_reason && !schedule.enabled && (
        <p className="schedule-note" data-testid="schedule-turned-off">
          {t('schedulesTurnedOff', {
            reason: inLocale(schedule.disabled_reason, schedule.disabled_reason_translations, locale),
          })}
        </p>
      )}
      <p className="schedule-cost hint">
        {t('schedulesCostToday', {
          cost: schedule.cost_today_usd.toFixed(2),
          cap: schedule.daily_cost_cap_usd.toFixed(2),
        })}
      </p>

      <div className="card-actions">
        <button
          type="button"
          className="button-small"
          disabled={!connected || busy || (schedule.running && !schedule.allow_overlap)}
          aria-label={t('schedulesRunNowLabel', { name: schedule.name })}
          data-testid="schedule-run-now"
          onClick={() => void act(() => client.call('schedules.run_now', { id: schedule.id }), t('schedulesStarted'))}
        >
          ▶ {t('schedulesRunNow')}
        </button>
        <button
          type="button"
          className="button-small"
          aria-expanded={history !== undefined}
          aria-controls={`${historyId}-history`}
          data-testid="schedule-history-toggle"
          disabled={!connected && history === undefined}
          onClick={() => (history === undefined ? void loadHistory() : setHistory(undefined))}
        >
          {history === undefined ? t('schedulesHistory') : t('schedulesHideHistory')}
        </button>
        <button
          type="button"
          className="button-small schedule-delete"
          disabled={!connected || busy}
          aria-label={t('schedulesDeleteLabel', { name: schedule.name })}
          onClick={() => {
            if (window.confirm(t('schedulesDeleteConfirm', { name: schedule.name }))) {
              void act(() => client.call('schedules.delete', { id: schedule.id }));
            }
          }}
        >
          {t('schedulesDelete')}
        </button>
      </div>
      <div aria-live="polite">
        {notice && <p className="schedule-note ok">{notice}</p>}
        {problem && (
          <p className="error-text" role="alert">
            {problem}
          </p>
        )}
      </div>
      {history !== undefined && (
        <ol
          className="schedule-history"
          id={`${historyId}-history`}
          aria-label={t('schedulesHistoryLabel', { name: schedule.name })}
          data-testid="schedule-history"
        >
          {history.length === 0 && <li className="hint">{t('schedulesHistoryEmpty')}</li>}
          {history.map((run) => (
            <li key={run.id}>
              <RunLine run={run} t={t} locale={locale} now={now} />
              {run.summary && (
                <p className="schedule-summary">{inLocale(run.summary, run.summary_translations, locale)}</p>
              )}
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}

function RunLine({ run, t, locale, now }: { run: ScheduleRunView; t: Translate; locale: string; now: number }) {
  const outcome = outcomeOf(run, t);
  const trigger = triggerText(run, t);
  return (
    <span className="schedule-run">
      <span className={`schedule-badge tone-${outcome.tone}`} data-testid="schedule-outcome">
        {outcome.text}
      </span>{' '}
      <span>{whenText(run.started_at, now, locale)}</span>
      {run.duration_ms !== null && run.outcome !== 'skipped' && (
        <span className="hint"> · {t('schedulesDuration', { seconds: (run.duration_ms / 1000).toFixed(1) })}</span>
      )}
      {run.cost_usd > 0 && <span className="hint"> · ${run.cost_usd.toFixed(4)}</span>}
      {trigger && <span className="hint"> · {trigger}</span>}
    </span>
  );
}
