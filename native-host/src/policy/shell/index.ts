export { analyzeShellCommand, type AnalyzeOptions, type ShellAnalysis } from './analyze.js';
export { initShellAnalyzer, isShellAnalyzerReady, MAX_COMMAND_BYTES } from './parser.js';
export type { ShellFinding } from './state.js';
