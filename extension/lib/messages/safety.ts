/** Strings of the emergency stop. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
