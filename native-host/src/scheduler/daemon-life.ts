import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { currentPlatform } from '../core/current-platform.js';
import type { Logger } from '../core/logger.js';

/** Which boot of the machine a daemon ran in. */
export interface BootMark {
  /** Linux's boot_id: a new one at every boot. */
  id?: string;
  /** When the machine booted, as far as its uptime says (where there is no boot id). */
  bootedAt: number;
}

/**
 * What a daemon's scheduler records of its own life, for the next daemon to read: whether it
 * stopped cleanly, in which boot of the machine it ran, and whether the database could not be
 * written when it was last heard of. It is a file beside the database, not a row in it, because
 * a database that cannot be written cannot note that it cannot be.
 */
export interface DaemonLife {
  /** This life's own id: a daemon updates only the record it wrote itself. */
  life: string;
  pid: number;
  startedAt: number;
  boot: BootMark;
  /** The scheduler stopped cleanly (its runs were suspended or ended, not left going). */
  stoppedAt?: number;
  /** Writing to the database was failing (a full disk, a lock held elsewhere), since when. */
  storageFault?: { code: string; since: number };
}

/** This machine's boot, now. */
export function currentBoot(now = Date.now()): BootMark {
  const bootedAt = now - os.uptime() * 1000;
  if (currentPlatform() !== 'linux') return { bootedAt };
  try {
    const id = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? { bootedAt } : { id, bootedAt };
  } catch (error) {
    // A Linux without /proc (a locked-down container): the uptime alone tells the boot.
    void error;
    return { bootedAt };
  }
}

/**
 * How far apart two readings of one boot time may be: uptime and the wall clock are read at
 * different moments, and the wall clock may have been corrected since. A machine that restarted
 * within this long of the last daemon's start looks like the same boot (then the death is judged
 * as if it had not restarted — what it did before this record existed).
 */
const SAME_BOOT_TOLERANCE_MS = 5 * 60_000;

export function sameBoot(a: BootMark, b: BootMark): boolean {
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id;
  return Math.abs(a.bootedAt - b.bootedAt) < SAME_BOOT_TOLERANCE_MS;
}

interface LifeFile {
  life: string;
  pid: number;
  started_at: string;
  boot_id?: string;
  booted_at: string;
  stopped_at?: string;
  storage_fault?: { code: string; since: string };
}

/**
 * The record of this daemon's life in `file` (see {@link DaemonLife}). Every write goes to a new
 * file first, synced and renamed over the old one, so the record is whole or the previous one;
 * a write that fails is logged, never thrown: the scheduler runs without it, as it did before.
 */
export class LifeRecord {
  private current: DaemonLife | undefined;

  constructor(
    private readonly file: string,
    private readonly log: Logger,
  ) {}

  /** What the last daemon recorded, if a readable record is there. */
  read(): DaemonLife | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.log.warn('could not read what the last daemon recorded of its life', {
          file: this.file,
          error: (error as Error).message,
        });
      }
      return undefined;
    }
    try {
      return fromFile(JSON.parse(text) as LifeFile);
    } catch (error) {
      this.log.warn('what the last daemon recorded of its life is not readable; ignoring it', {
        file: this.file,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  /** This daemon's life begins (call after {@link read}: it replaces the last daemon's record). */
  begin(now: number, boot: BootMark): void {
    this.current = { life: randomUUID(), pid: process.pid, startedAt: now, boot };
    if (this.write(this.current)) return;
    // The last daemon's record must not be taken for this one's: with none, the next daemon
    // judges by the runs alone.
    try {
      fs.rmSync(this.file, { force: true });
    } catch (error) {
      this.log.warn('could not remove what the last daemon recorded of its life', { error: (error as Error).message });
    }
  }

  /** The scheduler stopped cleanly. */
  stopped(now: number): void {
    this.change({ stoppedAt: now });
  }

  /** Whether writing to the database fails now (undefined: it works). */
  storage(failure: { code: string; since: string } | undefined): void {
    const current = this.current?.storageFault;
    if (failure === undefined ? current === undefined : current?.code === failure.code) return;
    this.change({ storageFault: failure && { code: failure.code, since: Date.parse(failure.since) } });
  }

  private change(change: Partial<Pick<DaemonLife, 'stoppedAt' | 'storageFault'>>): void {
    if (!this.current) return;
    // Another life's record (a later daemon's, while this one's last callbacks still run) is theirs.
    if (this.read()?.life !== this.current.life) return;
    const next: DaemonLife = { ...this.current, ...change };
    if (next.storageFault === undefined) delete next.storageFault;
    this.current = next;
    this.write(next);
  }

  private write(life: DaemonLife): boolean {
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      const fd = fs.openSync(temporary, 'w', 0o600);
      try {
        fs.writeFileSync(fd, `${JSON.stringify(toFile(life))}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temporary, this.file);
      syncDirectory(path.dirname(this.file));
      return true;
    } catch (error) {
      this.log.warn('could not record the daemon’s life for the next start', {
        file: this.file,
        error: (error as Error).message,
      });
      try {
        fs.rmSync(temporary, { force: true });
      } catch (cleanup) {
        this.log.debug('could not remove a half-written life record', { error: (cleanup as Error).message });
      }
      return false;
    }
  }
}

/** Makes a rename in `dir` survive a power cut (where the OS lets a directory be synced). */
function syncDirectory(dir: string): void {
  if (currentPlatform() === 'windows') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function toFile(life: DaemonLife): LifeFile {
  const iso = (time: number) => new Date(time).toISOString();
  return {
    life: life.life,
    pid: life.pid,
    started_at: iso(life.startedAt),
    ...(life.boot.id === undefined ? {} : { boot_id: life.boot.id }),
    booted_at: iso(life.boot.bootedAt),
    ...(life.stoppedAt === undefined ? {} : { stopped_at: iso(life.stoppedAt) }),
    ...(life.storageFault
      ? { storage_fault: { code: life.storageFault.code, since: iso(life.storageFault.since) } }
      : {}),
  };
}

function fromFile(file: LifeFile): DaemonLife {
  const time = (text: unknown, what: string) => {
    const value = typeof text === 'string' ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(value)) throw new Error(`${what} is not a time`);
    return value;
  };
  if (typeof file.life !== 'string' || typeof file.pid !== 'number') throw new Error('life or pid is missing');
  const fault = file.storage_fault;
  return {
    life: file.life,
    pid: file.pid,
    startedAt: time(file.started_at, 'started_at'),
    boot: {
      ...(typeof file.boot_id === 'string' ? { id: file.boot_id } : {}),
      bootedAt: time(file.booted_at, 'booted_at'),
    },
    ...(file.stopped_at === undefined ? {} : { stoppedAt: time(file.stopped_at, 'stopped_at') }),
    ...(fault && typeof fault.code === 'string'
      ? { storageFault: { code: fault.code, since: time(fault.since, 'storage_fault.since') } }
      : {}),
  };
}
