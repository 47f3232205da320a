import { buildAllowList, isIpAllowed, parseAllowIps } from './allowed-ips';

describe('token allow_ips', () => {
  it('parses one entry per line, removing spaces and commas, and reports what is neither an address nor a range', () => {
    expect(parseAllowIps(' 1.2.3.4 ,\n\n10.0.0.0/8\r\n2001:db8::/32\n::ffff:5.6.7.8\nhost.example\n1.2.3.4/33\n300.1.1.1')).toEqual({
      entries: ['1.2.3.4', '10.0.0.0/8', '2001:db8::/32', '5.6.7.8'],
      invalid: ['host.example', '1.2.3.4/33', '300.1.1.1'],
    });
    expect(parseAllowIps(null)).toEqual({ entries: [], invalid: [] });
  });

  it('restricts nothing when there is no valid entry', () => {
    expect(buildAllowList('')).toBeNull();
    expect(buildAllowList(null)).toBeNull();
    expect(buildAllowList(' , \n')).toBeNull();
  });

  it('matches addresses, ranges and IPv4 arriving over dual-stack sockets; refuses junk', () => {
    const list = buildAllowList('1.2.3.4\n10.0.0.0/8\n2001:db8::/32');
    if (!list) throw new Error('expected a list');
    for (const ip of ['1.2.3.4', '::ffff:1.2.3.4', '10.255.0.1', '2001:db8:1::5', ' 1.2.3.4 ']) expect(isIpAllowed(list, ip)).toBe(true);
    for (const ip of ['1.2.3.5', '11.0.0.1', '2001:db9::1', '', 'localhost']) expect(isIpAllowed(list, ip)).toBe(false);
  });
});
