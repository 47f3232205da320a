import { streamCategory, streamKey } from './streams';

describe('streamKey', () => {
  /** What it answered before it read digits by hand: the text after the first dash, through Number. */
  const reference = (streamId: string) => Number(streamId.slice(streamId.indexOf('-') + 1));

  it('reads the key of every stream as Number reads the text after the category', () => {
    const keys = [
      '0',
      '7',
      '007',
      '1234567890',
      '999999999999999',
      '9007199254740991',
      '9007199254740993',
      '12345678901234567890',
      '',
      ' 12',
      '12 ',
      '1e3',
      '0x10',
      '-5',
      '1.5',
      '12a',
      'a12',
      '１２',
      'Infinity',
      'abc',
      '1-2',
    ];
    const ids = [
      ...keys.flatMap((key) => [`account-${key}`, `token-${key}`, `channel-${key}`, `topup-order-${key}`]),
      'account',
      '',
      '-',
      '42',
    ];
    expect(ids.filter((id) => !Object.is(streamKey(id), reference(id)))).toEqual([]);
    expect(streamKey('account-123')).toBe(123);
    expect(streamKey('account-')).toBe(0);
    expect(streamKey('account-12a')).toBeNaN();
  });

  it('agrees with Number on random stream ids', () => {
    const alphabet = '0123456789-ae x.';
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const wrong: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const length = next() % 20;
      let id = next() % 2 ? 'account-' : '';
      for (let j = 0; j < length; j++) id += alphabet[next() % alphabet.length];
      if (!Object.is(streamKey(id), reference(id))) wrong.push(id);
    }
    expect(wrong).toEqual([]);
  });

  it('leaves the category to streamCategory', () => {
    expect(streamCategory('account-12')).toBe('account');
    expect(streamCategory('topup-order-ab')).toBe('topup');
    expect(streamCategory('plain')).toBe('plain');
  });
});
