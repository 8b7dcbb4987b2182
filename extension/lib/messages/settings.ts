/** Strings of settings and the first-run wizard. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
