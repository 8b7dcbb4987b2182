import { describe, expect, it } from 'vitest';

import { answerNote, mustAskPerson } from './ask-when-stuck.js';
import { ESCALATE_AFTER_FAILURES, emptyFailureState } from './failure-tracker.js';

describe('asking the person when stuck', () => {
  it('asks once enough actions in a row have failed', () => {
    const failures = emptyFailureState();
    failures.consecutive = ESCALATE_AFTER_FAILURES - 1;
    expect(mustAskPerson({ failures })).toBe(false);
    failures.consecutive = ESCALATE_AFTER_FAILURES;
    expect(mustAskPerson({ failures })).toBe(true);
  });

  it('keeps waiting on a question already asked, whatever the failure count', () => {
    expect(mustAskPerson({ failures: emptyFailureState(), openQuestionId: 'q1' })).toBe(true);
  });

  it('tells the model what the person answered', () => {
    expect(answerNote('Write to /tmp instead.')).toBe(
      'The person answered your request for help: Write to /tmp instead.',
    );
  });
});
