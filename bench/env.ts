// Benchmark knobs from the environment, checked: a typo in a knob should stop a run, not skew it.

/** A positive integer environment variable; the fallback (or undefined) when unset or empty. */
export function positiveIntEnv(name: string): number | undefined;
export function positiveIntEnv(name: string, fallback: number): number;
export function positiveIntEnv(name: string, fallback?: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}
