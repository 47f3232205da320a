import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { DataSource } from 'typeorm';
import { UserEntity } from '#server/modules/users/user.entity';

export interface SeededUser {
  id: number;
  username: string;
  password: string;
  accessToken: string;
}

/**
 * Inserts a user row directly (no ledger events) with a system access token, for tests that need callers of a
 * given role without going through registration. Use the API for anything that involves quota.
 */
export async function seedUser(
  dataSource: DataSource,
  options: { username?: string; role?: number; status?: number; password?: string } = {},
): Promise<SeededUser> {
  const username = options.username ?? `u${randomBytes(4).toString('hex')}`.slice(0, 12);
  const password = options.password ?? 'password123';
  const accessToken = randomBytes(24).toString('base64').slice(0, 32);
  const repository = dataSource.getRepository(UserEntity);
  const saved = await repository.save(
    repository.create({
      username,
      password: await bcrypt.hash(password, 4),
      displayName: username,
      role: options.role ?? 1,
      status: options.status ?? 1,
      accessToken,
    }),
  );
  return { id: saved.id, username, password, accessToken };
}
