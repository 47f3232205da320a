import { randomBytes, randomInt } from 'node:crypto';

const AFF_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 4-character invite code from [0-9a-zA-Z], as new-api makes them; uniqueness is the database's job. */
export function generateAffCode(pick: (max: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < 4; i++) code += AFF_ALPHABET[pick(AFF_ALPHABET.length)];
  return code;
}

/**
 * A system access token as new-api makes it: ⌊L·3/4⌋ crypto-random bytes with L drawn from 29..32,
 * in standard base64, so 28 or 32 characters that may contain + / =.
 */
export function generateAccessToken(
  pick: (min: number, max: number) => number = randomInt,
  bytes: (size: number) => Buffer = randomBytes,
): string {
  const length = pick(29, 33);
  return bytes(Math.floor((length * 3) / 4)).toString('base64');
}

/** Postgres unique violation on a given index (23505), as TypeORM surfaces it. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const driver =
    (error as { driverError?: { code?: string; constraint?: string } })?.driverError ?? (error as { code?: string; constraint?: string });
  return driver?.code === '23505' && driver.constraint === constraint;
}

export const USERNAME_UNIQUE = 'users_username_key';
export const AFF_CODE_UNIQUE = 'users_aff_code_key';
export const ACCESS_TOKEN_UNIQUE = 'users_access_token_key';
