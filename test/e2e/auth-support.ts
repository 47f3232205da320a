import type request from 'supertest';
import { DataSource, type FindOptionsWhere } from 'typeorm';
import type Redis from 'ioredis';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity } from '#server/modules/users/user.entity';
import type { TestApp } from '../support/app';
import type { CapturedMail, SmtpFake } from '../fakes/smtp-fake';

/** Shared steps of the identity e2e specs (test/e2e/auth-*.spec.ts). */

export async function setOptions(target: TestApp, changes: Record<string, string>): Promise<void> {
  await target.app.get(OptionsService).save(changes);
}

export function smtpOptions(smtp: SmtpFake): Record<string, string> {
  return {
    SMTPServer: '127.0.0.1',
    SMTPPort: String(smtp.port),
    SMTPAccount: 'mailer@tollgate.test',
    SMTPToken: 'smtp-secret',
    SMTPFrom: '',
    SMTPSSLEnabled: 'false',
  };
}

export function users(target: TestApp) {
  return target.app.get(DataSource).getRepository(UserEntity);
}

export async function findUser(target: TestApp, where: FindOptionsWhere<UserEntity>): Promise<UserEntity | null> {
  return users(target).findOne({ where, withDeleted: true });
}

export function redis(target: TestApp): Redis {
  return target.app.get<Redis>(REDIS);
}

/** The whole `users` table, to prove a refused request changed nothing. */
export async function usersSnapshot(target: TestApp): Promise<string> {
  const rows = await target.app.get(DataSource).query('SELECT * FROM users ORDER BY id');
  return JSON.stringify(rows);
}

export async function login(agent: request.Agent, username: string, password: string) {
  return agent.post('/api/user/login').send({ username, password });
}

/** The 6-hex code in a verification mail. */
export function mailedCode(mail: CapturedMail): string {
  const match = /<strong>([0-9a-f]{6})<\/strong>/.exec(mail.body);
  if (!match) throw new Error(`no code in mail body: ${mail.body}`);
  return match[1];
}

/** The reset link in a password-reset mail, HTML entities undone. */
export function mailedLink(mail: CapturedMail): URL {
  const match = /href="([^"]+)"/.exec(mail.body);
  if (!match) throw new Error(`no link in mail body: ${mail.body}`);
  return new URL(match[1].replace(/&amp;/g, '&'));
}

/** Requests an email code and returns it as the mail delivered it. */
export async function requestCode(agent: request.Agent, smtp: SmtpFake, email: string): Promise<string> {
  const before = smtp.messages.length;
  const response = await agent.get('/api/verification').query({ email });
  if (!response.body.success) throw new Error(`verification refused: ${response.body.message}`);
  const mail = await smtp.waitFor((candidate) => smtp.messages.indexOf(candidate) >= before && candidate.to.includes(email));
  return mailedCode(mail);
}
