/**
 * Power and presence: whether the machine runs on battery, whether the person's
 * screen is locked or off, and whether it is about to sleep. The scheduler reads it when something
 * is due and defers what should wait; the platform tells it about changes when it can.
 */
export interface PresenceState {
  /** null: no battery, or it cannot be read (counts as mains power). */
  onBattery: boolean | null;
  batteryPercent: number | null;
  /** null: cannot be told (counts as unlocked). Includes a screen switched off by power saving. */
  screenLocked: boolean | null;
  /** Between "about to sleep" and "woke up". */
  sleeping: boolean;
  /** What could not be read and why, for `nextai schedule list` and the panel. */
  notes: string[];
}

export interface PresenceMonitor {
  /** The current state; cached for a short while (longer on battery, to wake the machine less). */
  read(): Promise<PresenceState>;
  /** Changes the platform announces (sleep, wake, lock, unlock). */
  onChange(listener: (state: PresenceState) => void): () => void;
  /** Around sleep: called before the machine sleeps, awaited as far as the platform allows. */
  onSleep(listener: (sleeping: boolean) => void): () => void;
  close(): void;
}

export const UNKNOWN_PRESENCE: PresenceState = {
  onBattery: null,
  batteryPercent: null,
  screenLocked: null,
  sleeping: false,
  notes: [],
};

/**
 * A monitor that knows nothing: the seam for the platforms not implemented yet. What each would
 * use: macOS — `pmset -g batt` (power source and charge), `ioreg -n Root -d1` /
 * CGSessionCopyCurrentDictionary `CGSSessionScreenIsLocked` (lock), NSWorkspace
 * willSleep/didWake notifications (sleep); Windows — GetSystemPowerStatus (battery),
 * WTSRegisterSessionNotification WTS_SESSION_LOCK/UNLOCK (lock), WM_POWERBROADCAST
 * PBT_APMSUSPEND/PBT_APMRESUMEAUTOMATIC (sleep). Until then tasks run as if on mains power with
 * the screen unlocked, and the note says so.
 */
export class UnknownPresence implements PresenceMonitor {
  constructor(private readonly note: string) {}

  read(): Promise<PresenceState> {
    return Promise.resolve({ ...UNKNOWN_PRESENCE, notes: [this.note] });
  }

  onChange(): () => void {
    return () => undefined;
  }

  onSleep(): () => void {
    return () => undefined;
  }

  close(): void {
    // Nothing was started.
  }
}
