import { blessed, type Widgets } from "./blessed.ts";
import { sanitize } from "./sanitize.ts";

/** A full-screen text panel (help, the assembled prompt) that any key but scrolling closes. */
export class Overlay {
  private box: Widgets.BoxElement | null = null;

  constructor(private readonly screen: Widgets.Screen, private readonly onChange: () => void) {}

  get open(): boolean {
    return this.box !== null;
  }

  show(title: string, text: string): void {
    this.close();
    this.box = blessed.box({
      parent: this.screen,
      top: 1,
      left: 2,
      right: 2,
      bottom: 1,
      border: "line",
      label: ` ${title} — Esc closes, PgUp/PgDn scroll `,
      scrollable: true,
      alwaysScroll: true,
      style: { border: { fg: "cyan" } },
      content: sanitize(text),
    });
    this.box.setFront();
    this.onChange();
  }

  key(name: string): boolean {
    if (!this.box) return false;
    const scroll = { pageup: -10, pagedown: 10, up: -1, down: 1, home: -1e9, end: 1e9 }[name];
    if (scroll !== undefined) (this.box as unknown as { scroll(n: number): void }).scroll(scroll);
    else this.close();
    this.onChange();
    return true;
  }

  close(): void {
    this.box?.destroy();
    this.box = null;
  }
}
