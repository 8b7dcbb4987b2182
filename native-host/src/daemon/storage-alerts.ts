import path from 'node:path';

import { say, type Locale, type Localized, type StorageHealthReport } from '@nextai/shared';

import { durably } from '../agent/run-store.js';
import { environmentLocale } from '../core/locale.js';
import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import type { NotificationAdapter, Urgency } from '../platform/desktop.js';
import { deliverNotification } from '../platform/notify.js';
import { parseConfigJson, readConfigFile } from '../policy/config-file.js';
import type { Db } from '../storage/database.js';
import { databaseFile } from '../storage/database-file.js';
import type { EventLog } from '../storage/event-log.js';
import type { NetworkFileSystem } from '../storage/network-file-system.js';
import type { StorageFailure } from '../storage/storage-health.js';
import { describeProblem, problemOf, storageHealthReport } from '../storage/storage-problem.js';
import { requireWritable, storageWrite } from '../storage/storage-writes.js';

/** What the alerts follow: the database's write health (storage-health.ts). */
export interface HealthSource {
  readonly failing: StorageFailure | undefined;
  onChange(listener: () => void): () => void;
}

export interface StorageAlertsOptions {
  health: HealthSource;
  /** The database file; its folder is the data folder people are told to look at. */
  file: string;
  /** Tells the clients (the `storage.health` event); must not throw. */
  announce: (report: StorageHealthReport) => void;
  /** Shows an OS notification; says whether it was shown instead of throwing. */
  notify: (title: string, body: string, urgency: Urgency) => Promise<{ delivered: boolean; reason?: string }>;
  /** The language notifications are written in. */
  locale: () => Locale;
  log?: Logger | undefined;
  now?: () => number;
  /** How long after a notification of a problem the same problem is not notified again. */
  quietMs?: number;
  /** The network file system the data folder is on, said in every report (network-file-system.ts). */
  network?: NetworkFileSystem | undefined;
}

/**
 * A lock that comes and goes (a backup tool every few minutes) would otherwise notify twice a
 * minute; the panel's banner and `nextai status` still follow every change.
 */
const DEFAULT_QUIET_MS = 15 * 60_000;

/**
 * Says when the database stops taking writes and when it takes them again: a `storage.health`
 * event at each change (the side panel's banner follows it) and an OS notification — one per
 * episode, not one per failed write, and none for the same problem again within `quietMs`; the
 * "works again" notification only follows a problem that was notified. `report()` is the state
 * `daemon.status` gives.
 */
export class StorageAlerts {
  /** The failure clients were last told of (undefined: told it works). */
  private told: StorageFailure | undefined;
  /** The current episode was notified, so its end is too. */
  private episodeNotified = false;
  private lastNotice: { problem: string; at: number } | undefined;
  private readonly unsubscribe: () => void;
  /** Notifications on their way. */
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly options: StorageAlertsOptions) {
    this.unsubscribe = options.health.onChange(() => this.update());
    // A database already failing when the alerts start (the daemon's first writes failed).
    if (options.health.failing) this.update();
  }

  report(): StorageHealthReport {
    return storageHealthReport(this.options.health.failing, this.options.file, this.options.network);
  }

  /** Settles once the notifications on their way now were shown or given up (before the daemon exits). */
  async notified(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  close(): void {
    this.unsubscribe();
  }

  private update(): void {
    const now = this.options.health.failing;
    const before = this.told;
    if (now?.since === before?.since) return;
    this.told = now;
    if (now) this.failing(now);
    else if (before) this.recovered(before);
  }

  private failing(failure: StorageFailure): void {
    const report = this.report();
    this.options.announce(report);
    const problem = problemOf(failure.code);
    const at = (this.options.now ?? Date.now)();
    const quiet = this.options.quietMs ?? DEFAULT_QUIET_MS;
    this.episodeNotified = !(this.lastNotice?.problem === problem && at - this.lastNotice.at < quiet);
    if (!this.episodeNotified) return;
    this.lastNotice = { problem, at };
    const { message, fix } = describeProblem(problem, path.dirname(this.options.file), this.options.file);
    this.send(
      problem === 'replaced'
        ? say('NextAI Agent restarts: its database was replaced', 'NextAI Agent 正在重启：数据库被替换了')
        : say('NextAI Agent cannot save', 'NextAI Agent 无法保存'),
      say(`${message.en} ${fix.en}`, `${message['zh-CN']}${fix['zh-CN']}`),
      'critical',
    );
  }

  private recovered(failure: StorageFailure): void {
    const problem = problemOf(failure.code);
    this.options.announce({
      ...this.report(),
      recovered_from: { problem, code: failure.code, since: failure.since },
    });
    if (!this.episodeNotified) return;
    this.episodeNotified = false;
    const dir = path.dirname(this.options.file);
    this.send(
      say('NextAI Agent can save again', 'NextAI Agent 已恢复保存'),
      say(
        `Writing to ${dir} works again: what waited is saved, and runs that waited go on.`,
        `${dir} 已可再次写入：等待中的内容已保存，等待的任务会继续。`,
      ),
      'normal',
    );
  }

  private send(title: Localized, body: Localized, urgency: Urgency): void {
    const locale = this.options.locale();
    const sending: Promise<void> = this.options
      .notify(title[locale], body[locale], urgency)
      .then((sent) => {
        if (!sent.delivered) {
          this.options.log?.warn('could not show the storage notification', { reason: sent.reason });
        }
      })
      .catch((error: unknown) =>
        this.options.log?.warn('could not show the storage notification', { error: (error as Error).message }),
      )
      .finally(() => this.sending.delete(sending));
    this.sending.add(sending);
  }
}

/**
 * The language of the daemon's notifications: the side panel's choice in config.json (`ui.language`)
 * when it made one, else the daemon's environment.
 */
export function notificationLocale(
  configFile: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Locale {
  const read = readConfigFile(configFile);
  if (read.kind === 'read') {
    const parsed = parseConfigJson(read.text, configFile);
    const ui = parsed.ok ? (parsed.value as { ui?: { language?: unknown } } | null)?.ui : undefined;
    if (ui?.language === 'en' || ui?.language === 'zh-CN') return ui.language;
  }
  return environmentLocale(env);
}

/** What the daemon's handlers use of its storage's health (DaemonServices.storage). */
export interface DaemonStorage {
  /** Whether the database can be written, and when not why and what to do (`daemon.status`). */
  report(): StorageHealthReport;
  /**
   * `write` as one durable write transaction; refused whole, with a STORAGE_ERROR saying that
   * `what` was not saved and why, when the database cannot be written.
   */
  write<T>(what: Localized, write: () => T): T;
  /** Refuses (STORAGE_ERROR) while the database is known not to take writes: before a change that must be recorded. */
  requireWritable(what: Localized): void;
  /** Settles once the storage notifications on their way were shown (or given up). */
  notified(): Promise<void>;
}

/** The daemon's storage alerts and guarded writes, wired to its database, event log and desktop. */
export function watchStorage(options: {
  db: Db;
  events: EventLog;
  paths: DataPaths;
  notifications: NotificationAdapter;
  log: Logger;
}): DaemonStorage {
  const { db, events, paths } = options;
  const followed = databaseFile(db);
  const alerts = new StorageAlerts({
    health: events.health,
    file: paths.database,
    network: followed?.network,
    announce: (report) => void events.announce('storage.health', report),
    notify: (title, body, urgency) => deliverNotification(options.notifications, title, body, urgency),
    locale: () => notificationLocale(paths.configFile),
    log: options.log,
  });
  return {
    // A status asked for looks at the database file first: a replaced one is said at once.
    report: () => {
      followed?.check();
      return alerts.report();
    },
    notified: () => alerts.notified(),
    write: (what, write) => durably(db, () => storageWrite(db, what, write)),
    requireWritable: (what) => requireWritable(db, what),
  };
}
