/** One line of `glassbox doctor`: what was found, and what to do about it when it is not ok. */
export interface Finding {
  ok: boolean;
  text: string;
  /** What to do about it, for a finding that is not ok. */
  fix?: string;
}
