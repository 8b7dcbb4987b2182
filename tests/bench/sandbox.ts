/**
 * Sandbox benchmarks:
 *   - start-up cost: `true` started in the sandbox (bubblewrap, the profile a command gets) against
 *     the same `true` started directly, in the same run, interleaved — goal ≤ 15 ms added at p50;
 *   - a shell session's first command, in the sandbox and not (a pty, bash, the call protocol);
 *   - how often everyday commands ask, per template (EVERYDAY_COMMANDS, 50 of them), with the
 *     sandbox and — for comparison — on a machine where none can start. Goal: under development,
 *     at most 1 in 20 asks.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { TEMPLATE_IDS, securityConfigSchema } from '@nextai/shared';

import { dataPaths } from '../../native-host/src/core/paths.js';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { initShellAnalyzer } from '../../native-host/src/policy/shell/index.js';
import {
  EVERYDAY_COMMANDS,
  everydayHome,
  sandboxJudge,
  stubSandbox,
} from '../../native-host/src/policy/testing/sandbox-judge.js';
import { createSandbox } from '../../native-host/src/sandbox/select.js';
import { SandboxService } from '../../native-host/src/sandbox/service.js';
import { createTerminalHandlers } from '../../native-host/src/tools/terminal/index.js';
import { testContext, testServices } from '../../native-host/src/tools/test-support.js';
import { formatRow, summarize } from './stats.js';

const STARTS = 300;
const SESSIONS = 20;

function timeSpawn(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(file, args, { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${file} exited with ${code}`));
      else resolve(performance.now() - start);
    });
  });
}

export async function benchSandbox(): Promise<string[]> {
  const lines = ['Sandbox:'];
  const { home, cleanup } = everydayHome();
  const root = path.dirname(home);
  const data = path.join(root, 'data');
  fs.mkdirSync(path.join(data, 'run'), { recursive: true });
  try {
    const service = new SandboxService({
      sandbox: createSandbox('linux'),
      platform: 'linux',
      homeDir: home,
      security: () => securityConfigSchema.parse({}),
      own: [data],
    });
    const status = service.status();
    if (!status.available) {
      lines.push(`  no sandbox here (${status.reason.en}): start-up not measured`);
    } else {
      const env = { PATH: '/usr/bin:/bin', HOME: home };
      const tmpDir = fs.mkdtempSync(path.join(root, 'tmp-'));
      const direct: number[] = [];
      const confined: number[] = [];
      const prepared: number[] = [];
      for (let i = 0; i < STARTS + 20; i++) {
        const before = performance.now();
        const profile = service.profile({ network: 'none', tmpDir, cwd: home });
        const command = service.prepare(['/bin/true'], profile, env);
        const preparing = performance.now() - before;
        const inSandbox = await timeSpawn(command.file, command.args, command.env);
        const plain = await timeSpawn('/bin/true', [], env);
        if (i < 20) continue; // warm-up
        confined.push(inSandbox);
        direct.push(plain);
        prepared.push(preparing);
      }
      const a = summarize(confined);
      const b = summarize(direct);
      lines.push(`  ${status.mechanism} ${status.version ?? ''}`.trimEnd());
      lines.push(`  ${formatRow('`true` started directly', b)}`);
      lines.push(`  ${formatRow('`true` started in the sandbox', a)}`);
      lines.push(`  ${formatRow('building the profile (folders, git scan)', summarize(prepared))}`);
      lines.push(
        `  added at p50: ${(a.p50 - b.p50).toFixed(2)} ms (goal ≤ 15 ms: ${a.p50 - b.p50 <= 15 ? 'met' : 'NOT met'}); p95 ${(a.p95 - b.p95).toFixed(2)} ms`,
      );
      lines.push(...(await benchSessions(service, home, data)));
    }
    lines.push(...(await benchApprovalRate(home)));
  } finally {
    cleanup();
  }
  return lines;
}

/** A new shell session's first command, `true`: the pty, bash and the call protocol, with and without. */
async function benchSessions(service: SandboxService, home: string, data: string): Promise<string[]> {
  const terminalRoot = path.join(data, 'run', 'terminals');
  fs.mkdirSync(terminalRoot, { recursive: true });
  const services = { ...testServices(createFakeDesktop().desktop), homeDir: home, paths: dataPaths(data) };
  const measure = async (sandboxed: boolean) => {
    const samples: number[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const tools = createTerminalHandlers(sandboxed ? { ...services, sandbox: service } : services, {
        tmpRoot: terminalRoot,
      });
      const context = { ...testContext(), sandbox: { mode: 'confined' as const, network: 'none' as const } };
      const start = performance.now();
      await tools.handlers.bash_execute({ command: 'true', timeout: 30_000 }, context);
      samples.push(performance.now() - start);
      await tools.dispose?.();
    }
    return summarize(samples);
  };
  const plain = await measure(false);
  const confined = await measure(true);
  return [
    `  ${formatRow('a new shell session, first command (no sandbox)', plain)}`,
    `  ${formatRow('a new shell session, first command (sandbox)', confined)}`,
  ];
}

async function benchApprovalRate(home: string): Promise<string[]> {
  await initShellAnalyzer();
  const lines = [
    `  everyday commands that ask (${EVERYDAY_COMMANDS.length} commands, a new session in the home folder):`,
  ];
  const none = stubSandbox({
    available: false,
    mechanism: 'bubblewrap',
    reason: { en: 'no sandbox', 'zh-CN': '没有沙箱' },
  });
  for (const template of TEMPLATE_IDS) {
    const count = (judge: ReturnType<typeof sandboxJudge>) =>
      EVERYDAY_COMMANDS.filter((command) => judge('bash_execute', { command }).action !== 'auto_approve').length;
    const withSandbox = count(sandboxJudge({ home, template }));
    const without = count(sandboxJudge({ home, template, sandbox: none }));
    const goal =
      template === 'development'
        ? ` (goal ≤ 1 in 20: ${withSandbox * 20 <= EVERYDAY_COMMANDS.length ? 'met' : 'NOT met'})`
        : '';
    lines.push(
      `    ${template.padEnd(12)} sandbox: ${String(withSandbox).padStart(2)} ask (${((withSandbox / EVERYDAY_COMMANDS.length) * 100).toFixed(0)}%)   no sandbox: ${String(without).padStart(2)} ask${goal}`,
    );
  }
  return lines;
}
