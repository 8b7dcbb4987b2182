import { browser, type Browser } from 'wxt/browser';

import {
  AppError,
  isErrorCode,
  type DAEMON_METHODS,
  type DaemonEvent,
  type MethodParams,
  type MethodResult,
} from '@nextai/shared';

import { INITIAL_STATE, type ConnectionState } from './connection-state.js';
import {
  PANEL_PORT_NAME,
  backgroundToPanelSchema,
  type PanelMethod,
  type PanelToBackground,
  type RunDraft,
} from './panel-messages.js';
import type { PanelSurface } from './panel-surface.js';

/** Events the panel keeps for views that render from the recent history (activity, counters). */
const MAX_EVENTS = 2000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: AppError) => void;
}

/**
 * The side panel's line to the background, which owns the host connection. State and events are
 * pushed; requests are relayed to the daemon. Reconnects when the background restarts.
 */
export class PanelClient {
  state: ConnectionState = { ...INITIAL_STATE };
  events: DaemonEvent[] = [];
  /** A run prepared from a page (right-click menu) that the chat has not taken yet. */
  draft: RunDraft | undefined;
  private port: Browser.runtime.Port | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(event: DaemonEvent) => void>();
  private surface: PanelSurface | null = null;

  connect(): void {
    const port = browser.runtime.connect({ name: PANEL_PORT_NAME });
    this.port = port;
    // A new background knows nothing of where this page is.
    if (this.surface) this.post({ type: 'surface', surface: this.surface });
    port.onMessage.addListener((raw) => {
      const parsed = backgroundToPanelSchema.safeParse(raw);
      if (!parsed.success) return;
      const message = parsed.data;
      if (message.type === 'draft') {
        this.draft = message.draft;
      } else if (message.type === 'state') {
        this.state = message.state as unknown as ConnectionState;
      } else if (message.type === 'events') {
        const known = new Set(this.events.map((event) => event.seq));
        const fresh = (message.events as unknown as DaemonEvent[]).filter((event) => !known.has(event.seq));
        this.events = [...this.events, ...fresh].slice(-MAX_EVENTS);
        for (const event of fresh) for (const listener of this.eventListeners) listener(event);
      } else {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.outcome.ok) pending?.resolve(message.outcome.result);
        else {
          const { code, message: text, translations } = message.outcome.error;
          pending?.reject(new AppError(isErrorCode(code) ? code : 'INTERNAL', text, { translations }));
        }
      }
      this.emit();
    });
    port.onDisconnect.addListener(() => {
      for (const pending of this.pending.values()) {
        pending.reject(new AppError('DISCONNECTED', 'The extension background restarted.'));
      }
      this.pending.clear();
      // The background service worker restarted (or is being updated): connect to the new one.
      setTimeout(() => this.connect(), 200);
    });
  }

  /** A daemon method with its typed params and result (see DAEMON_METHODS in shared/). */
  call<M extends PanelMethod>(
    method: M,
    params: MethodParams<typeof DAEMON_METHODS, M>,
    options: { draftId?: string | undefined } = {},
  ): Promise<MethodResult<typeof DAEMON_METHODS, M>> {
    return this.request(method, params as Record<string, unknown>, options) as Promise<
      MethodResult<typeof DAEMON_METHODS, M>
    >;
  }

  request(
    method: PanelMethod,
    params: Record<string, unknown> = {},
    options: { draftId?: string | undefined } = {},
  ): Promise<unknown> {
    const port = this.port;
    if (!port) return Promise.reject(new AppError('DISCONNECTED', 'Not connected to the extension background.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: PanelToBackground = {
        type: 'request',
        id,
        method,
        params,
        ...(options.draftId ? { draft_id: options.draftId } : {}),
        // Whether a click or key of the person is behind this (answering and resetting need one).
        gesture: globalThis.navigator?.userActivation?.isActive ?? false,
      };
      port.postMessage(message);
    });
  }

  /** The chat put the draft in its composer. */
  takeDraft(id: string): void {
    if (this.draft?.id === id) this.draft = undefined;
    const message: PanelToBackground = { type: 'draft_taken', id };
    this.port?.postMessage(message);
    this.emit();
  }

  reconnect(): void {
    this.post({ type: 'reconnect' });
  }

  /** Where this page is on screen (see panel-surface.ts): the agent's input is kept away from it. */
  reportSurface(surface: PanelSurface | undefined): void {
    this.surface = surface ?? null;
    this.post({ type: 'surface', surface: this.surface });
  }

  private post(message: PanelToBackground): void {
    this.port?.postMessage(message);
  }

  /** Each new daemon event once, as it arrives (views that keep their own state from events). */
  onEvent(listener: (event: DaemonEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
