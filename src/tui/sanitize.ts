/**
 * Text from the model or a tool is untrusted input to the terminal. Everything that could act on
 * it — C0 and C1 control characters (escape sequences start with ESC or CSI), DEL, and the
 * bidirectional controls that can reorder what a reader sees — is shown escaped instead of sent.
 * Newlines stay; tabs become spaces so widths stay predictable.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** UNSAFE or a tab (\u0009): one quick test, since most streamed tokens need nothing done. */
const UNSAFE_OR_TAB = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

export function sanitize(text: string): string {
  if (!UNSAFE_OR_TAB.test(text)) return text;
  return text.replace(/\t/g, "  ").replace(UNSAFE, visible);
}

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x1b) return "^[";
  if (code < 0x20) return `^${String.fromCharCode(code + 64)}`;
  if (code === 0x7f) return "^?";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/** For panes that use blessed tags (colour markup): untrusted text must not open or close a tag. */
export function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (brace) => (brace === "{" ? "{open}" : "{close}"));
}

/** Untrusted text made safe for a tagged pane: sanitized, then its braces escaped. */
export function safeTagged(text: string): string {
  return escapeTags(sanitize(text));
}
