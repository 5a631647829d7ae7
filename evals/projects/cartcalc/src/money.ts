/** 1234 cents reads "$12.34". */
export function formatMoney(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const whole = Math.abs(cents);
  return `${sign}$${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, "0")}`;
}
