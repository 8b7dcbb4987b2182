import { inside } from './places.js';
import { describeFolder } from './profile.js';

/**
 * What a sandboxed process was given when it started, of what the policy decides: the folders it
 * may change (bound writable) and the places hidden from it. Real paths, as in SandboxProfile.
 */
export interface SandboxReach {
  writable: readonly string[];
  hidden: readonly string[];
}

/** What a process started with `SandboxReach` can still reach that the policy now keeps from it. */
export interface LostReach {
  /** Folders it may still change that are no longer inside a writable folder. */
  writable: string[];
  /** Places now hidden that its sandbox does not hide. */
  hidden: string[];
}

/**
 * What `started` gives beyond `now` (both for the same grant), or undefined when `now` covers it:
 * a policy that narrowed the allowed folders or hid more places. A wider policy loses nothing —
 * a folder added, or one now allowed as part of a larger one — so it ends nothing.
 */
export function lostReach(started: SandboxReach, now: SandboxReach): LostReach | undefined {
  const writable = started.writable.filter((folder) => !now.writable.some((allowed) => inside(folder, allowed)));
  const hidden = now.hidden.filter((place) => !started.hidden.some((was) => inside(place, was)));
  return writable.length > 0 || hidden.length > 0 ? { writable, hidden } : undefined;
}

/** `lost` for the model and the person: "~/Projects/b is no longer writable; ~/Notes is now hidden". */
export function describeLostReach(lost: LostReach, homeDir: string): string {
  const shown = (folder: string) => describeFolder(folder, homeDir);
  return [
    ...lost.writable.map((folder) => `${shown(folder)} is no longer writable`),
    ...lost.hidden.map((place) => `${shown(place)} is now hidden`),
  ].join('; ');
}
