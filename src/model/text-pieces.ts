/** Text that arrives in many small pieces, kept compact: every thousand pieces become one flat string. */
export class TextPieces {
  private chunks: string[] = [];
  private pieces: string[] = [];

  add(piece: string): void {
    this.pieces.push(piece);
    if (this.pieces.length >= 1024) this.seal();
  }

  /** Hands the whole text over and lets go of it: a finished reply stays alive only while its taker holds it. */
  take(): string {
    this.seal();
    const text = this.chunks.join("");
    this.chunks = [];
    return text;
  }

  private seal(): void {
    if (this.pieces.length === 0) return;
    this.chunks.push(this.pieces.join(""));
    this.pieces = [];
  }
}
