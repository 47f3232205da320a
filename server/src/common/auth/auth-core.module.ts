import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from '../../modules/users/user.entity';
import { AuthGuard } from './auth.guard';
import { SessionService } from './session.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [SessionService, AuthGuard],
  exports: [SessionService, AuthGuard, TypeOrmModule],
})
export class AuthCoreModule {}
