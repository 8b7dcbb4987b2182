import { randomUUID } from 'node:crypto';

import { AppError, type RunQuestion } from '@nextai/shared';

import type { Db } from '../storage/database.js';
import { durably } from './run-store.js';

export interface QuestionRecord extends RunQuestion {
  runId: string;
  callId: string | null;
  answer: string | null;
  answeredAt: string | null;
  answeredBy: string | null;
}

interface QuestionRow {
  id: string;
  run_id: string;
  call_id: string | null;
  kind: RunQuestion['kind'];
  question: string;
  options: string;
  asked_at: string;
  answer: string | null;
  answered_at: string | null;
  answered_by: string | null;
}

/**
 * Questions a run asks the person, in SQLite: the run waits in `waiting_user` until the answer is
 * written, and a restart finds the same question still open (or already answered) instead of
 * asking again. `wait` resolves in this process when `answer` is called.
 */
export class QuestionStore {
  private readonly waiters = new Map<string, ((answer: string) => void)[]>();

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Asks, or finds the question already asked for this tool call (`callId`) of the run — a resumed
   * run repeats an `ask_user` call with its old id and gets the same question back.
   */
  ask(input: {
    runId: string;
    callId?: string | undefined;
    kind: RunQuestion['kind'];
    question: string;
    options?: readonly string[] | undefined;
  }): { question: QuestionRecord; created: boolean } {
    if (input.callId !== undefined) {
      const row = this.db
        .prepare('SELECT * FROM run_questions WHERE run_id = ? AND call_id = ?')
        .get(input.runId, input.callId) as QuestionRow | undefined;
      if (row) return { question: toQuestion(row), created: false };
    }
    const id = randomUUID();
    durably(this.db, () =>
      this.db
        .prepare(
          `INSERT INTO run_questions (id, run_id, call_id, kind, question, options, asked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          input.runId,
          input.callId ?? null,
          input.kind,
          input.question,
          JSON.stringify(input.options ?? []),
          this.clock().toISOString(),
        ),
    );
    return { question: this.get(id), created: true };
  }

  get(id: string): QuestionRecord {
    const row = this.db.prepare('SELECT * FROM run_questions WHERE id = ?').get(id) as QuestionRow | undefined;
    if (!row) throw new AppError('NOT_FOUND', `There is no question ${id}.`);
    return toQuestion(row);
  }

  /** The question the run is waiting on, if any (the oldest unanswered). */
  open(runId: string): QuestionRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM run_questions WHERE run_id = ? AND answered_at IS NULL ORDER BY asked_at, rowid LIMIT 1')
      .get(runId) as QuestionRow | undefined;
    return row && toQuestion(row);
  }

  /** Records the answer to the run's open question and wakes whoever waits for it. */
  answer(runId: string, answer: string, by: string): QuestionRecord {
    const text = answer.trim();
    if (text === '') throw new AppError('INVALID_ARGUMENT', 'An answer cannot be empty.');
    const question = this.open(runId);
    if (!question) {
      throw new AppError(
        'ALREADY_ANSWERED',
        `Run ${runId} is not waiting for an answer (its question was answered already, or it asked none).`,
        { details: { runId } },
      );
    }
    durably(this.db, () =>
      this.db
        .prepare('UPDATE run_questions SET answer = ?, answered_at = ?, answered_by = ? WHERE id = ?')
        .run(text, this.clock().toISOString(), by, question.id),
    );
    const answered = this.get(question.id);
    const waiting = this.waiters.get(question.id) ?? [];
    this.waiters.delete(question.id);
    for (const resolve of waiting) resolve(text);
    return answered;
  }

  /** Resolves with the answer: at once if it was given already (perhaps while the daemon was down). */
  wait(id: string, signal?: AbortSignal): Promise<string> {
    const question = this.get(id);
    if (question.answer !== null) return Promise.resolve(question.answer);
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(id) ?? [];
      const onAbort = () => {
        const remaining = (this.waiters.get(id) ?? []).filter((entry) => entry !== settle);
        if (remaining.length > 0) this.waiters.set(id, remaining);
        else this.waiters.delete(id);
        reject(signal?.reason instanceof Error ? signal.reason : new AppError('DISCONNECTED', 'Stopped waiting.'));
      };
      const settle = (answer: string) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      list.push(settle);
      this.waiters.set(id, list);
    });
  }
}

function toQuestion(row: QuestionRow): QuestionRecord {
  return {
    id: row.id,
    runId: row.run_id,
    callId: row.call_id,
    kind: row.kind,
    question: row.question,
    options: JSON.parse(row.options) as string[],
    asked_at: row.asked_at,
    answer: row.answer,
    answeredAt: row.answered_at,
    answeredBy: row.answered_by,
  };
}
