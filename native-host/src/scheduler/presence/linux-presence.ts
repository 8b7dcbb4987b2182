import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import type { Logger } from '../../core/logger.js';
import { inheritedEnvironment, runCommand } from '../../core/subprocess.js';
import type { PresenceMonitor, PresenceState } from './presence.js';

export interface LinuxPresenceOptions {
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** Where the kernel lists power supplies (tests point it at a fake tree). */
  powerSupplyDir?: string;
  /** Runs a helper program and returns its stdout (tests replace it). */
  run?: (command: string, args: string[]) => Promise<string>;
  /** Starts the long-running D-Bus watcher, or returns undefined (tests pass a fake process or none). */
  startWatcher?: () => ChildProcess | undefined;
  now?: () => number;
  /** How long a reading is reused (default 60 s on mains power, three times that on battery). */
  ttlMs?: number;
}

/**
 * Power and presence on Linux:
 * - battery: `/sys/class/power_supply/*` — a `Mains` supply online means mains power; otherwise a
 *   `Battery` whose status is Discharging means on battery (no battery at all: a desktop);
 * - screen locked: logind's `LockedHint` for the session (`loginctl show-session`), and a monitor
 *   switched off by DPMS (`xset q`) counts as locked too;
 * - sleep: logind's `PrepareForSleep` signal, watched with `gdbus monitor` on the system bus; a
 *   session's Lock/Unlock signals and property changes also trigger a fresh reading.
 * Anything that cannot be read (a container without logind, no X server, no gdbus) becomes a note
 * and counts as "mains power, unlocked, awake" — tasks are then never held back by guesswork.
 */
export class LinuxPresence implements PresenceMonitor {
  private cached: { at: number; state: PresenceState } | undefined;
  private sleeping = false;
  private readonly listeners = new Set<(state: PresenceState) => void>();
  private readonly sleepListeners = new Set<(sleeping: boolean) => void>();
  private watcher: ChildProcess | undefined;
  private watcherNote: string | undefined;
  private closed = false;
  private readonly env: NodeJS.ProcessEnv;
  private readonly powerSupplyDir: string;
  private readonly run: (command: string, args: string[]) => Promise<string>;
  private readonly now: () => number;

  constructor(private readonly options: LinuxPresenceOptions) {
    this.env = options.env ?? process.env;
    this.powerSupplyDir = options.powerSupplyDir ?? '/sys/class/power_supply';
    this.run = options.run ?? (async (command, args) => (await runCommand(command, args, { timeoutMs: 3000 })).stdout);
    this.now = options.now ?? (() => Date.now());
    this.startWatching();
  }

  async read(): Promise<PresenceState> {
    const now = this.now();
    if (this.cached) {
      const ttl = (this.options.ttlMs ?? 60_000) * (this.cached.state.onBattery ? 3 : 1);
      // A reading from "the future" is one from before the clock was set back: read again, rather
      // than reuse it until the clock catches up (an hour of "on mains" while on battery).
      const age = now - this.cached.at;
      if (age >= 0 && age < ttl) return { ...this.cached.state, sleeping: this.sleeping };
    }
    const notes: string[] = [];
    const battery = this.readBattery(notes);
    const screenLocked = await this.readScreenLocked(notes);
    if (this.watcherNote) notes.push(this.watcherNote);
    const state: PresenceState = { ...battery, screenLocked, sleeping: this.sleeping, notes };
    this.cached = { at: now, state };
    return state;
  }

  onChange(listener: (state: PresenceState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onSleep(listener: (sleeping: boolean) => void): () => void {
    this.sleepListeners.add(listener);
    return () => this.sleepListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.watcher?.kill();
    this.watcher = undefined;
    this.listeners.clear();
    this.sleepListeners.clear();
  }

  /** One line of `gdbus monitor` output (exposed for tests). */
  handleSignalLine(line: string): void {
    const sleep = /PrepareForSleep \((true|false),?\)/u.exec(line);
    if (sleep) {
      this.sleeping = sleep[1] === 'true';
      this.cached = undefined;
      for (const listener of this.sleepListeners) listener(this.sleeping);
      return;
    }
    if (/\.Session\.(Lock|Unlock) \(\)|LockedHint|PrepareForShutdown/u.test(line)) {
      this.cached = undefined;
      void this.read().then((state) => {
        for (const listener of this.listeners) listener(state);
      });
    }
  }

  private readBattery(notes: string[]): Pick<PresenceState, 'onBattery' | 'batteryPercent'> {
    let entries: string[];
    try {
      entries = fs.readdirSync(this.powerSupplyDir);
    } catch (error) {
      notes.push(
        `battery: ${this.powerSupplyDir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return { onBattery: null, batteryPercent: null };
    }
    let mainsOnline = false;
    let batteries = 0;
    let discharging = false;
    let percent: number | null = null;
    for (const entry of entries) {
      const read = (name: string) => readText(path.join(this.powerSupplyDir, entry, name));
      const type = read('type');
      if (type === 'Mains' && read('online') === '1') mainsOnline = true;
      if (type === 'Battery') {
        batteries += 1;
        if (read('status') === 'Discharging') discharging = true;
        const capacity = Number(read('capacity'));
        if (Number.isFinite(capacity) && read('capacity') !== undefined) percent = capacity;
      }
    }
    if (batteries === 0) return { onBattery: null, batteryPercent: null };
    return { onBattery: !mainsOnline && discharging, batteryPercent: percent };
  }

  private async readScreenLocked(notes: string[]): Promise<boolean | null> {
    let locked: boolean | null = null;
    try {
      const session = this.env.XDG_SESSION_ID?.trim() || (await this.graphicalSession());
      if (session) {
        const hint = (await this.run('loginctl', ['show-session', session, '-p', 'LockedHint', '--value'])).trim();
        locked = hint === 'yes';
      } else {
        notes.push('screen lock: no login session found (loginctl show-user lists none)');
      }
    } catch (error) {
      notes.push(`screen lock: ${(error as Error).message.split('\n')[0]}`);
    }
    if (this.env.DISPLAY) {
      try {
        const monitor = /Monitor is (On|Off|Standby|Suspend|in Standby|in Suspend)/u.exec(
          await this.run('xset', ['-display', this.env.DISPLAY, 'q']),
        )?.[1];
        if (monitor !== undefined && monitor !== 'On') locked = true;
        else locked ??= false;
      } catch (error) {
        notes.push(`screen power: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    return locked;
  }

  private async graphicalSession(): Promise<string | undefined> {
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (uid === undefined) return undefined;
    const display = (await this.run('loginctl', ['show-user', String(uid), '-p', 'Display', '--value'])).trim();
    return display === '' ? undefined : display;
  }

  private startWatching(): void {
    const start =
      this.options.startWatcher ??
      (() =>
        spawn('gdbus', ['monitor', '--system', '--dest', 'org.freedesktop.login1'], {
          env: inheritedEnvironment(),
          stdio: ['ignore', 'pipe', 'pipe'],
        }));
    let child: ChildProcess | undefined;
    try {
      child = start();
    } catch (error) {
      this.watcherNote = `sleep signals: ${(error as Error).message}`;
      return;
    }
    if (!child) {
      this.watcherNote = 'sleep signals: not watched';
      return;
    }
    this.watcher = child;
    // The watcher must not keep the daemon alive, nor its pipes.
    child.unref();
    let buffer = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) this.handleSignalLine(line);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.watcherNote =
        error.code === 'ENOENT'
          ? 'sleep signals: gdbus is not installed (on Debian/Ubuntu: sudo apt install libglib2.0-bin)'
          : `sleep signals: ${error.message}`;
      this.options.log.info('not watching for sleep and lock signals', { reason: this.watcherNote });
    });
    child.on('exit', (code) => {
      if (this.closed) return;
      // No system bus (a container) or no logind: say so once; runs after a wake are still caught
      // up, because the scheduler never sleeps longer than a minute.
      this.watcherNote = `sleep signals: gdbus monitor exited (${code ?? 'signal'}): ${stderr.trim().split('\n')[0] ?? ''}`;
      this.options.log.info('not watching for sleep and lock signals', { reason: this.watcherNote });
      this.watcher = undefined;
    });
    (child.stdout as { unref?: () => void } | null)?.unref?.();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    // A supply without that attribute (not every driver has `capacity`).
    return undefined;
  }
}
