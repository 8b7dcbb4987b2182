/** Strings of the right-click menu and the run it pre-fills. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
