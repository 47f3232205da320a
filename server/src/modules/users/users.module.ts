import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { UserReadModel } from './user-read.model';
import { UsersAdminController } from './users-admin.controller';
import { UsersSelfController } from './users-self.controller';
import { CreateUserHandler } from './usecases/create-user/create-user.handler';
import { CreateUserByAdminHandler } from './usecases/create-user-by-admin/create-user-by-admin.handler';
import { DeleteSelfHandler } from './usecases/delete-self/delete-self.handler';
import { DeleteUserHandler } from './usecases/delete-user/delete-user.handler';
import { EditUserHandler } from './usecases/edit-user/edit-user.handler';
import { EnsureAffCodeHandler } from './usecases/ensure-aff-code/ensure-aff-code.handler';
import { GenerateAccessTokenHandler } from './usecases/generate-access-token/generate-access-token.handler';
import { GetSelfHandler } from './usecases/get-self/get-self.handler';
import { GetUserHandler } from './usecases/get-user/get-user.handler';
import { ListUsersHandler } from './usecases/list-users/list-users.handler';
import { ManageUserHandler } from './usecases/manage-user/manage-user.handler';
import { RootAccountSeeder } from './usecases/seed-root-account/root-account.seeder';
import { SeedRootAccountHandler } from './usecases/seed-root-account/seed-root-account.handler';
import { SearchUsersHandler } from './usecases/search-users/search-users.handler';
import { UpdateSelfHandler } from './usecases/update-self/update-self.handler';

/**
 * Users: the own-account and admin routes, CreateUserCommand (used by registration and OAuth sign-up too) and
 * the root seed. The `users` repository comes from AuthCoreModule (global); money from AccountsModule.
 */
@Module({
  imports: [AccountsModule],
  controllers: [UsersSelfController, UsersAdminController],
  providers: [
    UserReadModel,
    CreateUserHandler,
    CreateUserByAdminHandler,
    UpdateSelfHandler,
    DeleteSelfHandler,
    GenerateAccessTokenHandler,
    EnsureAffCodeHandler,
    EditUserHandler,
    ManageUserHandler,
    DeleteUserHandler,
    SeedRootAccountHandler,
    RootAccountSeeder,
    GetSelfHandler,
    GetUserHandler,
    ListUsersHandler,
    SearchUsersHandler,
  ],
})
export class UsersModule {}
