/**
 * How the script-driven adapters (macOS, Windows) type text: Unicode text in chunks of at most
 * `maxChunkUnits` UTF-16 units, never splitting a surrogate pair; line breaks (any of \r\n, \r,
 * \n) and tabs as the Enter and Tab keys, so editors and terminals see real key presses. With a
 * delay, one character per item.
 */
export function typingPlan<Key>(
  text: string,
  delayMs: number,
  maxChunkUnits: number,
  keys: { enter: Key; tab: Key },
): Array<{ text: string } | Key> {
  const items: Array<{ text: string } | Key> = [];
  let chunk = '';
  const flush = () => {
    if (chunk) items.push({ text: chunk });
    chunk = '';
  };
  for (const character of text.replace(/\r\n?/g, '\n')) {
    if (character === '\n' || character === '\t') {
      flush();
      items.push(character === '\n' ? keys.enter : keys.tab);
      continue;
    }
    if (delayMs > 0 || chunk.length + character.length > maxChunkUnits) flush();
    chunk += character;
  }
  flush();
  return items;
}
