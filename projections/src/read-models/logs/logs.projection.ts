import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../../../server/src/ledger/event-store.port';
import { streamCategory, streamKey } from '../../../../server/src/ledger/streams';
import { AccountEventType } from '../../../../server/src/modules/accounts/account.events';
import { logAnnotationOf, toAccountEvent } from '../../../../server/src/modules/accounts/account-event-codec';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { accountLogLine } from './account-log-lines';

/**
 * `logs`: the rows of the log screen. Account events become type 3 (admin) and type 4 (system) rows now; top-ups
 * (type 1) and relay consumption (type 2) join as their events do. Times come from the event, wording from the
 * event's annotation, so a rebuild writes identical rows.
 */
@ReadModelProjection()
export class LogsProjection implements Projection {
  readonly name = 'logs';
  readonly tables = ['logs'];
  readonly handles = Object.values(AccountEventType);

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'account') return;
    const annotation = logAnnotationOf(event);
    const line = accountLogLine(toAccountEvent(event), annotation.quotaDisplay);
    if (!line) return;
    await manager.query(
      `INSERT INTO logs (user_id, created_at, type, content, username, other, event_id)
       VALUES ($1, $2, $3, $4, $5, '', $6)
       ON CONFLICT (event_id) DO NOTHING`,
      [streamKey(event.streamId), Math.floor(event.createdAt.getTime() / 1000), line.type, line.content, annotation.username, event.id],
    );
  }
}
