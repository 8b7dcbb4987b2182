import { createHash } from 'node:crypto';

import { getTool, type ScheduleStep } from '@nextai/shared';

import type { StepRecord } from './schedule-store.js';

/**
 * What a retry of a fixed-step run may do again. A retry continues the same scheduled run: the
 * steps its earlier attempt finished are carried over, never done twice (their inputs are fixed,
 * so doing them again adds nothing but a second invoice, a second message). The step after them
 * is done again only when that cannot repeat an action: it reported its own failure (trying it
 * again is what a retry is for), it provably never executed (it waited for an approval that was
 * not given), or it only reads. A step that began and was then cut short — the daemon stopped or
 * died, the wall-time limit hit — may or may not have happened; there is no model to look first,
 * as an agent run would, so it is left to the person.
 */

/** A step of a task's definition in a few characters: its tool and input, hashed. */
export function stepFingerprint(step: ScheduleStep): string {
  return createHash('sha256')
    .update(JSON.stringify([step.tool, step.input]))
    .digest('hex')
    .slice(0, 16);
}

/** The record is of this step (records written before fingerprints existed: the same tool). */
function sameStep(record: StepRecord, step: ScheduleStep | undefined): boolean {
  if (!step) return false;
  return record.fingerprint === undefined ? record.tool === step.tool : record.fingerprint === stepFingerprint(step);
}

/**
 * The steps an earlier attempt finished, which a retry carries over instead of doing again: the
 * leading records that succeeded, as long as the task still has the same step in the same place
 * (a person who edited the task between the attempts gets the edited steps run).
 */
export function carriedSteps(steps: readonly ScheduleStep[], previous: readonly StepRecord[]): StepRecord[] {
  const carried: StepRecord[] = [];
  for (const [index, record] of previous.entries()) {
    if (record.ok !== true || !sameStep(record, steps[index])) break;
    carried.push(record);
  }
  return carried;
}

/**
 * The step after the finished ones whose outcome is unknown (see the comment at the top), or
 * undefined when doing it again is safe or there is none.
 */
export function uncertainStep(
  steps: readonly ScheduleStep[],
  previous: readonly StepRecord[],
): { index: number; record: StepRecord } | undefined {
  const index = carriedSteps(steps, previous).length;
  const record = previous[index];
  if (!record || !sameStep(record, steps[index])) return undefined;
  if (!mayHaveActed(record)) return undefined;
  // Reading again changes nothing: the retry does it again.
  if (getTool(record.tool)?.effect === 'read') return undefined;
  return { index, record };
}

function mayHaveActed(record: StepRecord): boolean {
  // Waiting for a person who never approved: the tool did not run (an approval clears the mark).
  if (record.awaiting_approval) return false;
  // Begun, and no result: the daemon stopped or died during the call.
  if (record.finished_at === undefined) return true;
  // A failure the tool reported itself is tried again; a call aborted midway may have acted.
  return record.cut_short === true;
}
