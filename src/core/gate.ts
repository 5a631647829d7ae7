/** Whether `finish` may pass the gate, and why (a `gate` event). */
export interface GateDecision {
  allowed: boolean;
  reason: string;
}

/**
 * The verification gate: with a `verify` check configured, `finish` is accepted only once that
 * check has passed after the last successful edit (or, with no edit at all, once it has passed).
 */
export class VerifyGate {
  private sequence = 0;
  private lastEdit = 0;
  private lastPass = 0;

  constructor(readonly check: string) {}

  edited(): void {
    this.lastEdit = ++this.sequence;
  }

  checked(passed: boolean): void {
    if (passed) this.lastPass = ++this.sequence;
    else this.sequence++;
  }

  decide(): GateDecision {
    if (this.lastPass > this.lastEdit) return { allowed: true, reason: `the ${this.check} check passed after the last edit` };
    const when = this.lastEdit ? "after your last edit" : "first";
    return {
      allowed: false,
      reason: `finish needs the ${this.check} check to pass ${when}: run run_check with name "${this.check}", then compare its result against the task, not against your own code.`,
    };
  }
}
