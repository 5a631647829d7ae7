import type { Candidate, Discovery } from "../model/discovery.ts";
import { describeCandidate, findModelsAndFiles } from "../model/find-model.ts";
import { useModel, type Session } from "../session/session.ts";
import type { ProfileArgs } from "../session/profile.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { rememberModel, rememberedCandidate } from "../session/workspace-state.ts";
import type { Widgets } from "./blessed.ts";
import { ModelPicker } from "./model-picker.ts";
import { sanitize } from "./sanitize.ts";

/** The input's text, as the model choice may read and set it. */
export interface InputLine {
  value: string;
}

/** What the TUI lends the model choice: the session, a transcript line, the status warning, a redraw. */
export interface ChoiceHost {
  session: Session;
  /** The command line's model options: where to look for models (baseUrl), how to find a model's profile. */
  args: ProfileArgs;
  note(text: string): void;
  warn(text: string): void;
  redraw(): void;
  running(): boolean;
  /** The session's model was set: a gguf: model's server starts. */
  modelChosen(): void;
}

/**
 * Which model the TUI talks to when no --model or config names one: the remembered one while it
 * still answers (or its GGUF file is still there), else the only model a server answers with,
 * else the person's pick. A GGUF file is never taken unasked: loading one takes memory and time.
 */
export class ModelChoice {
  readonly picker: ModelPicker;
  /** Set while the picker that `m` opened is up: a letter typed past it makes that m text again. */
  private pickerFromM = false;

  constructor(screen: Widgets.Screen, private readonly host: ChoiceHost) {
    this.picker = new ModelPicker(screen, () => host.redraw(), () => findModelsAndFiles(host.args.baseUrl));
  }

  /** At start: asks the servers, then uses the remembered or only model, or opens the picker (which also explains when nothing answers). */
  async find(): Promise<void> {
    this.host.warn("looking for a model: asking llama.cpp and Ollama on this machine…");
    const found = await findModelsAndFiles(this.host.args.baseUrl);
    this.host.warn("");
    // Meanwhile the person may have opened the picker themselves.
    if (this.picker.open || this.host.session.spec !== null) return;
    const remembered = rememberedCandidate(this.host.session.workspace.root, found.candidates);
    if (remembered) return this.use(remembered, "in use since it was chosen here");
    const answering = found.candidates.filter((candidate) => candidate.server !== "gguf");
    if (answering.length === 1) return this.use(answering[0]!, "the only model that answers");
    await this.pick(false, found);
  }

  /** Opens the picker; a choice is used at once and remembered for the workspace. */
  async pick(fromM: boolean, found?: Discovery): Promise<void> {
    this.pickerFromM = fromM;
    const candidate = await this.picker.show(this.host.session.spec, found);
    if (candidate) await this.use(candidate, "chosen and remembered for this workspace", true);
    else if (this.host.session.spec === null) this.host.warn("no model chosen: m on an empty input line opens the picker");
  }

  /**
   * Every key the input line reads comes here first. The picker gets its keys while it is open
   * (the line keeps reading, so a burst of typing loses nothing); `m` on an empty line between
   * runs opens it. Returns true for a key it took; the rest are typed.
   */
  inputKey(ch: string | undefined, name: string, line: InputLine): boolean {
    if (this.picker.open) {
      if (this.picker.key(ch, name)) return true;
      // "make…": the picker closed at the a, and the m that opened it is the message's first letter.
      if (this.pickerFromM && line.value === "") line.value = "m";
      return false;
    }
    if (ch === "m" && line.value === "" && !this.host.running()) {
      void this.pick(true);
      return true;
    }
    return false;
  }

  private async use(candidate: Candidate, why: string, remember = false): Promise<void> {
    const { session } = this.host;
    // The same GGUF file while its server runs: kept, not loaded again. (One that died starts again.)
    const keep = candidate.spec === session.spec && session.ownServer?.running;
    try {
      if (!keep) await useModel(session, this.host.args, candidate.spec, candidate.modelName);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      // Where it wraps, whole: no llama-server installed, or a file that changed since it was listed.
      this.host.note(`${sanitize(candidate.spec)} cannot be used: ${sanitize(error.message)}`);
      return this.host.warn(`${candidate.name} cannot be used; the transcript says why`);
    }
    this.host.modelChosen();
    this.host.warn("");
    let note = why;
    if (remember) {
      try {
        rememberModel(this.host.session.workspace.root, candidate, Date.now());
      } catch (error) {
        note = `not remembered: cannot write .glassbox/state.json (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      }
    }
    this.host.note(`model: ${sanitize(candidate.spec)} (${sanitize(describeCandidate(candidate))})`);
    this.host.note(`  ${note}; m on an empty input line picks another`);
  }
}
