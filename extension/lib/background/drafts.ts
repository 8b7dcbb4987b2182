import type { BackgroundToPanel, RunDraft } from '../panel-messages.js';

/**
 * The run a person prepared from a page, kept until a side panel takes it into its composer
 * (the panel may not be open yet when the menu item is clicked).
 */
export class DraftBox {
  private draft: RunDraft | undefined;

  constructor(private readonly broadcast: (message: BackgroundToPanel) => void) {}

  offer(draft: RunDraft): void {
    this.draft = draft;
    this.broadcast({ type: 'draft', draft });
  }

  current(): RunDraft | undefined {
    return this.draft;
  }

  taken(id: string): void {
    if (this.draft?.id === id) this.draft = undefined;
  }
}
