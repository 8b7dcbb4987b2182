import { Cron } from 'croner';
import cronstrue from 'cronstrue/i18n.js';

import { AppError, say } from '@nextai/shared';

import { CronCounter } from './cron-count.js';

/**
 * Cron expressions in a time zone, parsed and stepped by croner (Vixie-cron semantics, DST-aware:
 * a time skipped by a spring-forward change runs at the first valid time after it; a time that
 * occurs twice at fall-back runs once) and put into words by cronstrue, in English and Chinese.
 * Only five fields (minute precision) or the @hourly… nicknames: a per-second task is not a thing
 * a person schedules, and the scheduler's precision goal is a second.
 */
export class CronSchedule {
  private counter: CronCounter | undefined;

  private constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly cron: Cron,
  ) {}

  /** Parses `expression` in `timezone`; an invalid one is an INVALID_ARGUMENT that says why. */
  static parse(expression: string, timezone: string): CronSchedule {
    const zone = checkTimeZone(timezone);
    const text = expression.trim().replace(/\s+/g, ' ');
    let cron: Cron;
    try {
      cron = new Cron(text, { mode: '5-part', timezone: zone, paused: true });
      // Some invalid patterns (a 30th of February) only show when stepped.
      cron.nextRun(new Date(0));
    } catch (error) {
      const why = cleanMessage((error as Error).message);
      throw new AppError(
        'INVALID_ARGUMENT',
        say(
          `"${expression}" is not a valid cron expression: ${why}. ` +
            'Use five fields — minute hour day-of-month month day-of-week — such as "0 9 * * 1-5" ' +
            '(09:00 on weekdays), or @hourly, @daily, @weekly, @monthly.',
          `"${expression}"不是有效的 cron 表达式：${why}。请使用五个字段——分 时 日 月 星期——例如 "0 9 * * 1-5"（工作日 09:00），或 @hourly、@daily、@weekly、@monthly。`,
        ),
        { cause: error, details: { cron: expression } },
      );
    }
    return new CronSchedule(text, zone, cron);
  }

  /** The first cron time strictly after `after`, or null when there is none (a date in the past). */
  next(after: number): number | null {
    return this.cron.nextRun(new Date(after))?.getTime() ?? null;
  }

  /** The latest cron time at or before `time`, or null. */
  latestAtOrBefore(time: number): number | null {
    // croner counts a run earlier in the same second as the reference; 1 ms later includes `time` itself.
    const previous = this.cron.previousRuns(1, new Date(time + 1))[0]?.getTime();
    return previous !== undefined && previous <= time ? previous : null;
  }

  /** Cron times in (after, until], oldest first, at most `limit` of them. */
  between(after: number, until: number, limit: number): number[] {
    const times: number[] = [];
    let cursor = after;
    while (times.length < limit) {
      const next = this.next(cursor);
      if (next === null || next > until) break;
      times.push(next);
      cursor = next;
    }
    return times;
  }

  /** How many cron times there are in (after, until], counted without stepping through each (see cron-count.ts). */
  count(after: number, until: number): number {
    this.counter ??= new CronCounter(this, CronSchedule.parse('0 0 * * *', this.timezone));
    return this.counter.count(after, until);
  }

  /** The last `limit` cron times in (after, until], oldest first. */
  recent(after: number, until: number, limit: number): number[] {
    if (limit <= 0) return [];
    // As in latestAtOrBefore: 1 ms after `until` includes `until` itself.
    return this.cron
      .previousRuns(limit, new Date(until + 1))
      .map((date) => date.getTime())
      .filter((time) => time > after && time <= until)
      .sort((a, b) => a - b);
  }

  describe(): { en: string; 'zh-CN': string } {
    return describeCron(this.expression);
  }
}

/** The expression in words, e.g. "At 09:00, Monday through Friday" / "在09:00, 星期一至星期五". */
export function describeCron(expression: string): { en: string; 'zh-CN': string } {
  const say = (locale: string) => {
    try {
      return cronstrue.toString(expression, { locale, use24HourTimeFormat: true, verbose: false });
    } catch (error) {
      // cronstrue reads a few forms croner accepts differently; the expression itself still says it.
      return `${expression} (${(error as Error).message})`;
    }
  };
  return { en: say('en'), 'zh-CN': say('zh_CN') };
}

/** The IANA zone name as given, if this runtime knows it; otherwise an INVALID_ARGUMENT. */
export function checkTimeZone(timezone: string): string {
  const zone = timezone.trim();
  if (knownZones.has(zone)) return zone;
  try {
    // Throws a RangeError for a zone the runtime's time zone data does not have.
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    knownZones.add(zone);
    return zone;
  } catch (error) {
    throw new AppError(
      'INVALID_ARGUMENT',
      say(
        `"${timezone}" is not a time zone this computer knows. Use an IANA name such as "Asia/Shanghai", ` +
          '"Europe/Berlin", "America/New_York" or "UTC".',
        `"${timezone}"不是这台电脑认识的时区。请使用 IANA 名称，例如 "Asia/Shanghai"、"Europe/Berlin"、"America/New_York" 或 "UTC"。`,
      ),
      { cause: error, details: { timezone } },
    );
  }
}

/** The daemon's own time zone (what a task without `--tz` uses). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The calendar day (YYYY-MM-DD) of an instant in a zone: the per-day cost cap counts by it. */
export function dayIn(time: number, timezone: string): string {
  let format = dayFormats.get(timezone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD. Building a format is slow; a due minute asks for hundreds.
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(timezone, format);
  }
  return format.format(new Date(time));
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** Zones already checked (building a format to check one is slow). */
const knownZones = new Set<string>();

function cleanMessage(message: string): string {
  return message.replace(/^CronPattern:\s*/u, '').replace(/\.$/u, '');
}
