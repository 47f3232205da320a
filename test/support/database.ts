import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource, MigrationInterface } from 'typeorm';
import { runMigrations } from '#server/infrastructure/database/data-source';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (global setup resolves Postgres)');
  const url = new URL(base);
  url.pathname = '/postgres';
  return url.toString();
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `tg_t_${process.env.TEST_RUN_ID ?? process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  if (options.migrate !== false) await runMigrations(url.toString());
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set: run tests through jest');
  return url;
}

/** A Redis key prefix unique to one test app, so parallel files and BullMQ queues never meet. */
export function testRedisPrefix(): string {
  return `tgtest:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** One migration's `up` or `down` on a query runner of its own (a migration spec going back and forth). */
export async function runMigration(dataSource: DataSource, migration: MigrationInterface, direction: 'up' | 'down'): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await migration[direction](runner);
  } finally {
    await runner.release();
  }
}
