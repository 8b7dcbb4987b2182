import type { CDPSession } from 'playwright-core';

import { AppError, PAGE_AGENT_GLOBAL, type PageReply, type PageRequest } from '@nextai/shared';

const WORLD_NAME = 'nextai-page-agent';

/**
 * The page agent in an isolated world of a headless page (CDP Page.createIsolatedWorld), as the
 * extension runs it in its content-script world: the page's scripts cannot see it, replace the
 * DOM functions it uses, or fool its classification of what an action would do.
 */
export class PageWorld {
  private contextId: number | undefined;
  /** Counts the top frame's new documents, so a world built across one is not kept. */
  private documents = 0;
  /** Page events subscribed and enabled: no world is built before a new document would be seen. */
  private readonly watching: Promise<void>;
  private readonly newDocumentListeners: (() => void)[] = [];

  /** `session` may still be opening: the first call waits for it. */
  constructor(
    private readonly session: Promise<CDPSession>,
    private readonly bundle: string,
  ) {
    // The world lives as long as its document. Only a new document ends it: a same-document
    // navigation (history.pushState, a #hash) keeps the page agent and its refs, and must not
    // leave the old world behind, the bundle in it, while a new one is built.
    this.watching = session.then(async (cdp) => {
      cdp.on('Page.frameNavigated', ({ frame }) => {
        if (frame.parentId !== undefined) return;
        this.documents += 1;
        this.contextId = undefined;
        for (const listener of this.newDocumentListeners) listener();
      });
      await cdp.send('Page.enable');
    });
    // A failure is reported to the first call, which awaits the session; a page closed before any
    // call must not become an unhandled rejection that ends the daemon.
    this.watching.catch(() => undefined);
  }

  /** Called when the tab's top frame has a new document (not for same-document navigations). */
  onNewDocument(listener: () => void): void {
    this.newDocumentListeners.push(listener);
  }

  /** Forgets the world; the next call builds it again. */
  reset(): void {
    this.contextId = undefined;
  }

  async call<T>(request: PageRequest): Promise<PageReply<T>> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const contextId = await this.ensure();
      const cdp = await this.session;
      try {
        const result = (await cdp.send('Runtime.evaluate', {
          expression: `globalThis[${JSON.stringify(PAGE_AGENT_GLOBAL)}].handle(${JSON.stringify(request)})`,
          contextId,
          awaitPromise: true,
          returnByValue: true,
        })) as {
          result: { value?: unknown };
          exceptionDetails?: { text: string; exception?: { description?: string } };
        };
        if (result.exceptionDetails) {
          const text = result.exceptionDetails.exception?.description ?? result.exceptionDetails.text;
          throw new AppError('TOOL_FAILED', `The page script failed: ${text}`);
        }
        return result.result.value as PageReply<T>;
      } catch (error) {
        if (error instanceof AppError) throw error;
        const message = (error as Error).message;
        if (/Cannot find context|context was destroyed|Target closed|navigated|No frame/i.test(message)) {
          this.contextId = undefined;
          // A world that no longer exists ran nothing: asking again is safe, for actions too. A
          // context destroyed while the call ran may have acted: that is reported, not repeated.
          const ranNothing = /Cannot find context/i.test(message);
          if (attempt === 0 && (ranNothing || request.op !== 'act')) continue;
          throw new AppError(
            'PAGE_NAVIGATED',
            'The page navigated away while the action ran. Take a browser_snapshot to see where the tab is now.',
            { cause: error },
          );
        }
        if (/has been closed|Session closed/i.test(message)) {
          throw new AppError('TAB_CLOSED', 'The tab was closed.');
        }
        throw new AppError('TOOL_FAILED', `The page could not be reached: ${message}`);
      }
    }
    throw new AppError('PAGE_NAVIGATED', 'The page kept navigating; take a browser_snapshot.');
  }

  private async ensure(): Promise<number> {
    await this.watching;
    if (this.contextId !== undefined) return this.contextId;
    const generation = this.documents;
    const cdp = await this.session;
    const tree = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const world = (await cdp.send('Page.createIsolatedWorld', {
      frameId: tree.frameTree.frame.id,
      worldName: WORLD_NAME,
      grantUniveralAccess: false,
    })) as { executionContextId: number };
    const installed = (await cdp.send('Runtime.evaluate', {
      expression: this.bundle,
      contextId: world.executionContextId,
    })) as { exceptionDetails?: { text: string } };
    if (installed.exceptionDetails) {
      throw new AppError(
        'TOOL_FAILED',
        `The page agent could not start in this page: ${installed.exceptionDetails.text}`,
      );
    }
    // Built in a document that has since gone: used once (it fails as a lost context), not kept.
    if (generation === this.documents) this.contextId = world.executionContextId;
    return world.executionContextId;
  }
}
