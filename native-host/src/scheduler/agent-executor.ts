import { localizedMessage, say, verbatim, type DaemonEvent, type Localized, type RunView } from '@nextai/shared';

import type { RunManager } from '../agent/run-manager.js';
import type { Logger } from '../core/logger.js';
import type { Execution, ExecutionContext, ExecutionResult, TaskExecutor } from './executor.js';
import type { ScheduleTask } from './schedule-store.js';
import { runSteps, type StepServices } from './steps-executor.js';

export interface ExecutorServices extends StepServices {
  runs: Pick<RunManager, 'start' | 'view' | 'stop'>;
  log: Logger;
}

const ENDED = new Set(['finished', 'failed', 'stopped']);

/**
 * The daemon's task executor: fixed steps through the tool gateway, instructions as agent runs
 * through the run manager (with the task's grant, limits and source "schedule"), followed through
 * their `run.state` events until they end.
 */
export class DaemonTaskExecutor implements TaskExecutor {
  constructor(private readonly services: ExecutorServices) {}

  start(task: ScheduleTask, context: ExecutionContext): Execution {
    if (task.definition.steps) {
      const done = runSteps(task, context, this.services);
      // Stopped through the context's signal, which the scheduler aborts (the daemon stopping, the
      // wall-time limit): the gateway ends the call in progress or closes its approval request, and
      // runSteps starts no further step.
      return { done, cancel: () => undefined };
    }
    const limits = task.definition.limits;
    const run = this.services.runs.start(
      {
        goal: task.definition.instruction ?? '',
        project: task.definition.project,
        limits: {
          max_steps: limits.max_steps,
          max_tokens: limits.max_tokens,
          // The run may spend what its own limit allows, and no more than the task has left today.
          max_cost_usd: Math.max(0.000001, Math.min(limits.max_cost_usd, context.budgetUsd)),
        },
        ...(task.definition.granted_tools ? { grant: task.definition.granted_tools } : {}),
        source: 'schedule',
      },
      `schedule:${task.name}`,
    );
    context.onAgentRun(run.id);
    return this.follow(run.id, context);
  }

  reattach(_task: ScheduleTask, runId: string, context: ExecutionContext): Execution {
    return this.follow(runId, context);
  }

  async abandon(runId: string, reason: string): Promise<void> {
    try {
      await this.services.runs.stop(runId, reason);
    } catch (error) {
      this.services.log.warn('could not stop the run of a task that was turned off', {
        run: runId,
        error: (error as Error).message,
      });
    }
  }

  private follow(runId: string, context: ExecutionContext): Execution {
    let unsubscribe: () => void = () => undefined;
    const done = new Promise<ExecutionResult>((resolve) => {
      const check = (state: string) => {
        if (ENDED.has(state)) {
          unsubscribe();
          resolve(resultOf(this.services.runs.view(runId)));
          return;
        }
        if (state === 'waiting_approval' || state === 'running') context.onState(state);
        if (state === 'waiting_user') {
          const question = this.services.runs.view(runId).question?.question;
          context.onState('waiting_user', question);
        }
      };
      unsubscribe = this.services.events.subscribe((event: DaemonEvent) => {
        if (event.data.run_id !== runId) return;
        if (event.type === 'run.usage') context.onCost(Number(event.data.cost_usd) || 0);
        // Deferred: the listener runs inside EventLog.append, before the transition is complete.
        if (event.type === 'run.state') queueMicrotask(() => check(String(event.data.state)));
      });
      // The run may have moved on before the subscription (or while the daemon was down).
      check(this.services.runs.view(runId).state);
    });
    return {
      done,
      cancel: (reason) => {
        void this.services.runs
          .stop(runId, reason)
          .catch((error: unknown) =>
            this.services.log.warn('could not stop a scheduled run', { run: runId, error: (error as Error).message }),
          );
      },
    };
  }
}

/** How a task's run ended, for its history: a run that finished without an answer did not succeed. */
export function resultOf(run: RunView): ExecutionResult {
  const cost = run.usage.cost_usd;
  switch (run.state) {
    case 'finished':
      // The model declined, or a content filter stopped it: another try would be refused the same way.
      if (run.result_kind === 'declined' || run.result_kind === 'filtered') {
        const reason = brief(run.result ?? '');
        const why =
          run.result_kind === 'declined'
            ? say('The model declined to answer', '模型拒绝回答')
            : say("The provider's content filter stopped the answer", '服务商的内容过滤拦下了回答');
        return {
          outcome: 'denied',
          summary:
            reason === ''
              ? say(`${why.en}.`, `${why['zh-CN']}。`)
              : say(`${why.en}: ${reason}`, `${why['zh-CN']}：${reason}`),
          costUsd: cost,
        };
      }
      if (run.result_kind === 'no_answer') {
        return {
          outcome: 'failed',
          summary: say('The model gave no answer.', '模型没有给出回答。'),
          costUsd: cost,
        };
      }
      // The agent's own words are in the language it wrote them in.
      return {
        outcome: 'succeeded',
        summary: run.result ? verbatim(brief(run.result)) : say('Finished.', '已完成。'),
        costUsd: cost,
      };
    case 'failed':
      return {
        outcome: run.error?.code === 'LIMIT_REACHED' ? 'limit_reached' : 'failed',
        summary: briefly(run.error, say('The run failed.', '运行失败。')),
        costUsd: cost,
        errorCode: run.error?.code,
      };
    default:
      return {
        outcome: 'stopped',
        summary: briefly(run.error, say('The run was stopped.', '运行已被停止。')),
        costUsd: cost,
      };
  }
}

/** A run's error in every language it was written in, kept short; `otherwise` when it has none. */
function briefly(error: RunView['error'], otherwise: Localized): Localized {
  if (!error) return otherwise;
  const { en, 'zh-CN': zh } = localizedMessage(error.message, error.translations);
  return { en: brief(en), 'zh-CN': brief(zh) };
}

function brief(text: string): string {
  const line = text.trim();
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}
