// Test support: runs a JXA script's JavaScript in Node with stand-ins for the globals osascript
// provides (ObjC, $, Application, delay), so the script's own logic is exercised and any syntax
// error fails a test. What the real bridge and apps answer is not checked by this.
import { JXA_PRELUDE } from './jxa.js';

export type JxaGlobals = {
  ObjC?: unknown;
  $?: unknown;
  Application?: unknown;
  delay?: (seconds: number) => void;
};

/** ObjC with `import` and `bindFunction` as no-ops and the unwrap helpers as identity. */
export function fakeObjC(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    import: () => undefined,
    bindFunction: () => undefined,
    unwrap: (value: unknown) => value,
    deepUnwrap: (value: unknown) => value,
    castRefToObject: (value: unknown) => value,
    ...extra,
  };
}

/** Compiles prelude + script with the given globals and returns the named top-level functions. */
export function loadJxa<Names extends string>(
  script: string,
  globals: JxaGlobals,
  names: readonly Names[],
): Record<Names, (...args: unknown[]) => unknown> {
  const all = { ObjC: fakeObjC(), $: {}, Application: () => ({}), delay: () => undefined, ...globals };
  const body = `${JXA_PRELUDE}\n${script}\nreturn { ${names.map((name) => `${name}: ${name}`).join(', ')} };`;
  const factory = new Function(...Object.keys(all), body) as (
    ...values: unknown[]
  ) => Record<Names, (...args: unknown[]) => unknown>;
  return factory(...Object.values(all));
}
