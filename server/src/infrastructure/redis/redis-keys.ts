import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/** One place that names Redis keys, so every key of an installation shares its prefix. */
@Injectable()
export class RedisKeys {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get prefix(): string {
    return this.config.REDIS_PREFIX;
  }

  key(...parts: Array<string | number>): string {
    return [this.config.REDIS_PREFIX, ...parts].join(':');
  }
}
