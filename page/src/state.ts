/**
 * What the page script remembers for one document: the refs it handed out and the lines of the
 * previous snapshot (to mark what changed). It lives as long as the document does; a navigation
 * or reload starts a new document, a new id and new refs.
 */
import type { PageError } from '@nextai/shared/browser';

export class PageFailure extends Error {
  constructor(
    readonly code: PageError['code'],
    message: string,
  ) {
    super(message);
  }
}

export class PageState {
  /** Random per document, so a driver can tell that refs belong to a page that is gone. */
  readonly doc = Math.random().toString(36).slice(2, 10);
  private readonly refs = new WeakMap<Element, string>();
  private readonly elements = new Map<string, WeakRef<Element>>();
  private counter = 0;
  /** Lines of the previous snapshot, keyed as they were printed (without change marks). */
  previousLines: Set<string> | undefined;
  /** The refs the previous snapshot showed, with their lines, to say what disappeared. */
  previousRefs = new Map<string, string>();
  /** The latest snapshot's lines, for paging through it with a cursor. */
  lastSnapshot: { id: number; lines: string[] } | undefined;

  refFor(element: Element): string {
    let ref = this.refs.get(element);
    if (!ref) {
      this.counter += 1;
      ref = `e${this.counter}`;
      this.refs.set(element, ref);
      this.elements.set(ref, new WeakRef(element));
    }
    return ref;
  }

  existingRef(element: Element): string | undefined {
    return this.refs.get(element);
  }

  /** The element behind a ref, or a clear error the model can act on. */
  resolveRef(ref: string): Element {
    const normalised = ref
      .trim()
      .replace(/^\[|\]$/g, '')
      .replace(/^ref=/, '');
    const held = this.elements.get(normalised);
    if (!held) {
      throw new PageFailure(
        'STALE_REF',
        `Ref ${normalised} is not on this page: refs belong to one page load, and the page has navigated or reloaded since that snapshot (or the ref was mistyped). Take a new browser_snapshot.`,
      );
    }
    const element = held.deref();
    if (!element || !element.isConnected) {
      this.elements.delete(normalised);
      throw new PageFailure(
        'STALE_REF',
        `Ref ${normalised} no longer exists: the page removed that element since your snapshot. Take a new browser_snapshot to see what is there now.`,
      );
    }
    return element;
  }
}
