/**
 * Keeps the head and tail of a long text with a marker in the middle saying how much was cut,
 * so the result never exceeds `max` characters. The end of an output (a test summary, an error)
 * matters as much as its start.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `\n[… ${cut} characters cut …]\n`;
  // The marker's own length depends on the count it reports; size it for the worst case.
  const room = max - marker(text.length).length;
  const head = Math.ceil(room / 2);
  const tail = Math.floor(room / 2);
  const cut = text.length - head - tail;
  return text.slice(0, head) + marker(cut) + text.slice(text.length - tail);
}
