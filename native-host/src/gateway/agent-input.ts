/**
 * When the agent last sent mouse or keyboard input. A click on the side panel's Approve button
 * that arrives while the agent is sending input, or right after, may be the agent's own click:
 * the browser reports synthetic input from the X server as a real user gesture.
 */
export class AgentInputActivity {
  private running = 0;
  private lastEnded = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Marks input as being sent; call the returned function when it has been sent. */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      this.lastEnded = this.now();
    };
  }

  /** Milliseconds since the agent's last input ended (input under way now is not counted). */
  sinceLastEnded(): number {
    return this.now() - this.lastEnded;
  }

  /** Whether the agent is sending input now or sent some within the last `quietMs`. */
  recent(quietMs: number): boolean {
    return this.running > 0 || this.now() - this.lastEnded < quietMs;
  }
}
