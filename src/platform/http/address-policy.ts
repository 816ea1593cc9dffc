// Which IP addresses an outgoing request may connect to. The rule is an allow-list: only what
// ipaddr.js classifies as ordinary `unicast` is reachable, so ranges added to the library later are
// refused until someone looks at them. IPv6 forms that carry an IPv4 address inside (mapped,
// translated, NAT64, 6to4, IPv4-compatible) are judged by that inner address, because that is
// where the packets end up.
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Who may be reached besides public unicast addresses: nobody (false), any private address (true,
 * for development and tests), or exactly the listed addresses (tests that need one reachable
 * fixture and another that must stay unreachable).
 */
export type PrivateAddressAllowance = boolean | readonly string[];

// Instance metadata services hand out cloud credentials. Their ranges are refused anyway; naming
// them gives a clearer message, and they stay refused even when private addresses are allowed.
const CLOUD_METADATA = new Set(
  [
    '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
    '169.254.169.253', // AWS DNS resolver
    '169.254.170.2', // AWS ECS task metadata
    '169.254.170.23', // AWS EKS pod identity
    'fd00:ec2::254', // AWS over IPv6
    'fd00:ec2::23', // AWS EKS pod identity over IPv6
    '100.100.100.200', // Alibaba Cloud
    '192.0.0.192', // Oracle Cloud (legacy)
  ].map((address) => ipaddr.parse(address).toNormalizedString()),
);

const RANGE_DESCRIPTIONS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  teredo: 'a Teredo tunnel address',
  rfc6052: 'a local-use NAT64 address',
};

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

export function isIpLiteral(host: string): boolean {
  return net.isIP(unbracket(host)) !== 0;
}

/** Names that always mean this machine (RFC 6761), judged as loopback without asking DNS. */
function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why a URL's host must not be reached, judged without the network: an IP literal by its address,
 * a localhost name as loopback. Null when only a DNS answer can tell (judged when connecting).
 * Callers refuse such a URL at request time, with a 400, before any job or row exists.
 */
export function hostRefusal(hostname: string, allowPrivate: PrivateAddressAllowance = false): string | null {
  if (isIpLiteral(hostname)) return addressRefusal(hostname, allowPrivate);
  if (!isLoopbackName(hostname)) return null;
  const reachable = ['127.0.0.1', '::1'].some((loopback) => addressRefusal(loopback, allowPrivate) === null);
  return reachable ? null : `${hostname} names this machine (a loopback address)`;
}

/** Why `address` must not be connected to, as "ADDRESS is a private address"; null when it may. */
export function addressRefusal(address: string, allowPrivate: PrivateAddressAllowance = false): string | null {
  const text = unbracket(address);
  if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
  const parsed = ipaddr.parse(text);
  if (CLOUD_METADATA.has(parsed.toNormalizedString())) return `${text} is a cloud metadata address`;
  // Metadata addresses stay refused in every spelling, whatever FETCH_ALLOW_PRIVATE says: the
  // IPv4 inside an IPv6 form is judged before any allowance.
  const inner = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : null;
  if (inner && CLOUD_METADATA.has(inner.toNormalizedString())) return `${text} embeds ${inner.toString()}, a cloud metadata address`;
  if (allowPrivate === true) return null;
  if (allowPrivate !== false && allowPrivate.some((allowed) => sameAddress(allowed, parsed))) return null;

  if (inner) {
    const innerRefusal = rangeRefusal(inner);
    return innerRefusal ? `${text} embeds ${inner.toString()}, ${innerRefusal}` : null;
  }
  const refusal = rangeRefusal(parsed);
  return refusal ? `${text} is ${refusal}` : null;
}

function rangeRefusal(address: Address): string | null {
  // The cloud metadata check runs again for embedded addresses (::ffff:169.254.169.254).
  if (CLOUD_METADATA.has(address.toNormalizedString())) return 'a cloud metadata address';
  const range = address.range();
  if (range === 'unicast') return null;
  return RANGE_DESCRIPTIONS[range] ?? `in the special-purpose range "${range}"`;
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = address.parts;
  const lowBits = () => ipaddr.fromByteArray([p6 >> 8, p6 & 0xff, p7 >> 8, p7 & 0xff]) as ipaddr.IPv4;
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return lowBits();
    case 'rfc6052': // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 has no fixed layout, so it is refused whole
      return address.match(ipaddr.parseCIDR('64:ff9b::/96')) ? lowBits() : null;
    case '6to4': // 2002:AABB:CCDD::/48 routes to AA.BB.CC.DD
      return ipaddr.fromByteArray([p1 >> 8, p1 & 0xff, p2 >> 8, p2 & 0xff]) as ipaddr.IPv4;
    default:
      // IPv4-compatible (::a.b.c.d, deprecated). :: and ::1 have their own ranges and stay as they are.
      if (range === 'unicast' && address.match(IPV4_COMPATIBLE)) return lowBits();
      return null;
  }
}

function sameAddress(listed: string, address: Address): boolean {
  const text = unbracket(listed);
  return ipaddr.isValid(text) && ipaddr.process(text).toNormalizedString() === ipaddr.process(address.toString()).toNormalizedString();
}

export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Thrown from the connect-time lookup; SafeFetcher turns it into FetchRefused. */
export class AddressRefused extends Error {
  constructor(
    readonly hostname: string,
    readonly reason: string,
  ) {
    super(`${hostname}: ${reason}`);
    this.name = 'AddressRefused';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** dns.lookup's shape with all: true; tests pass their own to play a rebinding DNS server. */
export type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * A `lookup` for net/tls.connect: resolves every address of the name, refuses the connection if any
 * of them is refused (an attacker's DNS could otherwise hand out one public and one private answer
 * and let the OS pick), and gives the socket exactly the addresses that were checked, so nothing
 * can change between the check and the connect.
 */
export function createGuardedLookup(allowPrivate: PrivateAddressAllowance, resolve: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), []);
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, allowPrivate);
        if (refusal) return callback(new AddressRefused(hostname, refusal), []);
      }
      // net.connect asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily), one otherwise.
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
