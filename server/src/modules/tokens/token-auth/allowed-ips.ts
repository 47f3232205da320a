import { BlockList, isIP } from 'node:net';

export interface ParsedAllowIps {
  /** Normalised entries, each an address or a CIDR range. */
  entries: string[];
  /** Entries that are neither (after removing spaces and commas). */
  invalid: string[];
}

const CIDR = /^(.+)\/(\d{1,3})$/;

/** `::ffff:1.2.3.4` is the IPv4 address 1.2.3.4 arriving over a dual-stack socket. */
function unmapIpv4(address: string): string {
  const match = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return match ? match[1] : address;
}

/**
 * Parses a token's `allow_ips` as new-api does: one entry per line, spaces and commas removed (new-api then keeps
 * only valid single IPs and ignores the rest). Improvement: `10.0.0.0/8` and `2001:db8::/32` ranges are accepted besides single
 * addresses; entries that are neither are reported (the console refuses them instead of silently ignoring them).
 */
export function parseAllowIps(text: string | null | undefined): ParsedAllowIps {
  const entries: string[] = [];
  const invalid: string[] = [];
  for (const line of (text ?? '').split('\n')) {
    const entry = line.replace(/[\s,]/g, '');
    if (!entry) continue;
    const cidr = CIDR.exec(entry);
    const address = unmapIpv4(cidr ? cidr[1] : entry);
    const family = isIP(address);
    const prefix = cidr ? Number(cidr[2]) : null;
    if (family === 0 || (prefix !== null && prefix > (family === 4 ? 32 : 128))) {
      invalid.push(entry);
      continue;
    }
    entries.push(prefix === null ? address : `${address}/${prefix}`);
  }
  return { entries, invalid };
}

/** The allow-list to check client addresses against, or null when it restricts nothing (no valid entry). */
export function buildAllowList(text: string | null | undefined): BlockList | null {
  const { entries } = parseAllowIps(text);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** BlockList matches IPv4 rules against IPv4-mapped IPv6 addresses too, so dual-stack sockets need no special case. */
export function isIpAllowed(list: BlockList, ip: string): boolean {
  const address = unmapIpv4(ip.trim());
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
