/** Strings of the approval inbox. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
