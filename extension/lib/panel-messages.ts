import { z } from 'zod';

import { messageTranslationsSchema, type DaemonMethod } from '@nextai/shared';

import { panelSurfaceSchema } from './panel-surface.js';

/**
 * Daemon methods the side panel may call through the background: everything a person does in the
 * panel. Not the connection's own business (hello, events.subscribe) and not stopping the daemon.
 */
export const PANEL_METHODS = [
  'daemon.status',
  'daemon.ping',
  'tools.list',
  'tools.call',
  'blobs.read',
  'runs.start',
  'runs.list',
  'runs.get',
  'runs.pause',
  'runs.resume',
  'runs.stop',
  'runs.steer',
  'runs.answer',
  'sessions.create',
  'sessions.list',
  'sessions.get',
  'sessions.rename',
  'sessions.delete',
  'sessions.messages',
  'approvals.list',
  'approvals.answer',
  'policy.show',
  'policy.explain',
  'policy.set_template',
  'audit.list',
  'safety.stop',
  'safety.reset',
  'safety.status',
  'settings.get',
  'settings.set_ui',
  'settings.set_model',
  'settings.test_model',
  'settings.list_models',
  'settings.set_security',
  'settings.save_project',
  'settings.delete_project',
  'schedules.list',
  'schedules.get',
  'schedules.create',
  'schedules.update',
  'schedules.delete',
  'schedules.run_now',
  'schedules.history',
  'schedules.preview',
] as const satisfies readonly DaemonMethod[];
export type PanelMethod = (typeof PANEL_METHODS)[number];

/**
 * What only a click (or key) of the person in the panel may send: the browser must report a user
 * activation when it is sent. (The daemon also refuses them while the agent drives the mouse and
 * keyboard, which the browser cannot tell from the person's.)
 */
export const GESTURE_METHODS: ReadonlySet<PanelMethod> = new Set<PanelMethod>([
  'approvals.answer',
  'safety.reset',
  'policy.set_template',
  'settings.set_model',
  // It may send the saved key to its server: on the person's click only.
  'settings.list_models',
  'settings.set_security',
  'settings.save_project',
  'settings.delete_project',
  'schedules.create',
  'schedules.update',
  'schedules.delete',
  'sessions.delete',
  'runs.answer',
  'runs.resume',
]);

export const PANEL_PORT_NAME = 'nextai-panel';

/** Side panel → background. */
export const panelToBackgroundSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('request'),
    id: z.number().int(),
    method: z.enum(PANEL_METHODS),
    params: z.record(z.string(), z.unknown()),
    /**
     * `runs.start` of a run prepared by the right-click menu: the run gets the tab that draft was
     * made on (and no other run does).
     */
    draft_id: z.string().optional(),
    /** The panel had a user activation (a click or key of the person) when it sent this. */
    gesture: z.boolean().optional(),
  }),
  z.object({ type: z.literal('reconnect') }),
  /** The panel took the draft (it is in the composer): the background forgets it. */
  z.object({ type: z.literal('draft_taken'), id: z.string() }),
  /** Where the page is on screen and whether it has the focus (null: not on screen). */
  z.object({ type: z.literal('surface'), surface: panelSurfaceSchema.nullable() }),
]);
export type PanelToBackground = z.infer<typeof panelToBackgroundSchema>;

/**
 * A run the person started from a page (the right-click menu): what they selected or pointed at,
 * where, and a short instruction they can edit before sending.
 */
export const runDraftSchema = z.object({
  id: z.string(),
  instruction: z.string(),
  context: z.object({
    kind: z.enum(['selection', 'link', 'image', 'page']),
    selection: z.string().optional(),
    link_url: z.string().optional(),
    image_url: z.string().optional(),
    page_url: z.string().optional(),
    page_title: z.string().optional(),
    tab_id: z.number().int().optional(),
  }),
});
export type RunDraft = z.infer<typeof runDraftSchema>;

/** Background → side panel. State and events are pushed; responses answer requests. */
export const backgroundToPanelSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('draft'), draft: runDraftSchema }),
  z.object({ type: z.literal('state'), state: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('events'), events: z.array(z.record(z.string(), z.unknown())) }),
  z.object({
    type: z.literal('response'),
    id: z.number().int(),
    outcome: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), result: z.unknown() }),
      z.object({
        ok: z.literal(false),
        error: z.object({
          code: z.string(),
          message: z.string(),
          translations: messageTranslationsSchema.optional(),
        }),
      }),
    ]),
  }),
]);
export type BackgroundToPanel = z.infer<typeof backgroundToPanelSchema>;
