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

/** A failure the model may hear about in one plain sentence (a server's error, a timeout): decision `error`. */
export class ToolFailure extends Error {
  constructor(sentence: string, readonly reason: string) {
    super(sentence);
    this.name = "ToolFailure";
  }
}
