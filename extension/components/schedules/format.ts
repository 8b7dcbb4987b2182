import { inLocale, toAppError, type Locale, type ScheduleRunView } from '@nextai/shared';

import type { MessageKey, Translate } from '../../lib/i18n.js';

/** A time as the person reads it: "in 5 min · Tue 09:00" or "3 h ago · Mon 18:30". */
export function whenText(iso: string, now: number, locale: string): string {
  const time = Date.parse(iso);
  const relative = relativeText(time - now, locale);
  const sameDay = new Date(time).toDateString() === new Date(now).toDateString();
  const absolute = new Intl.DateTimeFormat(locale, {
    ...(sameDay ? {} : { weekday: 'short', month: 'short', day: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  }).format(time);
  return `${relative} · ${absolute}`;
}

function relativeText(deltaMs: number, locale: string): string {
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
  const minutes = Math.round(deltaMs / 60_000);
  if (Math.abs(minutes) < 1) return format.format(Math.round(deltaMs / 1000), 'second');
  if (Math.abs(minutes) < 60) return format.format(minutes, 'minute');
  const hours = Math.round(deltaMs / 3_600_000);
  if (Math.abs(hours) < 48) return format.format(hours, 'hour');
  return format.format(Math.round(deltaMs / 86_400_000), 'day');
}

const OUTCOME_KEYS: Record<string, MessageKey> = {
  succeeded: 'outcomeSucceeded',
  failed: 'outcomeFailed',
  timed_out: 'outcomeTimedOut',
  stopped: 'outcomeStopped',
  denied: 'outcomeDenied',
  blocked: 'outcomeBlocked',
  limit_reached: 'outcomeLimitReached',
  crashed: 'outcomeCrashed',
  interrupted: 'outcomeInterrupted',
  skipped: 'outcomeSkipped',
  running: 'outcomeRunning',
  waiting_approval: 'outcomeWaitingApproval',
  waiting_user: 'outcomeWaitingUser',
};

/** How a run went (or where it is), in words, and the tone of its badge. */
export function outcomeOf(run: ScheduleRunView, t: Translate): { text: string; tone: 'ok' | 'bad' | 'muted' | 'busy' } {
  const key = run.outcome ?? run.state;
  const text = t(OUTCOME_KEYS[key] ?? 'outcomeRunning');
  if (run.outcome === 'succeeded') return { text, tone: 'ok' };
  if (run.outcome === 'skipped' || run.outcome === 'stopped' || run.outcome === 'interrupted')
    return { text, tone: 'muted' };
  if (run.outcome === null) return { text, tone: 'busy' };
  return { text, tone: 'bad' };
}

/** "caught up", "retry #2", "run by hand" — nothing for an ordinary cron run. */
export function triggerText(run: ScheduleRunView, t: Translate): string | undefined {
  if (run.trigger === 'catch_up') return t('triggerCatchUp');
  if (run.trigger === 'retry') return t('triggerRetry', { attempt: run.attempt });
  if (run.trigger === 'manual') return t('triggerManual');
  return undefined;
}

/** The tools named in a comma- or space-separated list. */
export function toolList(text: string): string[] {
  return text
    .split(/[\s,，]+/u)
    .map((tool) => tool.trim())
    .filter((tool) => tool !== '');
}

/** The browser's time zone, for a new task's default. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** An error from the daemon in the panel's language (it sends its refusals in both). */
export function errorText(error: unknown, locale: Locale): string {
  const appError = toAppError(error);
  return inLocale(appError.message, appError.translations, locale);
}
