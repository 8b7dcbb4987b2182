import { randomUUID } from 'node:crypto';

import { localizedMessage, say, toAppError, type DaemonEvent, type ToolResult } from '@nextai/shared';

import type { CallContext, ToolCallRequest } from '../gateway/tool-gateway.js';
import type { ExecutionContext, ExecutionResult } from './executor.js';
import type { ScheduleTask, StepRecord } from './schedule-store.js';
import { stepFingerprint } from './steps-resume.js';

export interface StepServices {
  /** The policy chokepoint (ToolGateway.call). */
  callTool(request: ToolCallRequest, context: CallContext): Promise<ToolResult>;
  events: { subscribe(listener: (event: DaemonEvent) => void): () => void };
}

/**
 * Runs a fixed-step task: each `{tool, input}` in order, through the gateway with the task's grant
 * and project, as source "schedule" — validated, decided, asked about if the policy says so,
 * executed and audited like any other call. Stops at the first step that does not succeed, and
 * before the next step once the context's signal is aborted (a stop, the wall-time limit).
 * A retry starts after the steps its earlier attempt finished (`context.resume`).
 */
export async function runSteps(
  task: ScheduleTask,
  context: ExecutionContext,
  services: StepServices,
): Promise<ExecutionResult> {
  const steps = task.definition.steps ?? [];
  // Steps an earlier attempt of this run finished stay in its list, marked, and are not done again.
  const records: StepRecord[] = (context.resume?.carried ?? []).map((record) => ({ ...record, carried: true }));
  const first = records.length;
  if (first > 0) context.onSteps(records);
  for (let index = first; index < steps.length; index++) {
    const step = steps[index]!;
    if (context.signal.aborted) {
      return {
        outcome: 'stopped',
        summary: say(
          `Stopped before step ${index + 1} (${step.tool}).`,
          `在第 ${index + 1} 步（${step.tool}）之前停止。`,
        ),
        costUsd: 0,
      };
    }
    const callId = randomUUID();
    // The intent is on disk before the call: after a crash the history says which step was going.
    const record: StepRecord = {
      tool: step.tool,
      call_id: callId,
      fingerprint: stepFingerprint(step),
      started_at: new Date().toISOString(),
    };
    records.push(record);
    context.onSteps(records);
    // A call the policy asks about parks the run until the person answers (never auto-approved).
    // While it waits it has certainly not executed: the mark lets a retry ask again rather than
    // treat it as an action of unknown outcome. Only an approval clears it (then the tool runs).
    const unsubscribe = services.events.subscribe((event) => {
      if (event.data.call_id !== callId) return;
      if (event.type === 'approval.requested') {
        record.awaiting_approval = true;
        context.onSteps(records);
        context.onState('waiting_approval');
      }
      if (event.type === 'approval.answered') {
        if (event.data.status === 'approved') {
          delete record.awaiting_approval;
          context.onSteps(records);
        }
        context.onState('running');
      }
    });
    let result: ToolResult;
    try {
      result = await services.callTool(
        { name: step.tool, input: step.input, call_id: callId },
        {
          source: 'schedule',
          project: task.definition.project,
          ...(task.definition.granted_tools ? { grant: task.definition.granted_tools } : {}),
          cancel: context.signal,
        },
      );
    } catch (error) {
      const appError = toAppError(error, 'TOOL_FAILED');
      result = {
        ok: false,
        error: {
          code: appError.code,
          message: appError.message,
          ...(appError.translations ? { translations: appError.translations } : {}),
        },
        duration_ms: 0,
      };
    } finally {
      unsubscribe();
    }
    record.finished_at = new Date().toISOString();
    // Aborted while it ran: whatever the result says, it may have done part of its work.
    if (context.signal.aborted && !record.awaiting_approval) record.cut_short = true;
    record.ok = result.ok;
    record.summary = result.ok ? briefly(result.output) : result.error.message.slice(0, 500);
    if (!result.ok) record.error_code = result.error.code;
    context.onSteps(records);
    if (!result.ok) {
      const why = localizedMessage(result.error.message, result.error.translations);
      return {
        outcome: outcomeOf(result.error.code),
        summary: say(
          `Step ${index + 1} of ${steps.length} (${step.tool}) did not succeed: ${why.en}`,
          `第 ${index + 1}/${steps.length} 步（${step.tool}）没有成功：${why['zh-CN']}`,
        ),
        costUsd: 0,
        errorCode: result.error.code,
      };
    }
  }
  const tools = steps.map((step) => step.tool).join(', ');
  const last = records.at(-1)?.summary;
  const earlier =
    first === 0
      ? say('', '')
      : say(
          ` Step${first === 1 ? ' 1 was' : `s 1–${first} were`} done by an earlier attempt and not repeated.`,
          `第 ${first === 1 ? '1' : `1–${first}`} 步已由之前的尝试完成，没有重复。`,
        );
  // The last result is the tool's own output, shown as it is in both languages.
  return {
    outcome: 'succeeded',
    summary: say(
      `${steps.length} step${steps.length === 1 ? '' : 's'} done (${tools}).${earlier.en}${last ? ` Last result: ${last}` : ''}`,
      `已完成 ${steps.length} 步（${tools}）。${earlier['zh-CN']}${last ? `最后结果：${last}` : ''}`,
    ),
    costUsd: 0,
  };
}

function outcomeOf(code: string): ExecutionResult['outcome'] {
  switch (code) {
    case 'APPROVAL_DENIED':
      return 'denied';
    case 'POLICY_BLOCKED':
      return 'blocked';
    case 'EMERGENCY_STOPPED':
    case 'APPROVAL_CANCELLED':
    case 'DISCONNECTED':
      return 'stopped';
    default:
      return 'failed';
  }
}

/** A tool's output in a line, for the history. */
function briefly(output: unknown): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
