import { performance } from 'node:perf_hooks';

/** Something with work waiting that does one piece of it per turn: a client connection's queue. */
export interface TakesTurns {
  /** Does one piece of the work; true while more is waiting. */
  takeTurn(): boolean;
}

export interface RoundRobinOptions {
  /**
   * Turns at most per pass of the event loop; one by default. What a turn starts runs on in the
   * promise callbacks after the pass (a tool call's audit write, its answer), where no clock of
   * the pass can stop it: one turn per pass keeps that to one request's work between reads.
   */
  turnsPerPass?: number;
  /** Milliseconds at most a pass goes on for, however many turns it may still take. */
  passMs?: number;
}

/**
 * Gives every connection with requests waiting a turn in its place in a ring, a pass of the event
 * loop at a time, so that what arrived meanwhile (another client's ping) is read and takes its
 * place in the ring. Requests are not handled in the order they arrived: there, one client's
 * 20 000 queued requests came before everyone else's.
 */
export class RoundRobin {
  private readonly ring: TakesTurns[] = [];
  private readonly inRing = new Set<TakesTurns>();
  private scheduled = false;
  private readonly turnsPerPass: number;
  private readonly passMs: number;

  constructor(options: RoundRobinOptions = {}) {
    this.turnsPerPass = options.turnsPerPass ?? 1;
    this.passMs = options.passMs ?? 5;
  }

  /** `member` has work waiting: it takes a place at the end of the ring, unless it has one. */
  wake(member: TakesTurns): void {
    if (this.inRing.has(member)) return;
    this.inRing.add(member);
    this.ring.push(member);
    this.schedule();
  }

  /** How many are waiting for their turn. */
  get waiting(): number {
    return this.ring.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the I/O of this pass of the event loop: what other clients sent is read first.
    setImmediate(() => this.pass());
  }

  private pass(): void {
    this.scheduled = false;
    const until = performance.now() + this.passMs;
    for (let turns = 0; turns < this.turnsPerPass && this.ring.length > 0; turns++) {
      const member = this.ring.shift()!;
      if (member.takeTurn()) this.ring.push(member);
      else this.inRing.delete(member);
      if (performance.now() >= until) break;
    }
    if (this.ring.length > 0) this.schedule();
  }
}
