import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { MIN_ROLE } from '#server/common/auth/auth.decorators';

export interface DiscoveredRoute {
  method: string;
  path: string;
  minRole: number | undefined;
  controller: string;
  handler: string;
}

function join(...parts: string[]): string {
  const path = parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');
  return `/${path}`;
}

/** Every HTTP route the app registered, with the minimum role its auth decorator demands (if any). */
export function discoverRoutes(app: INestApplication): DiscoveredRoute[] {
  const routes: DiscoveredRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!type?.prototype) continue;
      const base = [Reflect.getMetadata(PATH_METADATA, type) ?? ''].flat() as string[];
      const classRole = Reflect.getMetadata(MIN_ROLE, type) as number | undefined;
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = type.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        const minRole = (Reflect.getMetadata(MIN_ROLE, handler) as number | undefined) ?? classRole;
        for (const prefix of base) {
          for (const path of [paths].flat()) {
            routes.push({ method: RequestMethod[method], path: join(prefix, path), minRole, controller: type.name, handler: name });
          }
        }
      }
    }
  }
  return routes;
}

/** Fills `:param` segments with a plausible value so the guard (which runs before pipes) decides. */
export function concretePath(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, '1');
}
