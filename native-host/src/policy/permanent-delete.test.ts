import fs from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { initShellAnalyzer } from './shell/index.js';
import { everydayHome, sandboxJudge } from './testing/sandbox-judge.js';

let home: string;
let cleanup: () => void;

beforeAll(async () => {
  await initShellAnalyzer();
  ({ home, cleanup } = everydayHome());
  fs.symlinkSync(path.join(home, 'Projects/app'), path.join(home, 'Projects/app-link'));
});
afterAll(() => cleanup());

const decide = (input: Record<string, unknown>) =>
  sandboxJudge({ home, template: 'development' })('delete_file', input);

describe('delete_file with permanent', () => {
  it('of a folder is critical: it goes with all it holds, past the trash', () => {
    for (const folder of ['~/Projects', '~/Projects/app', `${home}/Projects/app/src`]) {
      const decision = decide({ path: folder, permanent: true });
      expect(decision, folder).toMatchObject({ risk: 'critical', action: 'always_block' });
      expect(decision.findings.join('\n')).toMatch(/deletes a folder and everything in it permanently/);
    }
    // Even under full-auto, a person decides each time.
    const auto = sandboxJudge({ home, template: 'full-auto' })('delete_file', { path: '~/Projects', permanent: true });
    expect(auto).toMatchObject({ risk: 'critical', action: 'require_approval', per_call: true });
  });

  it('of something not there to look at is critical too (it could be a folder by then)', () => {
    expect(decide({ path: '~/Projects/not-yet', permanent: true })).toMatchObject({ risk: 'critical' });
  });

  it('of one file, or of a link to a folder (only the link goes), stays high', () => {
    for (const entry of ['~/Projects/app/package.json', '~/Projects/app-link']) {
      expect(decide({ path: entry, permanent: true }), entry).toMatchObject({
        risk: 'high',
        action: 'require_approval',
      });
    }
  });

  it('to the trash stays as it was, folder or not', () => {
    expect(decide({ path: '~/Projects/app', permanent: false })).toMatchObject({ risk: 'high' });
  });
});
