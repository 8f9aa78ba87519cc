import type { Config } from '../config.js';
import type { DriftFlags } from '../cli-flags.js';

export interface DriftResult {
  differences: unknown[];
}

/** Not there yet: the next commit compares the upstream's answers with the mock's. */
export function runDrift(_config: Config, _url: string | null, _flags: DriftFlags): Promise<DriftResult> {
  return Promise.reject(Object.assign(new Error('drift is not implemented yet'), { userFacing: true }));
}
