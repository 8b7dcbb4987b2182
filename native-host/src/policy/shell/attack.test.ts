import type { Decision } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { everydayHome, sandboxJudge, stubSandbox } from '../testing/sandbox-judge.js';
import { ATTACK_GROUPS, ATTACK_PAYLOADS, WRITTEN_THEN_RUN } from './attack-corpus.js';
import { BASE_PAYLOADS, DANGEROUS_PAYLOADS } from './dangerous-corpus.js';
import { initShellAnalyzer } from './index.js';
import { analyze } from './test-support.js';

/**
 * The attack corpus. That every payload is critical for the analyser alone (and so needs
 * a person wherever no sandbox confines it) is dangerous.test.ts's job, which runs the whole
 * corpus; here the same payloads go through the decision the daemon makes with a sandbox, where a
 * confined command runs unasked: each must still ask or be blocked under the default template.
 */

let home: string;
let cleanup: () => void;
let judge: ReturnType<typeof sandboxJudge>;
let unconfined: ReturnType<typeof sandboxJudge>;

beforeAll(async () => {
  await initShellAnalyzer();
  ({ home, cleanup } = everydayHome());
  judge = sandboxJudge({ home, template: 'development' });
  unconfined = sandboxJudge({
    home,
    template: 'full-auto',
    sandbox: stubSandbox({
      available: false,
      mechanism: 'bubblewrap',
      reason: { en: 'bubblewrap (bwrap) is not installed', 'zh-CN': '没有安装 bubblewrap（bwrap）' },
    }),
  });
});
afterAll(() => cleanup());

const asks = (decision: Decision) => decision.action === 'require_approval' || decision.action === 'always_block';
const explain = (decision: Decision) =>
  `${decision.action} (${decision.risk}): ${decision.reason} | ${decision.findings.join(' / ')}`;

describe('the attack corpus', () => {
  it('adds at least 300 payloads the corpus did not have, none twice, all run by dangerous.test.ts', () => {
    const added = ATTACK_PAYLOADS.flatMap((group) => group.payloads);
    const before = new Set(BASE_PAYLOADS.flatMap((group) => group.payloads));
    expect(added.length).toBeGreaterThanOrEqual(300);
    expect(added.filter((payload) => before.has(payload))).toEqual([]);
    expect(new Set(added).size).toBe(added.length);
    const corpus = new Set(DANGEROUS_PAYLOADS.flatMap((group) => group.payloads));
    expect(added.filter((payload) => !corpus.has(payload))).toEqual([]);
  });

  for (const group of ATTACK_PAYLOADS) {
    describe(group.technique, () => {
      it.each(group.payloads.map((payload) => [JSON.stringify(payload).slice(0, 120), payload]))(
        '%s asks or is blocked with the sandbox, and without one',
        (_label, payload) => {
          const decision = judge('bash_execute', { command: payload });
          if (group.confinedBecause !== undefined && decision.action === 'auto_approve') {
            // Only where the sandbox itself takes the danger away, and only confined.
            expect(decision.sandbox?.sandboxed, explain(decision)).toBe(true);
          } else {
            expect(asks(decision), explain(decision)).toBe(true);
          }
          // Where no sandbox can start, not even full-auto lets it run.
          expect(asks(unconfined('bash_execute', { command: payload }))).toBe(true);
        },
      );
    });
  }
});

describe('a script written by one call and run by the next', () => {
  it.each(WRITTEN_THEN_RUN.map(({ run }) => [run]))('%s is judged as running code nobody has seen', (run) => {
    const analysis = analyze(run);
    expect(analysis.effects.unseenCode, JSON.stringify(analysis.findings)).toBeDefined();
    expect(['high', 'critical']).toContain(analysis.risk);
    // So it never leaves the sandbox without a person, even under full-auto.
    const leaving = sandboxJudge({ home, template: 'full-auto' })('bash_execute', {
      command: `${run} > ~/nextai-marker.log`,
    });
    expect(asks(leaving), explain(leaving)).toBe(true);
    expect(leaving.risk).toBe('critical');
    expect(leaving.sandbox?.escapes.join('\n')).toMatch(/runs code NextAI cannot check .*which would then run outside/);
  });
});

describe('look-alikes of the attacks still run in the sandbox without asking', () => {
  it.each([
    'dd if=~/Projects/app/src/index.js of=~/Projects/app/copy.js',
    'cp ~/Projects/app/package.json ~/Projects/app/package.backup.json',
    'truncate -s 0 ~/Projects/app/out.log',
    'rsync -a ~/Projects/app/src/ ~/Projects/app/backup/',
    'chmod +x ~/Projects/app/run.sh',
    'kill %1',
    'sha256sum ~/Projects/app/package.json',
    'ls ~/.var/app',
    'cd ~/Projects/app && make -n',
  ])('%s', (command) => {
    const decision = judge('bash_execute', { command });
    expect(decision, explain(decision)).toMatchObject({ action: 'auto_approve', sandbox: { sandboxed: true } });
  });
});

describe('what confinement does not make harmless', () => {
  it.each([
    ['cat /home/other/.ssh/id_rsa', /holds secrets the sandbox does not hide/],
    ['cat ~/.var/app/org.example.Browser/config/google-chrome/Default/Cookies', /holds secrets/],
    ["printf '[Desktop Entry]\\nExec=x\\n' > ~/Desktop/files.desktop", /which runs code later, outside the sandbox/],
  ])('%s stays confined but is critical', (command, why) => {
    const decision = judge('bash_execute', { command });
    expect(decision, explain(decision)).toMatchObject({
      action: 'always_block',
      risk: 'critical',
      sandbox: { sandboxed: true },
    });
    expect(decision.findings.join('\n')).toMatch(why);
  });

  it('a find that deletes below the writable folders asks to leave, and is critical', () => {
    for (const command of ['find ~ -delete', "find ~ -name '*.bak' -delete", 'find /mnt -delete']) {
      const decision = judge('bash_execute', { command });
      expect(decision, explain(decision)).toMatchObject({ action: 'always_block', risk: 'critical' });
      expect(decision.sandbox?.escapes.join('\n')).toMatch(/deletes what find finds in .*, outside the folders/);
    }
  });
});

describe('recursive changes of who owns or may use every home folder are critical', () => {
  // The red team's home was not under /home: the rule must not depend on where the person's is.
  it.each([
    'chmod -R 777 /home',
    'chown -R nobody /home',
    'setfacl -R -m u:nobody:rwx /home',
    'chmod -R o+w /Users',
    'chown -R nobody /home/other',
    'setfacl -R -m o::rwx /mnt',
  ])('%s', (command) => {
    const decision = judge('bash_execute', { command });
    expect(decision, explain(decision)).toMatchObject({ risk: 'critical', action: 'always_block' });
    expect(analyze(command).risk).toBe('critical');
  });
});

describe('each kind is in the corpus', () => {
  it('with its own group', () => {
    expect(ATTACK_GROUPS.map((group) => group.technique)).toEqual([
      'destruction without rm',
      "other users' data and mount points",
      'killing processes',
      'killing processes by patterns that match everything',
      'setuid and setgid bits',
      'privilege tools',
      'containers and virtual machines with host mounts',
      'credential stores beyond the obvious',
      'places that run code later',
    ]);
  });
});
