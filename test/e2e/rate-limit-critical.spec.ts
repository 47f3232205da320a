import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { CRITICAL_RATE_LIMIT } from '#server/common/rate-limit/rate-limit.decorators';
import { createTestApp, type TestApp } from '../support/app';

/** `METHOD /path` of every route carrying @CriticalRateLimit(), found by reflection. */
function criticalRoutes(app: INestApplication): { critical: string[]; all: string[] } {
  const critical: string[] = [];
  const all: string[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!type?.prototype) continue;
      const prefixes = [Reflect.getMetadata(PATH_METADATA, type) ?? ''].flat() as string[];
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = type.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        for (const prefix of prefixes) {
          for (const path of [paths].flat()) {
            const route = `${RequestMethod[method]} /${[prefix, path].join('/').split('/').filter(Boolean).join('/')}`;
            all.push(route);
            if (Reflect.getMetadata(CRITICAL_RATE_LIMIT, handler)) critical.push(route);
          }
        }
      }
    }
  }
  return { critical, all };
}

/** CriticalRateLimit, as in new-api: one bucket per IP shared by every critical route, after the global limit. */
describe('critical rate limit', () => {
  let target: TestApp;

  beforeAll(async () => {
    target = await createTestApp({ env: { CRITICAL_RATE_LIMIT: '3', CRITICAL_RATE_WINDOW_SECONDS: '600' } });
  });
  afterAll(async () => {
    await target.close();
  });

  it('is on register, login, verification, reset_password, user/reset and every /api/oauth/* route', () => {
    const { critical, all } = criticalRoutes(target.app);
    const expected = all.filter((route) =>
      /^(POST \/api\/user\/(login|register|reset)|GET \/api\/(verification|reset_password)|[A-Z]+ \/api\/oauth\/.*)$/.test(route),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(critical.sort()).toEqual(expected.sort());
  });

  it('shares one bucket across the critical routes and answers a bare 429 once it is spent', async () => {
    const { critical } = criticalRoutes(target.app);
    const call = (route: string) => {
      const [method, path] = route.split(' ');
      const agent = target.http();
      return method === 'POST' ? agent.post(path).send({}) : agent.get(path);
    };
    // Three different critical routes spend the shared bucket of 3…
    const spend = ['POST /api/user/login', 'GET /api/oauth/state', 'GET /api/verification'].filter((route) => critical.includes(route));
    expect(spend).toHaveLength(3);
    for (const route of spend) expect((await call(route)).status).not.toBe(429);
    // …so every critical route is now refused, with an empty body, before its guards or body are looked at.
    for (const route of critical) {
      const refused = await call(route);
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('');
    }
    // Ordinary API routes only count against the global bucket.
    await target.http().get('/api/status').expect(200);
    await target.http().get('/api/user/groups').expect(200);
  });
});
