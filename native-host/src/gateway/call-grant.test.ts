import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { FileGuard } from '../policy/guards/file-guard.js';
import { CallGrants, grantedFileGuard } from './call-grant.js';

describe('CallGrants', () => {
  it('gives what a call runs — past an await on a promise settled elsewhere (an approval) — its own grant', async () => {
    const grants = new CallGrants();
    let approve!: () => void;
    const approval = new Promise<void>((resolve) => (approve = resolve));
    const seen: unknown[] = [];
    const narrowed = { tools: ['file_write'], restrictions: { allowed_directories: ['~/Projects/a'] } };
    const call = grants.run(narrowed, async () => {
      await approval;
      seen.push(grants.current());
    });
    const other = grants.run(undefined, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(grants.current());
    });
    // Settled from outside any call (as the person's answer arrives on another connection).
    setTimeout(approve, 10);
    await Promise.all([call, other]);
    expect(seen).toEqual([undefined, narrowed]);
    expect(grants.current()).toBeUndefined();
  });
});

describe('grantedFileGuard', () => {
  it('narrows the check made as a file tool acts to the grant of the call in progress', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-grant-')));
    try {
      const home = path.join(root, 'home');
      fs.mkdirSync(path.join(home, 'Projects', 'a'), { recursive: true });
      fs.mkdirSync(path.join(home, 'Projects', 'b'), { recursive: true });
      const security = securityConfigSchema.parse({ allowed_directories: ['~/Projects'] });
      const guard = new FileGuard({ platform: 'linux', homeDir: home, security, protectedPaths: [] });
      const grants = new CallGrants();
      const files = grantedFileGuard(grants, () => guard.check.bind(guard), home);
      const granted = { tools: ['file_write'], restrictions: { allowed_directories: ['~/Projects/a'] } };
      // A task granted ~/Projects/a; its folder `out` was judged there, then became a link to ~/Projects/b.
      fs.symlinkSync(path.join(home, 'Projects', 'b'), path.join(home, 'Projects', 'a', 'out'));
      const verdict = await grants.run(granted, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return files.check('~/Projects/a/out/x.txt', 'write');
      });
      expect(verdict).toMatchObject({ allowed: false, real: path.join(home, 'Projects', 'b', 'x.txt') });
      expect(verdict.reason?.en).toContain('outside the folders this task was granted');
      // Without a grant (a person's own call) ~/Projects/b is allowed.
      expect(files.check('~/Projects/a/out/x.txt', 'write').allowed).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
