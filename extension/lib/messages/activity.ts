/** Strings of the activity log and the live view. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
