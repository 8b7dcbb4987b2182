import { AsyncLocalStorage } from 'node:async_hooks';

import type { GrantedToolSet } from '@nextai/shared';

import type { FileGuardService, FileGuardVerdict } from '../tools/types.js';

/**
 * The grant of the tool call in progress (a scheduled task's granted_tools), for what checks a
 * call again as it runs: the file tools ask the file guard again when they act (a folder on the
 * way may have been replaced since the policy decided), and a grant that narrows the allowed
 * directories must narrow that check too. The daemon's run engine and scheduler are the only
 * callers that bring a grant (a client's word never sets one), and their calls enter the gateway
 * through `run`; everything the call does — its wait for an approval, its handler — sees the same
 * grant through `current`.
 */
export class CallGrants {
  private readonly storage = new AsyncLocalStorage<GrantedToolSet | undefined>();

  run<T>(grant: GrantedToolSet | undefined, call: () => T): T {
    return this.storage.run(grant, call);
  }

  current(): GrantedToolSet | undefined {
    return this.storage.getStore();
  }
}

/** The policy's file check (policy/assess-env.ts `checkFile`). */
export type CheckFile = (
  path: string,
  access: 'read' | 'write',
  cwd: string,
  restrictions?: { allowed_directories?: string[] },
  options?: { followFinal?: boolean },
) => FileGuardVerdict;

/**
 * The file guard the file tools ask again when they act: the policy's own check, from the home
 * directory (as the policy judges file tools' paths), narrowed by the grant of the call in progress.
 */
export function grantedFileGuard(grants: CallGrants, checkFile: () => CheckFile, homeDir: string): FileGuardService {
  return {
    check: (file, access, options) => {
      const dirs = grants.current()?.restrictions?.allowed_directories;
      return checkFile()(file, access, homeDir, dirs ? { allowed_directories: dirs } : undefined, options);
    },
  };
}
