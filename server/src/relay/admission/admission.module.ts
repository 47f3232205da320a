import { Global, Module } from '@nestjs/common';
import { QUOTA_ADMISSION } from '../../modules/accounts';
import { QuotaAdmissionService } from './quota-admission.service';

/**
 * One QuotaAdmissionService per process, for everyone: the relay reserves with it, token authentication and edits
 * read and refresh it, and the balance projections push their bases through it. It holds this process's quota blocks
 * (in-memory admission state, see quota-blocks.ts), so a second instance would be a second, unrelated set of blocks.
 * Outside the relay it is reached through the QUOTA_ADMISSION port (modules/accounts), bound here to the same instance.
 */
@Global()
@Module({
  providers: [QuotaAdmissionService, { provide: QUOTA_ADMISSION, useExisting: QuotaAdmissionService }],
  exports: [QuotaAdmissionService, QUOTA_ADMISSION],
})
export class AdmissionModule {}
