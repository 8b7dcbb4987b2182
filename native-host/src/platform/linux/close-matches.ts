import fs from 'node:fs/promises';
import path from 'node:path';

import type { DesktopEntry } from './desktop-entries.js';

/**
 * Suggestions for an app name that matched nothing: installed apps (by any of their menu names
 * or their desktop id) and programs on PATH whose names contain the name, are contained in it,
 * or are at most two edits away from it or from one of its words.
 */

export async function closeMatches(
  query: string,
  entries: DesktopEntry[],
  searchPath: string | undefined,
): Promise<string[]> {
  const wanted = query.toLowerCase();
  const names = new Set<string>();
  for (const entry of entries) {
    names.add(`${entry.name} (${entry.id})`);
  }
  const programs = new Set<string>();
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      for (const file of await fs.readdir(dir)) programs.add(file);
    } catch {
      continue; // A PATH entry that does not exist.
    }
  }
  const similar = (candidate: string): boolean => {
    const lower = candidate.toLowerCase();
    if (lower.includes(wanted) || (lower.length >= 3 && wanted.includes(lower)) || editDistance(lower, wanted) <= 2) {
      return true;
    }
    // A misspelt word of a longer name: "firefx" for "Firefox ESR" and firefox-esr.
    return (
      wanted.length >= 4 && lower.split(/[\s._-]+/u).some((word) => word.length >= 4 && editDistance(word, wanted) <= 2)
    );
  };
  const fromMenu = [...names].filter((label) => {
    const entry = entries.find((candidate) => label === `${candidate.name} (${candidate.id})`);
    return entry ? entry.names.some(similar) || similar(entry.id) : false;
  });
  const fromPath = [...programs].filter(similar).sort((a, b) => a.length - b.length);
  return [...fromMenu, ...fromPath].slice(0, 10);
}

/**
 * The edit (Levenshtein) distance between two strings; 3 without counting when their lengths
 * differ by more than 2, as callers only ask whether it is at most 2.
 */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
