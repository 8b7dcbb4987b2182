import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  TEMPLATES,
  getTool,
  securityConfigSchema,
  type ApprovalAction,
  type Decision,
  type GrantedToolSet,
  type SecurityConfig,
  type TemplateId,
} from '@nextai/shared';

import type { Sandbox, SandboxStatus } from '../../sandbox/types.js';
import { SandboxService } from '../../sandbox/service.js';
import { assessEnvFactory } from '../assess-env.js';
import { assessInput } from '../assess.js';
import type { ProgramResolver } from '../channels/program-path.js';
import { decide } from '../decide.js';
import { effectiveRisk } from '../sandbox-plan.js';
import { requiredLevel } from '../permission-levels.js';

/**
 * Everyday commands a person asks an agent to run: looking around, git, builds and
 * tests, small scripts, downloads. They run from a new session, which starts in the home folder.
 * None of them should ask under the development template once a sandbox confines them.
 */
export const EVERYDAY_COMMANDS: readonly string[] = [
  'ls ~',
  'ls -la ~/Projects',
  'date',
  'pwd',
  'whoami',
  'uname -a',
  'df -h',
  'du -sh ~/Projects/app',
  'free -m',
  'uptime',
  'cat ~/Projects/app/package.json',
  'head -n 20 ~/Projects/app/README.md',
  'wc -l ~/Projects/app/src/*.js',
  'grep -rn TODO ~/Projects',
  'find ~/Projects -name "*.js" -not -path "*/node_modules/*"',
  'tree -L 2 ~/Projects/app',
  'git -C ~/Projects/app status',
  'git -C ~/Projects/app log --oneline -5',
  'git -C ~/Projects/app diff',
  'cd ~/Projects/app && git add -A && git commit -m "Fix the greeting"',
  'cd ~/Projects/app && git checkout -b feature/greeting',
  'cd ~/Projects/app && npm test',
  'cd ~/Projects/app && npm run build',
  'cd ~/Projects/app && npm install',
  'cd ~/Projects/app && node src/index.js',
  'cd ~/Projects/app && python3 -m pytest -q',
  "python3 -c 'print(1+1)'",
  'node -e "console.log(process.version)"',
  'cd ~/Projects/app && make',
  'mkdir -p ~/Projects/app/build && cp ~/Projects/app/src/index.js ~/Projects/app/build/',
  'rm -rf ~/Projects/app/build',
  'touch ~/Projects/app/notes.md',
  "echo 'hello' > ~/Projects/app/hello.txt",
  "sed -i 's/hello/hi/' ~/Projects/app/hello.txt",
  'mv ~/Projects/app/hello.txt ~/Projects/app/docs/',
  'tar czf ~/Projects/app-backup.tgz -C ~/Projects app',
  'curl -sS https://example.com',
  'curl -sSLo ~/Projects/app/data.json https://api.example.com/data',
  'wget -q -O ~/Projects/app/page.html https://example.com',
  'cd ~/Projects/app && git pull',
  'cd ~/Projects/app && git fetch origin',
  'pip install --user requests',
  'jq .name ~/Projects/app/package.json',
  'sort ~/Projects/app/names.txt | uniq -c',
  'echo $PATH',
  'which python3 node git',
  'env | sort',
  'history | tail -5',
  'sleep 1',
  "printf '%s\\n' done",
];

/** A home folder with a project in it, as the corpus expects. */
export function everydayHome(): { home: string; cleanup(): void } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-everyday-')));
  const home = path.join(root, 'home');
  for (const dir of [
    'Projects/app/src',
    'Projects/app/docs',
    'Projects/app/.git/hooks',
    'Documents',
    'Desktop',
    '.ssh',
  ]) {
    fs.mkdirSync(path.join(home, dir), { recursive: true });
  }
  fs.writeFileSync(path.join(home, 'Projects/app/package.json'), '{"name":"app","scripts":{"test":"node --test"}}\n');
  fs.writeFileSync(path.join(home, 'Projects/app/src/index.js'), 'console.log("hello")\n');
  return { home, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** A stand-in for the OS sandbox: the policy only asks whether one can start. */
export function stubSandbox(status: SandboxStatus = { available: true, mechanism: 'bubblewrap' }): Sandbox {
  return {
    mechanism: status.mechanism,
    status: () => status,
    prepare: () => {
      throw new Error('the judge never runs anything');
    },
    commandPid: (pid) => pid,
  };
}

/**
 * Decides tool calls as the daemon would — analysis, guards, sandbox plan, template — with a
 * real file guard and sandbox folders over `home`, without running anything.
 */
export function sandboxJudge(options: {
  home: string;
  template: TemplateId;
  sandbox?: Sandbox;
  security?: Partial<SecurityConfig>;
  /** The person's own overrides on top of the template. */
  toolOverrides?: Record<string, ApprovalAction>;
  /** How program names are found (default: this machine's PATH). */
  resolveProgram?: ProgramResolver;
}): (tool: string, input: Record<string, unknown>, grant?: GrantedToolSet) => Decision {
  const security = securityConfigSchema.parse(options.security ?? {});
  const own = [path.join(path.dirname(options.home), 'data')];
  const service = new SandboxService({
    sandbox: options.sandbox ?? stubSandbox(),
    platform: 'linux',
    homeDir: options.home,
    security: () => security,
    own,
  });
  const env = assessEnvFactory('linux', options.home, own, undefined, service, options.resolveProgram)(security);
  const policy = structuredClone(TEMPLATES[options.template].policy);
  policy.tool_overrides = { ...options.toolOverrides };
  return (name, input, grant) => {
    const tool = getTool(name);
    if (!tool) throw new Error(`no tool ${name}`);
    const parsed = tool.input.parse(input) as Record<string, unknown>;
    const assessment = assessInput(tool, parsed, env, grant);
    return decide({
      tool,
      analysis: assessment.analysis,
      guards: assessment.guards,
      requiredLevel: requiredLevel(tool, parsed, effectiveRisk(assessment.analysis.risk, assessment.sandbox?.plan)),
      permissionLevel: security.permission_level,
      project: { name: 'Default', template: options.template, policy },
      grant,
      sandbox: assessment.sandbox,
    });
  };
}
