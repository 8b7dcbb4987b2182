/**
 * Reports a burst of the same event — refused requests, refused connections — once as it starts
 * and once, with the count, when it is over, instead of a line per event: a flood of 20 000 must
 * neither go unsaid nor fill the log and slow the daemon down.
 */
export class BurstLog {
  private count = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param started called with the first event of a burst.
   * @param ended called with how many events the burst had, once none came for `quietMs`; not
   *   called for a burst of one (`started` said all there was to say).
   */
  constructor(
    private readonly started: () => void,
    private readonly ended: (count: number) => void,
    private readonly quietMs = 5000,
  ) {}

  /** One more event. */
  note(): void {
    this.count++;
    if (this.count === 1) {
      this.started();
      this.timer = setTimeout(() => this.flush(), this.quietMs);
      // A log line is never a reason for the process to stay.
      this.timer.unref?.();
      return;
    }
    this.timer?.refresh();
  }

  /** Ends the burst now (the connection or the daemon is closing). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const count = this.count;
    this.count = 0;
    if (count > 1) this.ended(count);
  }
}
