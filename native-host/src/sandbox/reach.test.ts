import { describe, expect, it } from 'vitest';

import { describeLostReach, lostReach } from './reach.js';

const home = '/home/u';
const secrets = ['/home/u/.ssh', '/home/u/.gnupg', '/data/nextai'];

describe('lostReach: what a running sandbox reaches that the policy in force no longer allows', () => {
  const started = { writable: ['/home/u/Projects', '/home/u/Desktop'], hidden: secrets };

  it('nothing when the policy is the same', () => {
    expect(lostReach(started, { writable: ['/home/u/Projects', '/home/u/Desktop'], hidden: secrets })).toBeUndefined();
  });

  it('a writable folder removed from the allowed folders', () => {
    expect(lostReach(started, { writable: ['/home/u/Projects'], hidden: secrets })).toEqual({
      writable: ['/home/u/Desktop'],
      hidden: [],
    });
  });

  it('every writable folder when none are allowed any more', () => {
    expect(lostReach(started, { writable: [], hidden: secrets })?.writable).toEqual([
      '/home/u/Projects',
      '/home/u/Desktop',
    ]);
  });

  it('a writable folder narrowed to a folder inside it (the rest of it was writable)', () => {
    expect(
      lostReach(started, { writable: ['/home/u/Projects/app', '/home/u/Desktop'], hidden: secrets })?.writable,
    ).toEqual(['/home/u/Projects']);
  });

  it('a place newly hidden (a denied pattern added), also inside a folder that stays writable', () => {
    expect(
      lostReach(started, {
        writable: started.writable,
        hidden: [...secrets, '/home/u/Projects/client-secrets'],
      }),
    ).toEqual({ writable: [], hidden: ['/home/u/Projects/client-secrets'] });
  });

  it('a hidden place that grew to hold one hidden before', () => {
    expect(
      lostReach({ writable: [], hidden: ['/home/u/.aws/credentials'] }, { writable: [], hidden: ['/home/u/.aws'] }),
    ).toEqual({ writable: [], hidden: ['/home/u/.aws'] });
  });

  describe('a wider policy loses nothing', () => {
    it('a folder added', () => {
      expect(
        lostReach(started, { writable: ['/home/u/Projects', '/home/u/Desktop', '/srv/data'], hidden: secrets }),
      ).toBeUndefined();
    });

    it('a writable folder now allowed as part of a larger one', () => {
      const narrow = { writable: ['/home/u/Projects/app'], hidden: secrets };
      expect(lostReach(narrow, { writable: ['/home/u/Projects'], hidden: secrets })).toBeUndefined();
    });

    it('a place no longer hidden (a denied pattern removed), or hidden within one hidden before', () => {
      const more = { writable: ['/home/u/Projects'], hidden: [...secrets, '/home/u/Private'] };
      expect(lostReach(more, { writable: ['/home/u/Projects'], hidden: secrets })).toBeUndefined();
      expect(
        lostReach(more, { writable: ['/home/u/Projects'], hidden: [...secrets, '/home/u/Private/inner'] }),
      ).toBeUndefined();
    });

    it('a folder in the same order or another: only what is covered counts', () => {
      expect(
        lostReach(started, { writable: ['/home/u/Desktop', '/home/u/Projects'], hidden: [...secrets].reverse() }),
      ).toBeUndefined();
    });
  });

  it('does not take a sibling with a longer name for the folder itself', () => {
    expect(
      lostReach({ writable: ['/home/u/Projects-old'], hidden: [] }, { writable: ['/home/u/Projects'], hidden: [] })
        ?.writable,
    ).toEqual(['/home/u/Projects-old']);
  });
});

describe('describeLostReach', () => {
  it('names the folders as a person reads them', () => {
    expect(
      describeLostReach({ writable: ['/home/u/Desktop', '/srv/data'], hidden: ['/home/u/Projects/keys'] }, home),
    ).toBe('~/Desktop is no longer writable; /srv/data is no longer writable; ~/Projects/keys is now hidden');
  });
});
