import { randomBytes } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import bcrypt from 'bcryptjs';
import type { Repository } from 'typeorm';
import { z } from 'zod';
import { InvalidParamsError } from '#server/common/http/errors';
import { parseInput } from '#server/common/http/validation';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity, UserStatus } from '#server/modules/users/user.entity';
import { normaliseName } from '#server/modules/users/user-input';
import { AuthError } from '../../auth.errors';
import { jsonString } from '../../request-input';
import { LoginWithPasswordCommand } from './login-with-password.command';

const loginBody = z.object({ username: jsonString, password: jsonString });

/** Compared against when no user matches, so an unknown name costs as much time as a wrong password. */
const DECOY_HASH = bcrypt.hashSync(randomBytes(16).toString('hex'), 10);

async function passwordMatches(password: string, hash: string): Promise<boolean> {
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false; // not a bcrypt hash (e.g. an account created by OAuth with no password)
  }
}

@CommandHandler(LoginWithPasswordCommand)
export class LoginWithPasswordHandler implements ICommandHandler<LoginWithPasswordCommand> {
  constructor(
    private readonly options: OptionsService,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  async execute({ body }: LoginWithPasswordCommand): Promise<UserEntity> {
    if (!this.options.getBool('PasswordLoginEnabled')) throw new AuthError('password_login_disabled');
    const { username, password } = parseInput(loginBody, body);
    // No length rules here: the default root password (6 characters) must keep working.
    if (!username || !password || username.length > 256 || password.length > 256) throw new InvalidParamsError();

    const user = await this.findByNameOrEmail(username);
    const matches = await passwordMatches(password, user?.password || DECOY_HASH);
    // One message for every failure, so a caller cannot tell a disabled account from a wrong password.
    if (!user || !matches || user.status !== UserStatus.Enabled) throw new AuthError('invalid_credentials');
    return user;
  }

  /**
   * Login by username or email, soft-deleted users excluded. An exact username wins over an email match, so
   * a user who picked someone else's email address as a username cannot shadow that account. The name is
   * NFKC-normalised as usernames are stored, so a look-alike (`ｒｏｏｔ`) reaches the real account and needs its
   * password; the name as typed is tried after, for an account named before names were normalised.
   */
  private async findByNameOrEmail(name: string): Promise<UserEntity | null> {
    const normalised = normaliseName(name);
    const byName =
      (await this.users.findOne({ where: { username: normalised } })) ??
      (normalised === name ? null : await this.users.findOne({ where: { username: name } }));
    if (byName) return byName;
    return this.users.findOne({ where: { email: name }, order: { id: 'ASC' } });
  }
}
