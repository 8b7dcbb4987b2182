import type { DaemonEvent } from '@nextai/shared';

import type { Translate } from '../lib/i18n.js';

export function ActivityCard({ events, t }: { events: DaemonEvent[]; t: Translate }) {
  const latest = [...events].reverse().slice(0, 12);
  return (
    <section className="card" data-testid="activity-card">
      <h2>{t('activityTitle')}</h2>
      {latest.length === 0 ? (
        <p className="hint">{t('noActivity')}</p>
      ) : (
        <ol className="activity">
          {latest.map((event) => (
            <li key={event.seq} data-seq={event.seq}>
              <time>{new Date(event.time).toLocaleTimeString()}</time>
              <span className="event-type">{event.type}</span>
              <span className="event-detail">{describe(event)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function describe(event: DaemonEvent): string {
  const data = event.data;
  if (typeof data.tool === 'string') {
    const duration = typeof data.duration_ms === 'number' ? ` · ${Math.round(data.duration_ms)} ms` : '';
    const outcome = data.ok === false ? ` · ${String(data.error_code ?? 'failed')}` : '';
    return `${data.tool}${duration}${outcome}`;
  }
  if (typeof data.name === 'string') return `${String(data.kind ?? '')} ${data.name}`;
  return '';
}
