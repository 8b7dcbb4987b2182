import type { Command } from 'commander';

import type { DaemonClient } from '../client/daemon-client.js';

import { positiveInteger } from './command-run.js';
import { printJson, printLine } from './output.js';
import { formatSessionDetails, formatSessionTable, type SessionMessageView } from './run-progress.js';
import { withDaemon } from './with-daemon.js';

/** Messages read a page at a time, as the daemon allows. */
const MESSAGE_PAGE = 500;

export function registerSessionsCommand(program: Command): void {
  const sessions = program
    .command('sessions')
    .description('Chat sessions: the conversations runs belong to. List, show, rename, delete.');

  sessions
    .command('list')
    .description('List sessions, most recently active first.')
    .option('--search <text>', 'only sessions whose title or messages contain this')
    .option('--project <name>', "only this project's sessions")
    .option('--limit <n>', 'how many (default 50)', positiveInteger)
    .option('--json', 'print a JSON array of sessions')
    .action(async (options: { search?: string; project?: string; limit?: number; json?: boolean }) => {
      const { sessions: list } = await withDaemon((client) =>
        client.peer.request('sessions.list', {
          ...(options.search ? { search: options.search } : {}),
          ...(options.project ? { project: options.project } : {}),
          ...(options.limit ? { limit: options.limit } : {}),
        }),
      );
      if (options.json) printJson(list);
      else if (list.length === 0) {
        printLine(
          options.search || options.project
            ? 'No sessions match.'
            : 'No sessions yet. `nextai run "<goal>"` starts one.',
        );
      } else process.stdout.write(formatSessionTable(list));
    });

  sessions
    .command('show')
    .description('Show a session: its runs and its conversation.')
    .argument('<id>', 'session id (see `nextai sessions list`)')
    .option('--json', 'print JSON ({"session": …, "runs": […], "messages": […]})')
    .action(async (id: string, options: { json?: boolean }) => {
      const { session, runs, messages } = await withDaemon(async (client) => {
        const found = await client.peer.request('sessions.get', { id });
        return { ...found, messages: await allMessages(client, id) };
      });
      if (options.json) printJson({ session, runs, messages });
      else process.stdout.write(formatSessionDetails(session, runs, messages));
    });

  sessions
    .command('rename')
    .description('Give a session a new title.')
    .argument('<id>', 'session id')
    .argument('<title...>', 'the new title')
    .action(async (id: string, words: string[]) => {
      const { session } = await withDaemon((client) =>
        client.peer.request('sessions.rename', { id, title: words.join(' ') }),
      );
      printLine(`renamed session ${session.id}: ${session.title}`);
    });

  sessions
    .command('delete')
    .description('Delete a session and its messages; its runs stay in the history (a running one is stopped).')
    .argument('<id>', 'session id')
    .action(async (id: string) => {
      await withDaemon((client) => client.peer.request('sessions.delete', { id }));
      printLine(`deleted session ${id}`);
    });
}

async function allMessages(client: DaemonClient, id: string): Promise<SessionMessageView[]> {
  const messages: SessionMessageView[] = [];
  let after = 0;
  for (;;) {
    const page = await client.peer.request('sessions.messages', { id, after_seq: after, limit: MESSAGE_PAGE });
    messages.push(...page.messages);
    const last = page.messages.at(-1);
    if (page.messages.length < MESSAGE_PAGE || last === undefined) return messages;
    after = last.seq;
  }
}
