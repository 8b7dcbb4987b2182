import { say } from '@nextai/shared';

import { sandboxUnavailable } from './bubblewrap.js';
import type { PreparedCommand, Sandbox, SandboxStatus } from './types.js';

/** Windows (for now): there is no sandbox, and every command asks the person. */
export class NoSandbox implements Sandbox {
  readonly mechanism = 'none' as const;

  private readonly reason = say('Windows has no sandbox in NextAI yet', 'NextAI 在 Windows 上还没有沙箱');

  status(): SandboxStatus {
    return { available: false, mechanism: 'none', reason: this.reason };
  }

  prepare(): PreparedCommand {
    throw sandboxUnavailable(this.reason);
  }

  commandPid(startedPid: number): number {
    return startedPid;
  }
}
