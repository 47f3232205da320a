import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { AuthGuard } from '../../common/auth/auth.guard';
import { AUTH_USER_LOOKUP, type AuthUserLookup, type AuthUserRecord } from '../../common/auth/auth-user-lookup.port';
import { SessionService } from '../../common/auth/session.service';
import { UserEntity } from '../users/user.entity';

const AUTH_FIELDS = { id: true, username: true, role: true, status: true, group: true } as const;

/** The auth guard's look-up, over the `users` table. */
@Injectable()
export class UsersAuthLookup implements AuthUserLookup {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  findById(id: number): Promise<AuthUserRecord | null> {
    return this.users.findOne({ select: AUTH_FIELDS, where: { id, deletedAt: IsNull() } });
  }

  findByAccessToken(token: string): Promise<AuthUserRecord | null> {
    return this.users.findOne({ select: AUTH_FIELDS, where: { accessToken: token, deletedAt: IsNull() } });
  }
}

/** Sessions and the auth guard for every module, bound to the users table here so common/ imports no module. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [SessionService, AuthGuard, { provide: AUTH_USER_LOOKUP, useClass: UsersAuthLookup }],
  // Guards are instantiated in each controller's module, so the look-up they inject is exported too.
  exports: [SessionService, AuthGuard, AUTH_USER_LOOKUP, TypeOrmModule],
})
export class AuthCoreModule {}
