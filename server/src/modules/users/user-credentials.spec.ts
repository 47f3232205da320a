import { generateAccessToken, generateAffCode, isUniqueViolation } from './user-credentials';

describe('user credentials', () => {
  it('makes 4-character invite codes from [0-9a-zA-Z]', () => {
    for (let i = 0; i < 200; i++) expect(generateAffCode()).toMatch(/^[0-9a-zA-Z]{4}$/);
    expect(generateAffCode(() => 0)).toBe('0000');
    expect(generateAffCode((max) => max - 1)).toBe('ZZZZ');
  });

  it('makes access tokens of 28 or 32 standard-base64 characters, as many bytes as ⌊L·3/4⌋ for L in 29..32', () => {
    const sizes: number[] = [];
    for (const length of [29, 30, 31, 32]) {
      const token = generateAccessToken(
        () => length,
        (size) => {
          sizes.push(size);
          return Buffer.alloc(size, 0xfb);
        },
      );
      expect([28, 32]).toContain(token.length);
    }
    expect(sizes).toEqual([21, 22, 23, 24]);
    for (let i = 0; i < 200; i++) expect(generateAccessToken()).toMatch(/^[A-Za-z0-9+/=]{28}$|^[A-Za-z0-9+/=]{32}$/);
  });

  it('recognises a unique violation of a named index, and only that one', () => {
    const error = { driverError: { code: '23505', constraint: 'users_username_key' } };
    expect(isUniqueViolation(error, 'users_username_key')).toBe(true);
    expect(isUniqueViolation(error, 'users_aff_code_key')).toBe(false);
    expect(isUniqueViolation(new Error('x'), 'users_username_key')).toBe(false);
  });
});
