import { Global, Module } from '@nestjs/common';
import { RateLimitHook } from './rate-limit.hook';
import { RateLimiterService } from './rate-limiter.service';

/** Per-IP limits on the console API, the console's static files and the critical (login-like) routes. */
@Global()
@Module({
  providers: [RateLimiterService, RateLimitHook],
  exports: [RateLimiterService],
})
export class RateLimitModule {}
