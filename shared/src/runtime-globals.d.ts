/**
 * The few host facilities `shared/` relies on that both runtimes (Node and browsers) provide.
 * Declared here by hand because `shared/` compiles with neither Node's nor the DOM's type
 * libraries: that is what keeps `process`, `Buffer`, `chrome` and `window` out of it.
 */
declare function setTimeout(callback: () => void, milliseconds: number): unknown;
declare function clearTimeout(handle: unknown): void;

declare class TextEncoder {
  encode(input: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input: Uint8Array): string;
}

/** Both runtimes' abort signals, as far as a withdrawn request needs them. */
declare class AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
