import { randomUUID } from 'node:crypto';

import { AppError } from '@nextai/shared';

import { writeTransaction, type Db } from '../storage/database.js';

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

const ROLES: readonly MessageRole[] = ['user', 'assistant', 'system', 'tool'];
const MAX_TITLE = 200;

export interface SessionRecord {
  id: string;
  title: string;
  project: string;
  createdAt: string;
  updatedAt: string;
}

export interface SessionMessage {
  sessionId: string;
  seq: number;
  role: MessageRole;
  content: unknown;
  createdAt: string;
}

interface SessionRow {
  id: string;
  title: string;
  project: string;
  created_at: string;
  updated_at: string;
}

interface MessageRow {
  session_id: string;
  seq: number;
  role: MessageRole;
  content: string;
  created_at: string;
}

function cleanTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === '') throw new AppError('INVALID_ARGUMENT', 'A session title cannot be empty.');
  if (trimmed.length > MAX_TITLE) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `A session title is at most ${MAX_TITLE} characters; this one has ${trimmed.length}.`,
    );
  }
  return trimmed;
}

/**
 * Chat sessions and their messages. Deleting a session really deletes it and its messages; runs
 * started in it stay in the run history, detached from it.
 */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private now(): string {
    return this.clock().toISOString();
  }

  create(input: { title?: string | undefined; project: string }): SessionRecord {
    const id = randomUUID();
    const time = this.now();
    const title = input.title === undefined ? 'New session' : cleanTitle(input.title);
    this.db
      .prepare('INSERT INTO sessions (id, title, project, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, title, input.project, time, time);
    return this.get(id);
  }

  get(id: string): SessionRecord {
    const row = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
    if (!row) {
      throw new AppError(
        'NOT_FOUND',
        `There is no session ${id}. It may have been deleted; list the sessions to see which exist.`,
        {
          details: { sessionId: id },
        },
      );
    }
    return toSession(row);
  }

  /** Most recently updated first; `search` matches part of the title, ignoring case. */
  list(filter: { search?: string; project?: string; limit?: number; offset?: number } = {}): SessionRecord[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.search !== undefined && filter.search.trim() !== '') {
      where.push("title LIKE ? ESCAPE '\\'");
      params.push(`%${filter.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (filter.project !== undefined) {
      where.push('project = ?');
      params.push(filter.project);
    }
    params.push(filter.limit ?? 100, filter.offset ?? 0);
    const rows = this.db
      .prepare(
        `SELECT * FROM sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params) as SessionRow[];
    return rows.map(toSession);
  }

  rename(id: string, title: string): SessionRecord {
    const clean = cleanTitle(title);
    const changed = this.db
      .prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?')
      .run(clean, this.now(), id);
    if (changed.changes === 0) return this.get(id); // throws NOT_FOUND
    return this.get(id);
  }

  delete(id: string): void {
    const changed = this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
    if (changed.changes === 0) this.get(id); // throws NOT_FOUND
  }

  /** Appends a message after the last one and returns it with its sequence number. */
  appendMessage(sessionId: string, role: MessageRole, content: unknown): SessionMessage {
    if (!ROLES.includes(role)) {
      throw new AppError('INVALID_ARGUMENT', `A message role is one of ${ROLES.join(', ')}; got ${String(role)}.`);
    }
    const append = (): SessionMessage => {
      this.get(sessionId);
      const last = this.db
        .prepare('SELECT COALESCE(MAX(seq), 0) FROM session_messages WHERE session_id = ?')
        .pluck()
        .get(sessionId) as number;
      const time = this.now();
      const seq = last + 1;
      this.db
        .prepare('INSERT INTO session_messages (session_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(sessionId, seq, role, JSON.stringify(content ?? null), time);
      this.db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(time, sessionId);
      return { sessionId, seq, role, content: content ?? null, createdAt: time };
    };
    return writeTransaction(this.db, append);
  }

  /** In order; `afterSeq` and `limit` page through a long history. */
  messages(sessionId: string, page: { afterSeq?: number; limit?: number } = {}): SessionMessage[] {
    this.get(sessionId);
    const rows = this.db
      .prepare('SELECT * FROM session_messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(sessionId, page.afterSeq ?? 0, page.limit ?? -1) as MessageRow[];
    return rows.map((row) => ({
      sessionId: row.session_id,
      seq: row.seq,
      role: row.role,
      content: JSON.parse(row.content) as unknown,
      createdAt: row.created_at,
    }));
  }
}

function toSession(row: SessionRow): SessionRecord {
  return { id: row.id, title: row.title, project: row.project, createdAt: row.created_at, updatedAt: row.updated_at };
}
