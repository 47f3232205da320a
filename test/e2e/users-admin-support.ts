import { UserEntity } from '#server/modules/users/user.entity';
import { createTestApp, type TestApp } from '../support/app';
import { type Caller, dataSource, rootCaller, seedCaller } from './users-support';

/** What the admin user-management specs share once their app is up (filled in by the fixture's beforeAll). */
export interface UsersAdminContext {
  target: TestApp;
  root: Caller;
  /** An admin (role 10), `admin1`. */
  admin: Caller;
  /** Another admin (role 10), `admin2`: a peer `admin` may not touch. */
  otherAdmin: Caller;
}

/**
 * Registers the admin user-management app for the enclosing describe (root and two admins) and returns the context
 * and the helpers bound to it. Call it first in the describe, so its beforeAll runs before the spec's own.
 */
export function usersAdminFixture() {
  const context = {} as UsersAdminContext;

  beforeAll(async () => {
    context.target = await createTestApp();
    context.root = await rootCaller(context.target);
    context.admin = await seedCaller(context.target, { role: 10, username: 'admin1' });
    context.otherAdmin = await seedCaller(context.target, { role: 10, username: 'admin2' });
  });
  afterAll(async () => {
    await context.target?.close();
  });

  const users = () => dataSource(context.target).getRepository(UserEntity);
  /** A user's row, cancelled (soft-deleted) or not. */
  const row = (id: number) => users().findOne({ where: { id }, withDeleted: true });

  return { context, users, row };
}
