/**
 * The signals that end glassbox from outside: a closed terminal (SIGHUP) and a service manager
 * (SIGTERM). Each is answered by stopping cleanly, and answered again until glassbox has ended: a
 * closing terminal's shell sends its own SIGHUP after the kernel's, and the default death at the
 * second would leave a run without its stop event and a check's temp folder behind.
 */
export const HANG_UPS = ["SIGHUP", "SIGTERM"] as const;

const ignore = () => {};

/** From now on a hang-up does nothing (glassbox is already stopping), rather than end it by the signal's default action. */
export function ignoreHangUps(): void {
  for (const name of HANG_UPS) if (!process.listeners(name).includes(ignore)) process.on(name, ignore);
}
