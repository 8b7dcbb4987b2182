import { randomUUID } from 'node:crypto';

import {
  AppError,
  EVENT_DATA_SCHEMAS,
  describeZodError,
  say,
  type DaemonEvent,
  type EventData,
  type EventType,
} from '@nextai/shared';

import type { Db } from './database.js';
import { storageHealth, type StorageHealth } from './storage-health.js';
import { asStorageError } from './storage-writes.js';

export interface EventLogOptions {
  /** Events kept after pruning; older ones can no longer be replayed (subscribers see a gap). */
  retain: number;
  /** Most events replayed to one subscriber; beyond that it is told there is a gap. */
  maxReplay: number;
}

export type EventListener = (event: DaemonEvent) => void;

/** Bookkeeping events kept in memory at most while the database cannot be written; older ones go first. */
const MAX_DEFERRED = 1000;

interface DeferredEvent {
  type: EventType;
  time: string;
  data: Record<string, unknown>;
  /** Listeners heard it already (announce): written without telling them again. */
  told?: boolean;
}

interface EventRow {
  seq: number;
  type: string;
  time: string;
  data: string;
}

/**
 * The daemon's append-only event log in SQLite. `seq` is an AUTOINCREMENT key: it only grows,
 * even across pruning and restarts, so "everything after seq N" is always well defined.
 *
 * Two ways in. `append` is for what someone asked for (a run's step, an approval, a change of
 * settings): when the database cannot be written it throws STORAGE_ERROR to them. `record` is
 * for the daemon's own bookkeeping (a client came or went, the power changed): it never throws —
 * while the database cannot be written the event waits in memory and is written, in order, with
 * its original time, as soon as writing works again (listeners hear it then, with its seq).
 * `announce` is for what listeners must hear now even when it cannot be written (see there).
 */
export class EventLog {
  readonly logId: string;
  /** Whether the database can be written (shared with everything else writing to it). */
  readonly health: StorageHealth;
  private readonly listeners = new Set<EventListener>();
  private readonly insert;
  private readonly selectLatestAfter;
  private readonly countAfter;
  private appendsSincePrune = 0;
  /** The seq of the newest event written (what an event told before it is written carries). */
  private lastWritten: number;
  private readonly deferred: DeferredEvent[] = [];
  private droppedWhileFailing = 0;

  constructor(
    private readonly db: Db,
    private readonly options: EventLogOptions = { retain: 50_000, maxReplay: 5_000 },
  ) {
    this.health = storageHealth(db);
    this.health.onRecovered(() => this.writeDeferred());
    this.logId = this.loadOrCreateLogId();
    this.insert = db.prepare<[string, string, string]>('INSERT INTO events (type, time, data) VALUES (?, ?, ?)');
    // The most recent `limit` events after a seq, oldest first.
    this.selectLatestAfter = db.prepare<[number, number], EventRow>(
      'SELECT * FROM (SELECT seq, type, time, data FROM events WHERE seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
    );
    this.countAfter = db.prepare<[number], number>('SELECT COUNT(*) FROM events WHERE seq > ?').pluck();
    this.lastWritten = this.lastSeq();
  }

  /**
   * Writes an event someone's request caused and tells the listeners. When the database cannot
   * be written, throws STORAGE_ERROR (the request fails with the reason; nothing is kept).
   */
  append<T extends EventType>(type: T, data: EventData<T>): DaemonEvent {
    const parsed = this.parse(type, data);
    // Bookkeeping that waited is written first, so the log keeps the order things happened in
    // (not inside a caller's transaction, which could still be rolled back).
    if (this.deferred.length > 0 && !this.health.failing && !this.db.inTransaction) this.writeDeferred();
    let event: DaemonEvent;
    try {
      event = this.write(type, new Date().toISOString(), parsed);
    } catch (error) {
      throw asStorageError(this.db, say('this change', '这项更改'), error);
    }
    this.notify(event);
    return event;
  }

  /**
   * Writes an event of the daemon's own bookkeeping (nobody waits on it) and never throws: while
   * the database cannot be written it is kept in memory (the newest {@link MAX_DEFERRED}) and
   * written once writing works again. Returns the event when it was written now.
   */
  record<T extends EventType>(type: T, data: EventData<T>): DaemonEvent | undefined {
    try {
      const parsed = this.parse(type, data);
      const time = new Date().toISOString();
      // While writes fail (or earlier events still wait) it is not tried: a held lock would stall
      // the daemon for the busy timeout at every event.
      if (this.health.failing || this.deferred.length > 0) {
        this.defer({ type, time, data: parsed });
        return undefined;
      }
      let event: DaemonEvent;
      try {
        event = this.write(type, time, parsed);
      } catch (error) {
        if (!this.health.noteFailure(error)) throw error;
        this.defer({ type, time, data: parsed });
        return undefined;
      }
      this.notifyQuietly(event);
      return event;
    } catch (error) {
      this.health.log?.error('could not record an event; it is dropped', {
        type,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  /**
   * An event listeners must hear now whether or not it can be written: writing stopped working
   * (which cannot be written, by definition), a policy now in force that ends the terminals it no
   * longer allows. Written and told like {@link record} when the database can be written.
   * Otherwise it is told at once — not in the log yet, so it carries the seq of the newest event
   * that is, and a client that reconnects later does not get it replayed — and written, without
   * telling anyone again, once writing works. Never throws.
   */
  announce<T extends EventType>(type: T, data: EventData<T>): DaemonEvent | undefined {
    try {
      const parsed = this.parse(type, data);
      const time = new Date().toISOString();
      if (!this.health.failing && this.deferred.length === 0) {
        try {
          const event = this.write(type, time, parsed);
          this.notifyQuietly(event);
          return event;
        } catch (error) {
          if (!this.health.noteFailure(error)) throw error;
        }
      }
      this.defer({ type, time, data: parsed, told: true });
      // A seq must be positive on the wire; a log with nothing written yet has none to lend.
      const event: DaemonEvent = { seq: Math.max(1, this.newestWrittenSeq()), type, time, data: parsed };
      this.notifyQuietly(event);
      return event;
    } catch (error) {
      this.health.log?.error('could not announce an event', { type, error: (error as Error).message });
      return undefined;
    }
  }

  /** Bookkeeping events waiting in memory for the database to be writable again. */
  get deferredCount(): number {
    return this.deferred.length;
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

  private parse<T extends EventType>(type: T, data: EventData<T>): Record<string, unknown> {
    const parsed = EVENT_DATA_SCHEMAS[type].safeParse(data);
    if (!parsed.success) {
      throw new AppError('INTERNAL', `Event "${type}" has invalid data: ${describeZodError(parsed.error)}`);
    }
    return parsed.data as Record<string, unknown>;
  }

  /** Inserts one event; a write that works tells the health so (writing works again). */
  private write(type: EventType, time: string, data: Record<string, unknown>): DaemonEvent {
    const info = this.insert.run(type, time, JSON.stringify(data));
    this.lastWritten = Number(info.lastInsertRowid);
    this.health.noteSuccess();
    if (++this.appendsSincePrune >= 1000) {
      try {
        this.prune();
      } catch (error) {
        // Pruning waits for the next thousand events; the event itself is written.
        if (!this.health.noteFailure(error)) throw error;
      }
    }
    return { seq: Number(info.lastInsertRowid), type, time, data };
  }

  private notify(event: DaemonEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** For events nobody's request waits on: a listener that throws is logged, not passed on. */
  private notifyQuietly(event: DaemonEvent): void {
    try {
      this.notify(event);
    } catch (error) {
      this.health.log?.error('a listener of a recorded event failed', {
        type: event.type,
        error: (error as Error).message,
      });
    }
  }

  private defer(event: DeferredEvent): void {
    this.deferred.push(event);
    if (this.deferred.length > MAX_DEFERRED) {
      this.deferred.shift();
      if (this.droppedWhileFailing++ === 0) {
        this.health.log?.warn('too many events wait for the database; the oldest are dropped', {
          kept: MAX_DEFERRED,
        });
      }
    }
  }

  /** Writes the bookkeeping events that waited, oldest first; stops at the first that still cannot be. */
  private writeDeferred(): void {
    if (!this.db.open) return;
    while (this.deferred.length > 0) {
      const next = this.deferred[0] as DeferredEvent;
      let event: DaemonEvent;
      try {
        event = this.write(next.type, next.time, next.data);
      } catch (error) {
        if (this.health.noteFailure(error)) return;
        this.health.log?.error('could not write an event that waited; it is dropped', {
          type: next.type,
          error: (error as Error).message,
        });
        this.deferred.shift();
        continue;
      }
      this.deferred.shift();
      if (!next.told) this.notifyQuietly(event);
    }
    if (this.droppedWhileFailing > 0) {
      this.health.log?.warn('events were dropped while the database could not be written', {
        dropped: this.droppedWhileFailing,
      });
      this.droppedWhileFailing = 0;
    }
  }

  /** The log's last seq, or the last this object wrote when even reading fails (a failing disk). */
  private newestWrittenSeq(): number {
    try {
      return this.lastSeq();
    } catch {
      return this.lastWritten;
    }
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
