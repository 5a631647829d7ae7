/** A mistake in the command line or the config: exit code 2, message on stderr, nothing run. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
