import type { MigrationInterface } from 'typeorm';
import { CreateUsersAndOptions1732300000000 } from './1732300000000-create-users-and-options';
import { CreateLedgerEvents1732300000100 } from './1732300000100-create-ledger-events';
import { CreateProjectionCheckpoints1732300000200 } from './1732300000200-create-projection-checkpoints';
import { CreateAccountBalances1732300001000 } from '#projections/read-models/account-balances/1732300001000-create-account-balances';
import { CreateLogs1732300001100 } from '#projections/read-models/logs/1732300001100-create-logs';
import { LogsLedgerIdsAndPurges1732300003600 } from '#projections/read-models/logs/1732300003600-logs-ledger-ids-and-purges';
import { CreateTokens1732300003000 } from './1732300003000-create-tokens';
import { CreateTokenBalances1732300003100 } from '#projections/read-models/token-balances/1732300003100-create-token-balances';
import { CreateChannels1732300004000 } from '#server/modules/channels/1732300004000-create-channels';
import { CreateChannelStatus1732300004100 } from '#projections/read-models/channel-status/1732300004100-create-channel-status';
import { LedgerAppendMany1732300005000 } from './1732300005000-ledger-append-many';
import { LedgerAppendManySetBased1732300005100 } from './1732300005100-ledger-append-many-set-based';
import { CreateQuotaData1732300006400 } from '#projections/read-models/quota-data/1732300006400-create-quota-data';
import { CreateRedemptionIds1732300007100 } from '#server/modules/redemptions/1732300007100-create-redemption-ids';
import { CreateRedemptions1732300007200 } from '#projections/read-models/redemptions/1732300007200-create-redemptions';
import { CreateStatementLines1732300008200 } from '#projections/read-models/statement/1732300008200-create-statement-lines';
import { CreateTopUpOrders1732300008100 } from '#projections/read-models/topup-orders/1732300008100-create-topup-orders';
import { CreateQuotaReminders1732300008300 } from '#server/modules/quota-reminder/1732300008300-create-quota-reminders';
import { CreateMidjourneyTasks1732300008400 } from '#projections/read-models/midjourney-tasks/1732300008400-create-midjourney-tasks';
import { CreateTasks1732300008600 } from '#projections/read-models/tasks/1732300008600-create-tasks';
import { LedgerArchive1732300009200 } from './1732300009200-ledger-archive';
import { PartitionLogsByMonth1732300009100 } from '#projections/read-models/logs/1732300009100-partition-logs-by-month';
import { CreateProjectionDeferredIndexes1732300009300 } from './1732300009300-create-projection-deferred-indexes';
import { DeleteTokenZeroBalances1732300009950 } from './1732300009950-delete-token-zero-balances';
import { CompactStatementChargeLines1732300009960 } from '#projections/read-models/statement/1732300009960-compact-statement-charge-lines';
import { QuotaDataNamesInByteOrder1732300009970 } from '#projections/read-models/quota-data/1732300009970-quota-data-names-in-byte-order';
import { LogsNamesInByteOrder1732300009980 } from '#projections/read-models/logs/1732300009980-logs-names-in-byte-order';

/**
 * Every migration, in order. Listed explicitly (no glob) so the same list works compiled, under Jest and in
 * the CLI. Each feature adds its own file and one line here.
 */
export const migrations: Array<new () => MigrationInterface> = [
  CreateUsersAndOptions1732300000000,
  CreateLedgerEvents1732300000100,
  CreateProjectionCheckpoints1732300000200,
  CreateAccountBalances1732300001000,
  CreateLogs1732300001100,
  LogsLedgerIdsAndPurges1732300003600,
  CreateTokens1732300003000,
  CreateTokenBalances1732300003100,
  CreateChannels1732300004000,
  CreateChannelStatus1732300004100,
  LedgerAppendMany1732300005000,
  LedgerAppendManySetBased1732300005100,
  CreateQuotaData1732300006400,
  CreateRedemptionIds1732300007100,
  CreateRedemptions1732300007200,
  CreateTopUpOrders1732300008100,
  CreateStatementLines1732300008200,
  CreateQuotaReminders1732300008300,
  CreateMidjourneyTasks1732300008400,
  CreateTasks1732300008600,
  PartitionLogsByMonth1732300009100,
  LedgerArchive1732300009200,
  CreateProjectionDeferredIndexes1732300009300,
  DeleteTokenZeroBalances1732300009950,
  CompactStatementChargeLines1732300009960,
  QuotaDataNamesInByteOrder1732300009970,
  LogsNamesInByteOrder1732300009980,
];
