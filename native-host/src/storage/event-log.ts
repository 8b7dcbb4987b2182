import { randomUUID } from 'node:crypto';

import {
  AppError,
  EVENT_DATA_SCHEMAS,
  describeZodError,
  type DaemonEvent,
  type EventData,
  type EventType,
} from '@nextai/shared';

import type { Db } from './database.js';

export interface EventLogOptions {
  /** Events kept after pruning; older ones can no longer be replayed (subscribers see a gap). */
  retain: number;
  /** Most events replayed to one subscriber; beyond that it is told there is a gap. */
  maxReplay: number;
}

export type EventListener = (event: DaemonEvent) => void;

interface EventRow {
  seq: number;
  type: string;
  time: string;
  data: string;
}

/**
 * The daemon's append-only event log in SQLite. `seq` is an AUTOINCREMENT key: it only grows,
 * even across pruning and restarts, so "everything after seq N" is always well defined.
 */
export class EventLog {
  readonly logId: string;
  private readonly listeners = new Set<EventListener>();
  private readonly insert;
  private readonly selectLatestAfter;
  private readonly countAfter;
  private appendsSincePrune = 0;

  constructor(
    private readonly db: Db,
    private readonly options: EventLogOptions = { retain: 50_000, maxReplay: 5_000 },
  ) {
    this.logId = this.loadOrCreateLogId();
    this.insert = db.prepare<[string, string, string]>('INSERT INTO events (type, time, data) VALUES (?, ?, ?)');
    // The most recent `limit` events after a seq, oldest first.
    this.selectLatestAfter = db.prepare<[number, number], EventRow>(
      'SELECT * FROM (SELECT seq, type, time, data FROM events WHERE seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
    );
    this.countAfter = db.prepare<[number], number>('SELECT COUNT(*) FROM events WHERE seq > ?').pluck();
  }

  append<T extends EventType>(type: T, data: EventData<T>): DaemonEvent {
    const parsed = EVENT_DATA_SCHEMAS[type].safeParse(data);
    if (!parsed.success) {
      throw new AppError('INTERNAL', `Event "${type}" has invalid data: ${describeZodError(parsed.error)}`);
    }
    const time = new Date().toISOString();
    const info = this.insert.run(type, time, JSON.stringify(parsed.data));
    const event: DaemonEvent = { seq: Number(info.lastInsertRowid), type, time, data: parsed.data };
    if (++this.appendsSincePrune >= 1000) this.prune();
    for (const listener of this.listeners) listener(event);
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  lastSeq(): number {
    const row = this.db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get('events') as
      { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /**
   * What a client that last saw `afterSeq` of log `logId` has missed. `gap` means the answer is
   * incomplete and the client should refresh rather than patch its state.
   */
  missedSince(afterSeq: number, logId: string | undefined): { events: DaemonEvent[]; gap: boolean } {
    const sameLog = logId === undefined || logId === this.logId;
    const from = sameLog ? afterSeq : 0;
    const oldest = this.oldestSeq();
    const last = this.lastSeq();
    // Pruned past what the client saw, or the client saw more than this log ever had.
    const pruned = oldest !== undefined && from < oldest - 1;
    const tooMany = (this.countAfter.get(from) ?? 0) > this.options.maxReplay;
    const rows = this.selectLatestAfter.all(from, this.options.maxReplay);
    return { events: rows.map(rowToEvent), gap: !sameLog || from > last || pruned || tooMany };
  }

  prune(): void {
    this.appendsSincePrune = 0;
    this.db.prepare('DELETE FROM events WHERE seq <= ?').run(this.lastSeq() - this.options.retain);
  }

  private oldestSeq(): number | undefined {
    const row = this.db.prepare('SELECT MIN(seq) AS seq FROM events').get() as { seq: number | null };
    return row.seq ?? undefined;
  }

  private loadOrCreateLogId(): string {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'event_log_id'").get() as
      { value: string } | undefined;
    if (row) return row.value;
    const id = randomUUID();
    this.db.prepare("INSERT INTO meta (key, value) VALUES ('event_log_id', ?)").run(id);
    return id;
  }
}

function rowToEvent(row: EventRow): DaemonEvent {
  return { seq: row.seq, type: row.type, time: row.time, data: JSON.parse(row.data) as Record<string, unknown> };
}
