import type { ApprovalAnswer, ApprovalRequest } from "../core/checkpoint.ts";
import { blessed, type Widgets } from "./blessed.ts";
import { diffLines, type DiffKind } from "./diff-lines.ts";
import { safeTagged } from "./sanitize.ts";
import { describeHidden, showHidden } from "../prompt/hidden.ts";
import { paint } from "./theme.ts";
import type { Rect } from "./layout.ts";

const DIFF_COLOR: Record<DiffKind, string | null> = { move: null, add: "green", remove: "red", hunk: "cyan", header: "gray", context: null };

/**
 * Asks a person about one call. What is being approved (tool, target, rule) and the keys sit in
 * fixed boxes; only the diff scrolls, and everything from the model or the file is escaped, so no
 * file content can redraw the modal or push the question out of sight.
 */
export class ApprovalModal {
  private frame: Widgets.BoxElement | null = null;
  private answer: ((answer: ApprovalAnswer) => void) | null = null;

  /** `area`: where the modal goes, over the transcript, so the budgets and the verdicts stay in view while asking. */
  constructor(
    private readonly screen: Widgets.Screen,
    private readonly onChange: () => void,
    private readonly area: () => Rect,
  ) {}

  /** After a resize: the modal follows its area. */
  place(): void {
    if (this.frame) Object.assign(this.frame, this.area());
  }

  get open(): boolean {
    return this.frame !== null;
  }

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.close("no");
    return new Promise((resolve) => {
      this.answer = resolve;
      // The run's deadline or a stop answers for the person.
      request.signal.addEventListener("abort", () => this.close("no"), { once: true });
      this.build(request);
      this.onChange();
    });
  }

  /**
   * A yes/no question that is not a tool call (prompt drift before a run, undo): y goes ahead, n
   * does not. `othersMeanNo`: every key but y (and scrolling) answers no, for a question that a
   * person typing a message could open by accident (u on an empty input line).
   */
  confirm(title: string, question: string, lines: string[], answers = { yes: "continue", no: "do not start the run" }, othersMeanNo = false): Promise<boolean> {
    this.close("no");
    return new Promise((resolve) => {
      this.othersMeanNo = othersMeanNo;
      this.answer = (answer) => resolve(answer === "yes");
      const frame = this.frame_(` ${title} `);
      blessed.box({ parent: frame, top: 0, left: 1, right: 1, height: 1, tags: true, content: `{bold}${safeTagged(question)}{/bold}` });
      this.diffBox = blessed.box({ parent: frame, top: 2, left: 1, right: 1, bottom: 2, tags: true, scrollable: true, alwaysScroll: true, content: lines.map(safeTagged).join("\n") });
      blessed.box({ parent: frame, bottom: 0, left: 1, right: 1, height: 1, tags: true, content: `{bold}y{/bold} ${safeTagged(answers.yes)}   {bold}n{/bold} ${safeTagged(answers.no)}` });
      this.onChange();
    });
  }

  /** y / n / a from the keyboard; anything else is ignored while the modal is open. */
  key(name: string | undefined): boolean {
    if (!this.open) return false;
    if (name === "y") this.close("yes");
    else if (name === "pageup" || name === "up") this.scroll(name === "up" ? -1 : -10);
    else if (name === "pagedown" || name === "down") this.scroll(name === "down" ? 1 : 10);
    else if (name === "n" || name === "escape" || this.othersMeanNo) this.close("no");
    else if (name === "a") this.close("always");
    return true;
  }

  private othersMeanNo = false;

  close(answer: ApprovalAnswer): void {
    const resolve = this.answer;
    this.answer = null;
    this.othersMeanNo = false;
    this.frame?.destroy();
    this.frame = null;
    resolve?.(answer);
    this.onChange();
  }

  private diffBox: Widgets.BoxElement | null = null;

  private scroll(lines: number): void {
    (this.diffBox as unknown as { scroll(n: number): void } | null)?.scroll(lines);
    this.onChange();
  }

  /** The modal's frame, in front of everything. */
  private frame_(label: string): Widgets.BoxElement {
    const frame = blessed.box({
      parent: this.screen,
      ...this.area(),
      border: "line",
      label,
      tags: true,
      style: { border: { fg: "yellow" } },
    });
    this.frame = frame;
    frame.setFront();
    return frame;
  }

  private build(request: ApprovalRequest): void {
    const frame = this.frame_(" approval needed ");
    // Characters a reader cannot see are written out, so what is approved is what is shown.
    const args = showHidden(JSON.stringify(request.arguments));
    const shownArgs = args.length > 300 ? args.slice(0, 299) + "…" : args;
    const argsHidden = describeHidden(JSON.stringify(request.arguments));
    blessed.box({
      parent: frame,
      top: 0,
      left: 1,
      right: 1,
      height: 3,
      tags: true,
      content: [
        `{bold}${safeTagged(request.tool)}{/bold} on {bold}${safeTagged(request.target ?? "(no target)")}{/bold}`,
        `why asked: ${safeTagged(request.why)}`,
        `arguments: ${safeTagged(shownArgs)}${argsHidden ? paint("red", ` warning: ${argsHidden}`) : ""}`,
      ].join("\n"),
    });
    const lines = request.change ? diffLines(request.change) : [];
    const description = request.description === undefined ? null : describedTool(request.description);
    const details = request.details?.map((line) => safeTagged(showHidden(line))).join("\n");
    this.diffBox = blessed.box({
      parent: frame,
      top: 3,
      left: 1,
      right: 1,
      bottom: 2,
      tags: true,
      scrollable: true,
      alwaysScroll: true,
      border: "line",
      label: request.change ? " change (PgUp/PgDn scroll) " : description ? " the tool's description, as the model read it " : details ? " what will run " : " ",
      style: { border: { fg: "gray" } },
      content: lines.length
        ? lines.map((line) => (DIFF_COLOR[line.kind] ? paint(DIFF_COLOR[line.kind]!, safeTagged(line.text)) : safeTagged(line.text))).join("\n")
        : (description ?? details ?? "(no file change to show)"),
    });
    blessed.box({
      parent: frame,
      bottom: 0,
      left: 1,
      right: 1,
      height: 1,
      tags: true,
      content: `{bold}y{/bold} approve   {bold}n{/bold} deny   {bold}a{/bold} ${alwaysMeans(request)}`,
    });
  }
}

/** What `a` does: the rule it adds for the session, said before the person presses it. */
function alwaysMeans(request: ApprovalRequest): string {
  if (request.sessionRule === null) return "approve (no session rule: the command's first words hold a *)";
  return `always allow ${safeTagged(showHidden(request.sessionRule ?? request.tool))} this session`;
}

/** A server tool's description for the modal: hidden characters written out and flagged. */
function describedTool(description: string): string {
  const hidden = describeHidden(description);
  const flag = hidden ? paint("red", `warning: this description holds ${hidden}, shown as <U+…>; they may carry instructions the model reads`) + "\n" : "";
  return flag + (description ? safeTagged(showHidden(description)) : "(no description)");
}
