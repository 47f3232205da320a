import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, NotFoundException, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

/**
 * GET /metrics in the Prometheus text format. Closed by default (answers as an unknown route); with METRICS_TOKEN
 * set, a scraper must send `Authorization: Bearer <token>`; METRICS_PUBLIC=true without a token opens it to anyone.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    const token = this.config.METRICS_TOKEN;
    if (!token && !this.config.METRICS_PUBLIC) throw new NotFoundException();
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`)) {
      await reply.code(401).header('WWW-Authenticate', 'Bearer').type('text/plain; charset=utf-8').send('unauthorized\n');
      return;
    }
    const { contentType, body } = await this.metrics.exposition();
    await reply.code(200).type(contentType).send(body);
  }
}

/** Compares digests so the time taken says nothing about how much of the token was right. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
