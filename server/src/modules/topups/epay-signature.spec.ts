import { createHash } from 'node:crypto';
import { epaySign, epayVerify } from './epay-signature';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

describe('Epay MD5 signature (go-epay v0.0.2)', () => {
  const params = {
    pid: '1001',
    type: 'alipay',
    out_trade_no: 'USR1NOabcdef1700000000',
    notify_url: 'http://localhost:3000/api/user/epay/notify',
    return_url: 'http://localhost:3000/log',
    name: 'TUC10',
    money: '73.00',
    device: 'pc',
  };

  it('sorts the keys, joins k=v with &, appends the key and takes the lowercase MD5', () => {
    const expected = md5(
      'device=pc&money=73.00&name=TUC10&notify_url=http://localhost:3000/api/user/epay/notify&out_trade_no=USR1NOabcdef1700000000' +
        '&pid=1001&return_url=http://localhost:3000/log&type=alipay' +
        'merchant-key',
    );
    expect(epaySign(params, 'merchant-key')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{32}$/);
  });

  it('skips sign, sign_type and empty values', () => {
    const base = epaySign(params, 'k');
    expect(epaySign({ ...params, sign: 'x', sign_type: 'MD5', param: '' }, 'k')).toBe(base);
    expect(epaySign({ ...params, param: 'extra' }, 'k')).not.toBe(base);
  });

  it('sorts by byte order (upper case before lower case, as Go sort.Strings)', () => {
    expect(epaySign({ b: '2', B: '1', a: '3' }, 'k')).toBe(md5('B=1&a=3&b=2k'));
  });

  it('verifies its own signature and refuses a changed value, another key, a missing or differently cased sign', () => {
    const signed = { ...params, sign: epaySign(params, 'k'), sign_type: 'MD5' };
    expect(epayVerify(signed, 'k')).toBe(true);
    expect(epayVerify({ ...signed, money: '73.01' }, 'k')).toBe(false);
    expect(epayVerify(signed, 'other')).toBe(false);
    expect(epayVerify({ ...signed, sign: '' }, 'k')).toBe(false);
    expect(epayVerify({ ...signed, sign: signed.sign.toUpperCase() }, 'k')).toBe(false);
  });
});
