import { applyDecorators, Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';

/** The discovery key; ProjectionRegistry asks Nest for every provider carrying it. */
export const ReadModelProjectionMarker = DiscoveryService.createDecorator<Record<string, never>>();

/**
 * Marks a provider class implementing `Projection`. Declaring it in any module's `providers` is the whole
 * registration: `@ReadModelProjection() export class BalancesProjection implements Projection { … }`.
 */
export function ReadModelProjection(): ClassDecorator {
  return applyDecorators(Injectable(), ReadModelProjectionMarker({}));
}
