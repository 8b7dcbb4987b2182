import { randomUUID } from 'node:crypto';
import fs from 'node:fs';

import type { Command } from 'commander';

import { AppError, BLOB_SLICE_BYTES, getTool, type ToolInfo } from '@nextai/shared';

import type { DaemonClient } from '../client/daemon-client.js';

import { EXIT } from './exit-codes.js';
import { parseJsonObject } from './json-input.js';
import { printError, printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

/** How long `nextai tool` waits for its answer — including a person's approval. */
const CALL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export function registerToolCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('tool')
    .description('Call a tool through the daemon (and its approval policy) and print the result, or list the tools.')
    .argument('[name]', 'tool name, e.g. system_info')
    .argument('[input]', 'tool input as a JSON object, e.g. \'{"categories":["cpu"]}\'')
    .option('--list', 'list every tool and whether it is available on this host')
    .option('--project <name>', 'project whose approval policy applies')
    .option('--json', 'print machine-readable JSON')
    .option('--save <file>', "write the result's image (a screenshot, a clipboard image) to this file")
    .action(
      async (
        name: string | undefined,
        rawInput: string | undefined,
        options: { list?: boolean; json?: boolean; project?: string; save?: string },
      ) => {
        if (options.list) {
          await listTools(Boolean(options.json));
          return;
        }
        if (!name) {
          throw new AppError(
            'INVALID_ARGUMENT',
            'Name a tool, e.g. `nextai tool system_info`, or use `nextai tool --list`.',
          );
        }
        if (!getTool(name)) {
          // Checked here too so a typo does not start a daemon; the daemon checks it again.
          throw new AppError('UNKNOWN_TOOL', `There is no tool named "${name}". See \`nextai tool --list\`.`);
        }
        const input = parseJsonObject(rawInput, 'tool input');
        const callId = randomUUID();
        const result = await withDaemon(async (client) => {
          // Listen for this call's approval request, to tell the person how to answer it.
          const { last_event_seq } = await client.peer.request('daemon.status', {});
          client.peer.onNotification('event', (event) => {
            if (event.type !== 'approval.requested' || event.data.call_id !== callId) return;
            const id = String(event.data.approval_id);
            process.stderr.write(
              `nextai: waiting for your approval — ${String(event.data.reason)}\n` +
                `  approve: nextai approvals approve ${id}\n` +
                `  deny:    nextai approvals deny ${id} --message "…"\n`,
            );
          });
          await client.peer.request('events.subscribe', { after_seq: last_event_seq });
          const answer = await client.peer.request(
            'tools.call',
            { name, input, call_id: callId, ...(options.project ? { project: options.project } : {}) },
            { timeoutMs: CALL_TIMEOUT_MS },
          );
          if (answer.ok && options.save) {
            const bytes = await readPayload(client, imageOf(name, answer.output));
            fs.writeFileSync(options.save, bytes);
            process.stderr.write(`nextai: wrote ${bytes.length} bytes to ${options.save}\n`);
          }
          return answer;
        });
        if (options.json) printJson(result);
        else if (result.ok) printJson(result.output);
        else printError(`${name} failed [${result.error.code}]: ${result.error.message}`);
        if (!result.ok) setExitCode(EXIT.FAILURE);
      },
    );
}

/** The image a tool returned (base64 or a `blob:` reference), for `--save`. */
function imageOf(name: string, output: unknown): string {
  const record = (output ?? {}) as Record<string, unknown>;
  const value =
    typeof record.image === 'string' ? record.image : record.format === 'image' ? record.content : undefined;
  if (typeof value !== 'string') {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${name} returned no image to save; --save is for screenshots and clipboard images.`,
    );
  }
  return value;
}

/** The bytes of a payload: decoded base64, or a `blob:` reference read back in slices. */
async function readPayload(client: DaemonClient, value: string): Promise<Buffer> {
  if (!value.startsWith('blob:')) return Buffer.from(value, 'base64');
  const parts: Buffer[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const slice: { data: string; next_offset: number | null } = await client.peer.request('blobs.read', {
      reference: value,
      offset,
      length: BLOB_SLICE_BYTES,
    });
    parts.push(Buffer.from(slice.data, 'base64'));
    offset = slice.next_offset;
  }
  return Buffer.concat(parts);
}

async function listTools(json: boolean): Promise<void> {
  const tools: ToolInfo[] = (await withDaemon((client) => client.peer.request('tools.list', {}))).tools;
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
