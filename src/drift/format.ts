import type { DriftResult } from './run.js';

export function formatDrift(result: DriftResult, _format: string): string {
  return JSON.stringify(result);
}
