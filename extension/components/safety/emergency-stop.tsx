import type { PanelProps } from '../panel-props.js';

/** The emergency stop, always visible in the header (issue #6 point 4). */
export function EmergencyStop(_props: PanelProps) {
  return null;
}
