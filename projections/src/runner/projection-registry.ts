import { Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Projection } from './projection';
import { ReadModelProjectionMarker } from './read-model-projection.decorator';

/**
 * Checks the rules the runner relies on: unique names, each table written by one projection only, and the
 * shape of the interface (decorated classes are not type-checked against it).
 */
export function validateProjections(projections: Projection[]): Projection[] {
  const names = new Set<string>();
  const owners = new Map<string, string>();
  for (const projection of projections) {
    const label = projection?.constructor?.name ?? String(projection);
    if (!projection || typeof projection.name !== 'string' || !projection.name) throw new Error(`Projection ${label} has no name`);
    if (typeof projection.apply !== 'function') throw new Error(`Projection ${projection.name} has no apply(event, manager)`);
    if (!Array.isArray(projection.handles)) throw new Error(`Projection ${projection.name} must list the event types it handles`);
    if (!Array.isArray(projection.tables) || projection.tables.length === 0) {
      throw new Error(`Projection ${projection.name} must list the tables it writes (rebuild truncates them)`);
    }
    if (names.has(projection.name)) throw new Error(`Two projections are named ${projection.name}`);
    names.add(projection.name);
    for (const table of projection.tables) {
      const owner = owners.get(table);
      if (owner) throw new Error(`Table ${table} is claimed by projections ${owner} and ${projection.name}: each table has one writer`);
      owners.set(table, projection.name);
    }
  }
  return [...projections].sort((a, b) => a.name.localeCompare(b.name));
}

/** Every projection of the application, found through `@ReadModelProjection()` when the module starts. */
@Injectable()
export class ProjectionRegistry implements OnModuleInit {
  private projections: Projection[] = [];

  constructor(@Optional() private readonly discovery?: DiscoveryService) {}

  /** A registry with a fixed list, for tests and tools that run without Nest. */
  static of(projections: Projection[]): ProjectionRegistry {
    const registry = new ProjectionRegistry();
    registry.projections = validateProjections(projections);
    return registry;
  }

  onModuleInit(): void {
    if (!this.discovery) return;
    const wrappers = this.discovery.getProviders({ metadataKey: ReadModelProjectionMarker.KEY });
    const instances = new Set<Projection>();
    for (const wrapper of wrappers) {
      if (!wrapper.isDependencyTreeStatic() || !wrapper.instance) {
        throw new Error(`Projection ${wrapper.name} must be a singleton provider (no request scope)`);
      }
      instances.add(wrapper.instance as Projection);
    }
    this.projections = validateProjections([...instances]);
  }

  all(): readonly Projection[] {
    return this.projections;
  }

  names(): string[] {
    return this.projections.map((projection) => projection.name);
  }
}
