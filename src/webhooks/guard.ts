// Receivers a partner may set on a shared sandbox: public addresses only, so that a partner cannot
// make the sandbox call into its own network (loopback, private ranges, link-local, the cloud
// metadata service at 169.254.169.254, …).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { clip } from '../http/errors.js';

/** Why an address is not a public one, or null when it is (ipaddr.js's ranges: only 'unicast' is public). */
export function addressProblem(address: string): string | null {
  let range: string;
  try {
    // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it holds.
    range = ipaddr.process(address).range();
  } catch {
    return `${clip(address)} is not an IP address`;
  }
  return range === 'unicast' ? null : `${address} is a ${range} address`;
}

/** Raised at connect time for a name that resolves to a non-public address (DNS may have changed since the receiver was set). */
export class PrivateTarget extends Error {
  readonly code = 'EPRIVATE';
}

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * net.connect's `lookup`, refusing names that resolve to a non-public address: the check holds at
 * every connection, not only when the receiver was set (a name can be pointed elsewhere later).
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: Callback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.map((a) => addressProblem(a.address)).find(Boolean);
    if (bad) return callback(new PrivateTarget(`${clip(hostname)} resolves to ${bad}: this shared sandbox sends to public receivers only`), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
}

/**
 * Why a receiver URL may not be set or checked by a partner on a shared sandbox, or null: its host
 * (an IP literal, or every address its name resolves to now) must be public. Redirects are never
 * followed (a 3xx is a failed attempt), so there is no later hop to check.
 */
export async function publicTargetProblem(raw: string): Promise<string | null> {
  const host = new URL(raw).hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(host)) {
    const problem = addressProblem(host);
    return problem && `${problem}: this shared sandbox sends to public receivers only`;
  }
  let addresses: Array<{ address: string }>;
  try {
    addresses = await dns.lookup(host, { all: true });
  } catch (e) {
    return `${clip(host)} cannot be resolved (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  const bad = addresses.map((a) => addressProblem(a.address)).find(Boolean);
  return bad ? `${clip(host)} resolves to ${bad}: this shared sandbox sends to public receivers only` : null;
}
