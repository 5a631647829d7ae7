/**
 * A refusal the model can act on: one plain sentence, no paths of the user's machine. Its own
 * module so the workspace, the tools and the undo journal all use it without importing each other.
 */
export class Refusal extends Error {
  constructor(sentence: string) {
    super(sentence);
    this.name = "Refusal";
  }
}
