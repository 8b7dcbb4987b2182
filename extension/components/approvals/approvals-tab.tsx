import type { PanelProps } from '../panel-props.js';

/** The approval inbox (issue #6 point 2). */
export function ApprovalsTab({ t }: PanelProps) {
  return (
    <section className="card" data-testid="approvals-tab">
      <p className="hint">{t('loading')}</p>
    </section>
  );
}

/** Pending approvals, for the tab's counter. */
export function usePendingApprovalCount(_props: PanelProps): number {
  return 0;
}
