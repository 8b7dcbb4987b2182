import { useState } from 'react';

import type { PanelProps } from '../panel-props.js';
import { errorText } from './format.js';
import { ScheduleCard } from './schedule-card.js';
import { ScheduleForm } from './schedule-form.js';
import { useSchedules, type ScheduleList } from './use-schedules.js';
import type { Translate } from '../../lib/i18n.js';
import './schedules.css';

/** The Schedules tab: tasks with next and last run, history, on/off, and a form to add one. */
export function SchedulesTab(props: PanelProps) {
  const { client, state, t } = props;
  const connected = state.status === 'connected';
  const { data, error, now, reload } = useSchedules(client, connected);
  const [creating, setCreating] = useState(false);
  const schedules = data?.schedules ?? [];

  return (
    <section className="schedules" data-testid="schedules-tab" data-count={schedules.length}>
      <div className="schedules-heading">
        <div>
          <h2>
            {t('schedulesTitle')} {schedules.length > 0 && <span className="schedules-count">{schedules.length}</span>}
          </h2>
          <p className="hint">{t('schedulesIntro')}</p>
        </div>
        {!creating && (
          <button
            type="button"
            className="button-primary"
            onClick={() => setCreating(true)}
            disabled={!connected}
            data-testid="schedules-new"
          >
            + {t('schedulesNew')}
          </button>
        )}
      </div>
      {!connected && data && (
        <p className="schedules-offline" role="status">
          {t('schedulesOffline')}
        </p>
      )}
      {data && <Conditions data={data} t={t} />}
      {creating && (
        <ScheduleForm
          {...props}
          now={now}
          onDone={(created) => {
            setCreating(false);
            if (created) reload();
          }}
        />
      )}
      {error && (
        <div className="card" role="alert">
          <p className="error-text">{t('schedulesLoadFailed', { message: errorText(error, props.locale) })}</p>
          <button type="button" className="button-small" onClick={reload} disabled={!connected}>
            {t('schedulesRetry')}
          </button>
        </div>
      )}
      {!data && !error && connected && (
        <div className="card card-muted" role="status">
          <div className="spinner" aria-hidden="true" />
          <p>{t('schedulesLoading')}</p>
        </div>
      )}
      {data && schedules.length === 0 && !creating && (
        <div className="card schedules-empty" data-testid="schedules-empty">
          <div className="schedules-empty-mark" aria-hidden="true">
            <span className="schedules-clock" />
          </div>
          <h3>{t('schedulesEmptyTitle')}</h3>
          <p className="hint">{t('schedulesEmptyBody')}</p>
          <p className="hint">
            {t('schedulesEmptyTerminal')}{' '}
            <code className="schedules-code">nextai schedule add --name … --cron "0 9 * * *" --instruction "…"</code>
          </p>
        </div>
      )}
      {schedules.length > 0 && (
        <ul className="schedules-list" aria-label={t('schedulesListLabel')}>
          {schedules.map((schedule) => (
            <li key={schedule.id}>
              <ScheduleCard {...props} schedule={schedule} now={now} onChanged={reload} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Power and presence, and the heartbeat: why tasks may wait, in a line or two. */
function Conditions({ data, t }: { data: ScheduleList; t: Translate }) {
  const { heartbeat, presence } = data;
  return (
    <div className="schedules-conditions" data-testid="schedules-conditions">
      {presence.on_battery === true && <p className="schedules-condition warn">{t('schedulesPowerBattery')}</p>}
      {presence.screen_locked === true && <p className="schedules-condition warn">{t('schedulesPowerLocked')}</p>}
      <p className="schedules-condition" data-testid="schedules-heartbeat">
        <span className={`schedules-dot${heartbeat.enabled ? ' on' : ''}`} aria-hidden="true" />
        {heartbeat.enabled
          ? `${t('schedulesHeartbeat', { minutes: heartbeat.interval_minutes })} · ${
              heartbeat.open_items.length > 0
                ? t('schedulesHeartbeatOpen', { count: heartbeat.open_items.length })
                : t('schedulesHeartbeatNone')
            }`
          : t('schedulesHeartbeatOff')}
      </p>
      {heartbeat.problem && (
        <p className="schedules-condition warn" data-testid="schedules-heartbeat-problem">
          {heartbeat.problem}
        </p>
      )}
    </div>
  );
}
