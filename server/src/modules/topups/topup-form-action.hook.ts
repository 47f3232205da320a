import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { OptionsService } from '../options/options.service';
import { epayGateway } from './topup-gateway';

const FORM_ACTION = "form-action 'self'";

/**
 * The console's Content-Security-Policy allows forms to post only to its own origin (`form-action 'self'`,
 * common/http/security-headers.ts), which would block the online top-up's hidden form to the gateway. While a gateway
 * is configured, its origin (PayAddress's, the one `url` points at) is added to that directive, and nothing else.
 */
@Injectable()
export class TopUpFormActionHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly options: OptionsService,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', async (_request, reply, payload) => {
      const policy = reply.getHeader('content-security-policy');
      if (typeof policy !== 'string' || !policy.includes(FORM_ACTION)) return payload;
      const gateway = epayGateway(this.options);
      if (gateway)
        reply.header('content-security-policy', policy.replace(FORM_ACTION, `${FORM_ACTION} ${new URL(gateway.submitUrl).origin}`));
      return payload;
    });
  }
}
