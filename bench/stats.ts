// Figures over a benchmark's rounds, as the money and HTTP server sections print them.

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `min / median / max`, each with `digits` decimals. */
export function spread(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(digits)} / ${median(sorted).toFixed(digits)} / ${sorted.at(-1)!.toFixed(digits)}`;
}
