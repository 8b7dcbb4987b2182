import { z } from 'zod';

import { justificationSchema, outsideSandboxSchema } from './common-schemas.js';
import { ALL_PLATFORMS, criticalNeedsFullControl, defineTool } from './define-tool.js';

const sessionSchema = z.object({
  session_id: z.string(),
  shell: z.string(),
  cwd: z.string().optional(),
  created_at: z.string(),
});

export const bashExecute = defineTool({
  name: 'bash_execute',
  title: 'Run a shell command',
  titleZh: '执行命令',
  description:
    'Run a command in a persistent shell session: `cd` and exported variables persist between calls of the same session. stdout, stderr and the exit code come back separately; long output is truncated with a notice. stdin is empty (a command waiting for input gets end-of-file) and there is no pager; a command still running at the time-out is killed with everything it started. ' +
    "Commands run in a sandbox: the file system is read-only except the allowed folders and a private /tmp, keys, passwords and browser profiles are hidden, only the sandbox's own processes are visible, and there is no network unless the command needs it (curl, git fetch, npm install… get it). A command that needs more asks the person to leave the sandbox. If a command failed only because of the sandbox (read-only file system, no network), run it again with network: true or outside_sandbox: true and a justification.",
  category: 'terminal',
  risk: 'high',
  effect: 'destructive',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      command: z.string().min(1),
      session_id: z.string().optional().describe('Session to run in; the default session when omitted'),
      timeout: z
        .number()
        .int()
        .positive()
        .max(3_600_000)
        .default(120_000)
        .describe('Milliseconds; on time-out the whole process group is killed'),
      working_dir: z.string().optional(),
      network: z
        .boolean()
        .optional()
        .describe(
          'The command needs the internet although it is not a tool NextAI knows to need it; may ask the person',
        ),
      outside_sandbox: outsideSandboxSchema,
      justification: justificationSchema('Why it needs the network or to leave the sandbox, shown to the person'),
    })
    .strict(),
  output: z.object({
    stdout: z.string(),
    stderr: z.string(),
    exit_code: z.number().int().nullable(),
    session_id: z.string(),
    timed_out: z.boolean().optional(),
    truncated: z.boolean().optional(),
    notices: z
      .array(z.string())
      .optional()
      .describe(
        'What the host did or saw besides the streams: a time-out, a restarted shell, text sent to the terminal',
      ),
    sandbox: z
      .enum(['confined', 'confined_network', 'outside'])
      .optional()
      .describe('Where it ran: in the sandbox (without or with the network), or outside it'),
  }),
  // stdout and stderr are whatever the programs print, including files they cat.
  outputFrom: 'outside',
  resources: (input) => ({
    runs: {
      kind: 'command',
      command: input.command,
      session: input.session_id,
      workingDir: input.working_dir,
      ask: {
        network: input.network === true,
        ...(input.outside_sandbox === true ? { outside: { justification: input.justification } } : {}),
      },
    },
  }),
  // L4 "unrestricted terminal": commands the analyser rates critical need full control.
  needsFullControl: criticalNeedsFullControl,
});

export const bashSession = defineTool({
  name: 'bash_session',
  title: 'Manage shell sessions',
  titleZh: '管理终端会话',
  description: 'Create, list or kill persistent shell sessions.',
  category: 'terminal',
  risk: 'high',
  effect: 'write',
  level: 'L3',
  platforms: ALL_PLATFORMS,
  runsIn: 'host',
  input: z
    .object({
      action: z.enum(['create', 'list', 'kill']),
      session_id: z.string().optional().describe('Required for kill'),
      shell: z.string().default('bash'),
    })
    .strict(),
  output: z.object({
    session_id: z.string().optional(),
    sessions: z.array(sessionSchema),
  }),
  outputFrom: 'trusted',
  resources: (input) => ({ runs: { kind: 'session', shell: input.action === 'create' ? input.shell : undefined } }),
  needsFullControl: criticalNeedsFullControl,
});
