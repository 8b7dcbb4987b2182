import {
  resourcesOf,
  getTool,
  type AnyTool,
  type BrowserCallContext,
  type GrantedToolSet,
  type NavigationRules,
  type SensitiveTarget,
  type ToolOutcome,
  type UploadFile,
} from '@nextai/shared';

import type { BrowserBackend, ExtensionClient, InspectedTool, InspectResult } from '../browser/backend.js';
import { ExtensionBackend } from '../browser/backend.js';
import type { Logger } from '../core/logger.js';

export type Availability = { available: true } | { available: false; reason: string };

/** The call as the browser sees it: which run it belongs to, under which grant. */
export interface BrowserCall {
  runId?: string | undefined;
  grant?: GrantedToolSet | undefined;
}

export interface BrowserRoutingOptions {
  log: Logger;
  /** Connected clients that can run browser tools, most recent first. */
  browserClients: () => ExtensionClient[];
  /** How long a browser tool may take before the call gives up. */
  extensionTimeoutMs?: number | undefined;
  /** The daemon's own headless browser, for when no extension is connected. */
  headless?: (() => BrowserBackend | undefined) | undefined;
  /** The domain policy as navigation rules the browser enforces (redirects, clicked links). */
  navigationRules?: ((grant?: GrantedToolSet) => NavigationRules) | undefined;
  /** Reads a file for browser_interact `upload`, once the policy allowed its path. */
  readUpload?: ((path: string) => UploadFile) | undefined;
}

/**
 * Where the tools that run in a browser (`runsIn: 'extension'`) go: the extension of the most
 * recent browser that can run them, else the daemon's headless browser. It also asks the browser
 * about a call before the policy decides — the page element it would act on, the tab it would
 * take — and carries to the browser what the policy allowed (the sensitive kind approved, the
 * navigation rules, an upload's file).
 */
export class BrowserRouting {
  constructor(private readonly options: BrowserRoutingOptions) {}

  /**
   * The daemon's headless browser stays open for a browser call from here to its end: the person
   * may take longer over its approval than the browser's idle time, and the tab the call was asked
   * about must still be there when it runs. Returns the release.
   */
  hold(tool: AnyTool): (() => void) | undefined {
    return tool.runsIn === 'extension' ? this.options.headless?.()?.hold?.() : undefined;
  }

  /** Whether a browser tool can run now: a connected extension that offers it, or the headless browser. */
  availability(tool: Extract<AnyTool, { runsIn: 'extension' }>): Availability {
    const clients = this.options.browserClients();
    if (clients.some((client) => client.info?.tools.includes(tool.name))) return { available: true };
    if (this.options.headless?.()) return { available: true };
    if (clients.length === 0) {
      return {
        available: false,
        reason:
          'No browser with the NextAI extension is connected, and no Chrome or Chromium was found to browse headless (set browser.executable_path in config.json).',
      };
    }
    return { available: false, reason: 'The connected browser extension cannot run it.' };
  }

  /** Runs a browser tool the policy allowed (`sensitive`: the kind of sensitive target the person approved). */
  async run(
    tool: Extract<AnyTool, { runsIn: 'extension' }>,
    input: Record<string, unknown>,
    callId: string,
    call: BrowserCall,
    sensitive: SensitiveTarget | undefined,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const backend = this.backend();
    if (!backend) return unavailable(`${tool.title} needs a browser, and none is connected.`);
    let file: UploadFile | undefined;
    // A file of this computer sent to the page: read here, once the policy allowed its path.
    const upload = resourcesOf(tool, input).files?.find((use) => use.verb === 'uploads');
    if (upload) {
      if (!this.options.readUpload) return unavailable('Uploading files is not available here.');
      file = this.options.readUpload(upload.path);
    }
    // Only the sensitive kind the person just approved is let through; the page refuses any other.
    const allow = sensitive ? [sensitive.kind] : [];
    return backend.call(tool.name, input, callId, this.context(call, allow, file), signal);
  }

  /** What the page says about the element a call would act on; undefined when it cannot be asked. */
  inspectElement(
    input: Record<string, unknown>,
    callId: string,
    call: BrowserCall,
  ): Promise<InspectResult | undefined> {
    return this.inspect(input, callId, call, 'browser_interact');
  }

  /**
   * browser_tabs attach: the tab it would take, asked of the browser before the policy decides
   * and pinned into the input. Without a tab_id, a browser that cannot say which tab it means
   * gets the call refused (the model lists the tabs and names one): an unpinned attach could take
   * a tab the person never saw on the approval card.
   */
  async pinTab(
    input: Record<string, unknown>,
    callId: string,
    call: BrowserCall,
  ): Promise<{ ok: true; input: Record<string, unknown>; target?: string } | { ok: false; message: string }> {
    const inspected = await this.inspect(input, callId, call, 'browser_tabs');
    const tabId = inspected?.tab_id ?? (typeof input.tab_id === 'number' ? input.tab_id : undefined);
    if (tabId === undefined || (input.tab_id !== undefined && tabId !== input.tab_id)) {
      if (inspected?.error) this.options.log.info('the browser did not name the tab to attach', inspected.error);
      return {
        ok: false,
        message:
          'browser_tabs attach needs a tab_id here: the browser could not tell which tab the person has in front. List the tabs with browser_tabs {"action":"list"} and attach the one the person means by its tab_id.',
      };
    }
    // The browser's words for the tab (its title comes from the page): kept short on the card.
    const target = inspected?.target?.slice(0, 200);
    return { ok: true, input: { ...input, tab_id: tabId }, ...(target ? { target } : {}) };
  }

  private async inspect(
    input: Record<string, unknown>,
    callId: string,
    call: BrowserCall,
    tool: InspectedTool,
  ): Promise<InspectResult | undefined> {
    const backend = this.backend();
    if (!backend) return undefined;
    try {
      return await backend.inspect(input, callId, this.context(call, [], undefined), tool);
    } catch (error) {
      // Without a description the call still runs with nothing sensitive approved: the page agent
      // refuses a sensitive target itself (TARGET_CHANGED), so this fails closed.
      this.options.log.warn('could not inspect the page before deciding', { error: (error as Error).message });
      return undefined;
    }
  }

  private context(
    call: BrowserCall,
    allow: SensitiveTarget['kind'][],
    file: UploadFile | undefined,
  ): BrowserCallContext {
    return {
      ...(call.runId ? { run_id: call.runId } : {}),
      allow_sensitive: allow,
      ...(this.options.navigationRules ? { navigation: this.options.navigationRules(call.grant) } : {}),
      ...(file ? { file } : {}),
    };
  }

  /** The extension of the most recent browser that can run browser tools, else the headless browser. */
  private backend(): BrowserBackend | undefined {
    const client = this.options
      .browserClients()
      .find((candidate) => candidate.info?.tools.some((name) => getTool(name)?.runsIn === 'extension'));
    if (client) return new ExtensionBackend(client, this.options.extensionTimeoutMs ?? 120_000);
    return this.options.headless?.();
  }
}

/** A browser call that could not start: no browser, or no way to read the file it uploads. */
function unavailable(message: string): ToolOutcome {
  return { ok: false, error: { code: 'UNAVAILABLE', message } };
}
