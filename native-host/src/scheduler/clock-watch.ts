import { say, type Localized } from '@nextai/shared';

import type { Clock } from './clock.js';

/** The wall clock was set (or the machine slept) between two looks. */
export interface ClockJump {
  direction: 'back' | 'forward';
  /** By how much, rounded to whole minutes. */
  minutes: number;
  /** What it means for scheduled tasks, in every language. */
  message: Localized;
}

/**
 * Smaller differences are not reported: readings are taken at slightly different moments, and
 * NTP slews a clock by at most half a millisecond a second. A minute is also the cron's step.
 */
const JUMP_MS = 60_000;

/**
 * Sees the wall clock being set: between two looks the wall clock moved more, or less, than the
 * monotonic clock did. Back can only be a change of the clock; forward is also the time the
 * machine slept (the monotonic clock stops then), which cannot be told apart from here.
 *
 * Nothing needs to be undone when it happens — each task's cursor is the last cron time dealt
 * with, so a time that already ran is not due again when the clock comes round to it, and times
 * jumped over are due and follow the task's catch-up policy — but a person reading the log or
 * the panel should not have to guess why 09:00 did not run twice, or why it ran at 09:30.
 */
export class ClockWatch {
  private offset: number;

  constructor(private readonly clock: Clock) {
    this.offset = clock.now() - clock.monotonic();
  }

  /** The jump since the last look, if there was one. */
  look(): ClockJump | undefined {
    const offset = this.clock.now() - this.clock.monotonic();
    const moved = offset - this.offset;
    this.offset = offset;
    if (Math.abs(moved) < JUMP_MS) return undefined;
    const minutes = Math.round(Math.abs(moved) / 60_000);
    if (moved < 0) {
      return {
        direction: 'back',
        minutes,
        message: say(
          `The clock went back by ${minutes} min; scheduled tasks already run are not run again.`,
          `时钟往回调了 ${minutes} 分钟；已经运行过的定时任务不会再运行。`,
        ),
      };
    }
    return {
      direction: 'forward',
      minutes,
      message: say(
        `The clock moved ahead by ${minutes} min (the machine slept, or the clock was set forward); ` +
          'scheduled times passed meanwhile are caught up as each task’s catch-up policy says.',
        `时钟往前走了 ${minutes} 分钟（电脑睡眠过，或时钟被往前调了）；其间错过的定时按各任务的补运行策略处理。`,
      ),
    };
  }
}
