import { browser } from 'wxt/browser';

import type { ConnectionState } from '../connection-state.js';
import { STOP_REASONS } from '../messages/safety.js';
import type { BackgroundContext } from './features.js';

/** The manifest's command (wxt.config.ts). */
export const EMERGENCY_STOP_COMMAND = 'emergency-stop';

/** How long a stop waits for the host while the service worker (woken by the key) connects. */
const CONNECT_WAIT_MS = 10_000;

export interface CommandOutcome {
  ok: boolean;
  message: string;
}

/**
 * Browser keyboard commands declared in the manifest: the emergency stop. The
 * background owns the host connection, so the stop works with no side panel open. When the daemon
 * cannot be reached the person gets a notification saying how to stop from a terminal.
 */
export function startCommands(context: BackgroundContext): void {
  const handle = (command: string) => runCommand(context, command);
  browser.commands?.onCommand.addListener((command) => {
    void handle(command);
  });
}

export async function runCommand(context: BackgroundContext, command: string): Promise<CommandOutcome> {
  if (command !== EMERGENCY_STOP_COMMAND) return { ok: false, message: `unknown command ${command}` };
  try {
    await whenConnected(context);
    const report = await context.connection.request(
      'safety.stop',
      { reason: STOP_REASONS.keyboard.reason },
      { timeoutMs: 30_000 },
    );
    // The daemon sends its own notification that everything stopped.
    return { ok: true, message: report.already_active ? 'already stopped' : `stopped ${report.aborted_calls} calls` };
  } catch (error) {
    const message = (error as Error).message;
    await notify(
      'NextAI Agent: emergency stop failed',
      `${message} The browser cannot reach the NextAI daemon. In a terminal, run: nextai stop`,
    );
    return { ok: false, message };
  }
}

/** Resolves once connected; rejects if the connection gives up (or takes too long) first. */
function whenConnected(context: BackgroundContext): Promise<void> {
  const { connection } = context;
  if (connection.current.status === 'connected') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (outcome: (() => void) | Error) => {
      clearTimeout(timer);
      unsubscribe();
      if (outcome instanceof Error) reject(outcome);
      else outcome();
    };
    const check = (state: ConnectionState) => {
      if (state.status === 'connected') done(resolve);
      else if (state.status === 'disconnected') {
        done(new Error(state.error?.message ?? 'Not connected to the NextAI host.'));
      }
    };
    const timer = setTimeout(() => done(new Error('Timed out connecting to the NextAI host.')), CONNECT_WAIT_MS);
    const unsubscribe = connection.onStateChange(check);
    check(connection.current);
  });
}

async function notify(title: string, message: string): Promise<void> {
  try {
    await browser.notifications.create({ type: 'basic', iconUrl: '/icon/icon-128.png', title, message });
  } catch (error) {
    console.warn('NextAI: could not show a notification.', error);
  }
}
