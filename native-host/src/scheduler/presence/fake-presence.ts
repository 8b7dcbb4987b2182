import { UNKNOWN_PRESENCE, type PresenceMonitor, type PresenceState } from './presence.js';

/** A monitor tests set by hand: `set({ onBattery: true })` announces the change like a platform would. */
export class FakePresence implements PresenceMonitor {
  state: PresenceState = { ...UNKNOWN_PRESENCE, notes: [] };
  reads = 0;
  private held: Promise<void> | undefined;
  private readonly listeners = new Set<(state: PresenceState) => void>();
  private readonly sleepListeners = new Set<(sleeping: boolean) => void>();

  read(): Promise<PresenceState> {
    this.reads += 1;
    const state = { ...this.state };
    return this.held ? this.held.then(() => state) : Promise.resolve(state);
  }

  /** Reads answer only once the returned function is called (a slow D-Bus, a slow /sys). */
  hold(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.held = undefined;
      release();
    };
  }

  set(change: Partial<PresenceState>): void {
    const wasSleeping = this.state.sleeping;
    this.state = { ...this.state, ...change };
    if (change.sleeping !== undefined && change.sleeping !== wasSleeping) {
      for (const listener of this.sleepListeners) listener(change.sleeping);
    }
    for (const listener of this.listeners) listener({ ...this.state });
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
    this.listeners.clear();
    this.sleepListeners.clear();
  }
}
