import type { Command } from 'commander';

import { AppError, getTool, type ToolInfo } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { dataPaths } from '../paths.js';
import { EXIT } from './exit-codes.js';
import { printError, printJson, printLine } from './output.js';

export function registerToolCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('tool')
    .description('Call a tool through the daemon and print its result, or list the tools.')
    .argument('[name]', 'tool name, e.g. system_info')
    .argument('[input]', 'tool input as a JSON object, e.g. \'{"categories":["cpu"]}\'')
    .option('--list', 'list every tool and whether it is available on this host')
    .option('--json', 'print machine-readable JSON')
    .action(
      async (name: string | undefined, rawInput: string | undefined, options: { list?: boolean; json?: boolean }) => {
        if (options.list) {
          await listTools(Boolean(options.json));
          return;
        }
        if (!name)
          throw new AppError(
            'INVALID_ARGUMENT',
            'Name a tool, e.g. `nextai tool system_info`, or use `nextai tool --list`.',
          );
        if (!getTool(name)) {
          // Checked here too so a typo does not start a daemon; the daemon checks it again.
          throw new AppError('UNKNOWN_TOOL', `There is no tool named "${name}". See \`nextai tool --list\`.`);
        }
        const input = parseInput(rawInput);
        const client = await DaemonClient.connect(dataPaths(), { start: true });
        try {
          const result = await client.peer.request('tools.call', { name, input }, { timeoutMs: 10 * 60_000 });
          if (options.json) printJson(result);
          else if (result.ok) printJson(result.output);
          else printError(`${name} failed [${result.error.code}]: ${result.error.message}`);
          if (!result.ok) setExitCode(EXIT.FAILURE);
        } finally {
          client.close();
        }
      },
    );
}

function parseInput(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new AppError('INVALID_ARGUMENT', `The tool input is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('INVALID_ARGUMENT', 'The tool input must be a JSON object, e.g. \'{"categories":["cpu"]}\'.');
  }
  return value as Record<string, unknown>;
}

async function listTools(json: boolean): Promise<void> {
  const client = await DaemonClient.connect(dataPaths(), { start: true });
  let tools: ToolInfo[];
  try {
    tools = (await client.peer.request('tools.list', {})).tools;
  } finally {
    client.close();
  }
  if (json) {
    printJson(tools);
    return;
  }
  const nameWidth = Math.max(...tools.map((tool) => tool.name.length));
  const available = tools.filter((tool) => tool.available).length;
  printLine(`${available} of ${tools.length} tools available on this host`);
  for (const tool of tools) {
    const state = tool.available ? 'available  ' : 'unavailable';
    const reason = tool.available ? '' : `  ${tool.unavailable_reason ?? ''}`;
    printLine(`${tool.name.padEnd(nameWidth)}  ${state}  ${tool.risk.padEnd(8)}  ${tool.title}${reason}`);
  }
}
