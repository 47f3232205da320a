import { Global, Module } from '@nestjs/common';
import { QuotaAdmissionService } from './quota-admission.service';

/**
 * One QuotaAdmissionService per process, for everyone: the relay reserves with it, token authentication and edits
 * read and refresh it, and the balance projections push their bases through it. It holds this process's quota blocks
 * (in-memory admission state, see quota-blocks.ts), so a second instance would be a second, unrelated set of blocks.
 */
@Global()
@Module({
  providers: [QuotaAdmissionService],
  exports: [QuotaAdmissionService],
})
export class AdmissionModule {}
