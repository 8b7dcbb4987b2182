/** Strings of the emergency stop. Every key in both languages. */

/**
 * The reasons the extension gives the daemon when it stops (kept in English in the audit log),
 * with the message that shows them in the panel's language.
 */
export const STOP_REASONS = {
  panel: { reason: 'the stop button in the side panel', key: 'stopReasonPanel' },
  keyboard: { reason: 'the emergency-stop keyboard command', key: 'stopReasonKeyboard' },
} as const;

export const en = {
  stopButton: 'Stop',
  stopButtonLabel: 'Emergency stop: stop everything the agent is doing ({shortcut})',
  stopping: 'Stopping…',
  stoppedPill: 'Stopped',
  stoppedTitle: 'Emergency stop is on',
  stoppedSince: 'Since {time} · by {by}',
  stoppedReason: 'Reason: {reason}',
  stoppedBody:
    'Every run is paused and no tool may run until you reset. After the reset, resume paused runs from the chat.',
  resetButton: 'Reset',
  resetButtonLabel: 'Lift the emergency stop so tools may run again',
  resetting: 'Resetting…',
  stopFailed: 'Could not stop: {message} The daemon is not reachable from the browser; in a terminal, run: nextai stop',
  resetFailed: 'Could not reset: {message}',
  stopNotConnected: 'Not connected to the NextAI host.',
  stopReasonPanel: 'the stop button in the side panel',
  stopReasonKeyboard: 'the keyboard shortcut (Alt+Shift+S)',
} as const;

export const zhCN: Record<keyof typeof en, string> = {
  stopButton: '停止',
  stopButtonLabel: '紧急停止：停止智能体正在做的一切（{shortcut}）',
  stopping: '正在停止…',
  stoppedPill: '已停止',
  stoppedTitle: '紧急停止已开启',
  stoppedSince: '自 {time} 起 · 由 {by} 触发',
  stoppedReason: '原因：{reason}',
  stoppedBody: '所有任务已暂停，重置之前任何工具都不会运行。重置后，可在对话中继续已暂停的任务。',
  resetButton: '重置',
  resetButtonLabel: '解除紧急停止，允许工具再次运行',
  resetting: '正在重置…',
  stopFailed: '无法停止：{message} 浏览器连不上守护进程；请在终端中运行：nextai stop',
  resetFailed: '无法重置：{message}',
  stopNotConnected: '尚未连接到 NextAI 主机。',
  stopReasonPanel: '侧边栏中的停止按钮',
  stopReasonKeyboard: '键盘快捷键（Alt+Shift+S）',
};
